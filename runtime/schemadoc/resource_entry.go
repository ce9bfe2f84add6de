package schemadoc

// Resource is an AIP-131 standard Get served as an MCP resource template:
// resources/read of a URI that matches URITemplate reads the resource whose
// name the URI carries through the read tool Tool (docs/resources.md).
type Resource struct {
	// Tool is the read tool (a Get method) that reads the resource.
	Tool string `json:"tool"`
	// Name is the template's name in resources/templates/list.
	Name string `json:"name"`
	// Title and Description are what a host shows for the template.
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Type is the google.api.resource type (library.example.com/Book).
	Type string `json:"type"`
	// Pattern is the resource name pattern the URI follows
	// (shelves/{shelf}/books/{book}).
	Pattern string `json:"pattern"`
	// URITemplate is the RFC 6570 template of the resource's URIs: Scheme,
	// "://", the type's service name, "/" and Pattern
	// (aip://library.example.com/shelves/{shelf}/books/{book}).
	URITemplate string `json:"uri_template"`
	// NameField is the Get request's field the resource name goes into, as
	// agents spell it ("name").
	NameField string `json:"name_field"`
}
