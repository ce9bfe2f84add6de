package gen

// MCP resources (opt-in, docs/resources.md): a read tool that is an AIP-131
// standard Get of a google.api.resource type is also served as an MCP
// resource template whose URI is the resource's AIP-122 full resource name
// under a scheme: aip://library.example.com/shelves/{shelf}/books/{book}.
// The runtime maps a URI back to the Get request's name and reads through
// the Get tool (runtime/resource_read.go).

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// defaultResourceScheme is the scheme of resource URIs when the service
// sets no resource_scheme.
const defaultResourceScheme = "aip"

var (
	// schemeRE is an RFC 3986 scheme, lower case.
	schemeRE = lazyRegexp(`^[a-z][a-z0-9+.-]{0,31}$`)
	// serviceNameRE is a resource type's service name, the URI's host.
	serviceNameRE = lazyRegexp(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)
	// literalSegmentRE and variableSegmentRE are the pattern segments a
	// resource URI can carry: a collection id, or one {variable}.
	literalSegmentRE  = lazyRegexp(`^[A-Za-z0-9._~-]+$`)
	variableSegmentRE = lazyRegexp(`^\{[a-z][a-z0-9_]*\}$`)
)

// resourceTemplates resolves the service's resource templates: each read
// tool the service (resources) or the method (resource) opts in.
func (b *builder) resourceTemplates(sm *serviceModel) {
	rules := serviceRules(sm)
	scheme := rules.GetResourceScheme()
	if scheme == "" {
		scheme = defaultResourceScheme
	} else if !schemeRE().MatchString(scheme) {
		b.probs.servicef(sm.proto, "resource_scheme %q is not a URI scheme: use a lower-case letter followed by up to 31 letters, digits, '+', '-' or '.' (e.g. \"aip\")", scheme)
		return
	}
	names := map[string]bool{}
	for _, t := range sm.tools {
		tr := toolRules(t)
		explicit := tr != nil && tr.Resource != nil
		want := rules.GetResources()
		if explicit {
			want = tr.GetResource()
		}
		if !want || !explicit && !standardGet(t) {
			continue
		}
		rs, why := b.resourcesOf(t, scheme)
		switch {
		case why != "" && explicit:
			b.probs.methodf(t.method, "resource: true, but %s; remove resource: true, or see docs/resources.md for what a resource needs", why)
			continue
		case why != "":
			// The service opted in: a standard Get that cannot be a
			// resource is named.
			if t.isRead() {
				b.file.warns = append(b.file.warns, fmt.Sprintf("%s: method %s: tool %s is not served as a resource: %s; to silence this, set option (mcpwrite.v1.tool) = {resource: false};",
					where(t.method.Desc), t.method.Desc.FullName(), t.name, why))
			}
			continue
		}
		for _, r := range rs {
			if names[r.Name] {
				b.probs.methodf(t.method, "resource template name %q is used twice (a tool's second pattern is named <tool>_2); rename one tool, e.g. option (mcpwrite.v1.tool) = {name: \"%s_alt\"};, or set option (mcpwrite.v1.tool) = {resource: false}; on one of them", r.Name, t.name)
				continue
			}
			names[r.Name] = true
			sm.resources = append(sm.resources, r)
		}
	}
}

// standardGet reports whether t has the shape of an AIP-131 standard Get,
// which resources: true serves: Get<Resource>(Get<Resource>Request)
// returning <Resource> or a message with a google.api.resource option
// (GetIamPolicy, whose request is a GetIamPolicyRequest answered by a
// Policy, is not one). A method's resource: true asks less (resourcesOf).
func standardGet(t *toolModel) bool {
	name := string(t.method.Desc.Name())
	res, ok := strings.CutPrefix(name, "Get")
	if !ok || res == "" || string(t.method.Input.Desc.Name()) != name+"Request" {
		return false
	}
	return string(t.method.Output.Desc.Name()) == res ||
		ext[*annotations.ResourceDescriptor](t.method.Output.Desc.Options(), annotations.E_Resource).GetType() != ""
}

// resourcesOf is one template per usable pattern of the resource t gets,
// or why t cannot be served as a resource.
func (b *builder) resourcesOf(t *toolModel, scheme string) ([]schemadoc.Resource, string) {
	if !t.isRead() {
		return nil, "tool " + t.name + " is not a read (kind READ); only an AIP-131 Get can be a resource"
	}
	if !strings.HasPrefix(string(t.method.Desc.Name()), "Get") {
		return nil, "method " + string(t.method.Desc.Name()) + " is not an AIP-131 standard Get (Get<Resource>)"
	}
	nameField, why := resourceNameField(t)
	if why != "" {
		return nil, why
	}
	typ, patterns := b.resourceTypeOf(t, nameField)
	switch {
	case typ == "":
		return nil, "neither its response " + string(t.method.Output.Desc.FullName()) + " has a google.api.resource option nor its name field a google.api.resource_reference to a type this build declares"
	case len(patterns) == 0:
		return nil, "resource type " + typ + " declares no pattern"
	}
	host, kind, _ := strings.Cut(typ, "/")
	if !serviceNameRE().MatchString(host) || kind == "" {
		return nil, "resource type " + strconv.Quote(typ) + " is not {service name}/{Kind}, so it names no URI host"
	}
	var out []schemadoc.Resource
	var bad []string
	for _, p := range patterns {
		if why := uriPattern(p); why != "" {
			bad = append(bad, strconv.Quote(p)+" "+why)
			continue
		}
		name := t.name
		if len(out) > 0 {
			name += "_" + strconv.Itoa(len(out)+1)
		}
		out = append(out, schemadoc.Resource{
			Tool:        t.name,
			Name:        name,
			Title:       titleOf(kind),
			Description: "The " + typ + " the URI names (" + p + "), as " + t.name + " reads it, in protojson.",
			Type:        typ,
			Pattern:     p,
			URITemplate: scheme + "://" + host + "/" + p,
			NameField:   nameField.agentName,
		})
	}
	if len(bad) > 0 {
		w := fmt.Sprintf("%s: method %s: resource type %s: pattern %s cannot be a URI template; ", where(t.method.Desc), t.method.Desc.FullName(), typ, strings.Join(bad, ", "))
		if len(out) == 0 {
			return nil, "no pattern of resource type " + typ + " can be a URI template: " + strings.Join(bad, ", ")
		}
		b.file.warns = append(b.file.warns, w+"its other patterns are served")
	}
	return out, ""
}

// resourceNameField is the Get request's name field: agent-supplied,
// a singular string, and the only argument the request requires.
func resourceNameField(t *toolModel) (*fieldModel, string) {
	var name *fieldModel
	for _, f := range t.input.fields {
		if f.proto.Desc.Name() == "name" {
			name = f
		}
	}
	switch {
	case name == nil || !name.exposed():
		return nil, "its request " + string(t.method.Input.Desc.FullName()) + " has no agent-supplied field name"
	case name.proto.Desc.Kind() != protoreflect.StringKind || name.proto.Desc.IsList():
		return nil, "its request's field name is not a singular string"
	}
	for _, f := range t.input.fields {
		if f != name && f.exposed() && f.required {
			return nil, "its request also requires " + f.agentName + ", which a resource URI does not carry"
		}
	}
	return name, ""
}

// resourceTypeOf is the resource type t gets and its patterns: the
// response's google.api.resource, else the type the name field's
// google.api.resource_reference names.
func (b *builder) resourceTypeOf(t *toolModel, nameField *fieldModel) (string, []string) {
	if rd := ext[*annotations.ResourceDescriptor](t.method.Output.Desc.Options(), annotations.E_Resource); rd.GetType() != "" {
		return rd.GetType(), rd.GetPattern()
	}
	ref := ext[*annotations.ResourceReference](nameField.proto.Desc.Options(), annotations.E_ResourceReference)
	if typ := ref.GetType(); typ != "" && typ != "*" {
		if ps, ok := b.resourcePatterns()[typ]; ok {
			return typ, ps
		}
	}
	return "", nil
}

// uriPattern says why a resource pattern cannot be a URI template's path,
// or "": its segments must be collection ids and single {variables}, each
// variable once.
func uriPattern(p string) string {
	seen := map[string]bool{}
	vars := 0
	for _, seg := range strings.Split(p, "/") {
		switch {
		case variableSegmentRE().MatchString(seg):
			if seen[seg] {
				return "repeats " + seg
			}
			seen[seg] = true
			vars++
		case !literalSegmentRE().MatchString(seg):
			return "has the segment " + strconv.Quote(seg) + " (only collection ids and whole {variable} segments map to a URI)"
		}
	}
	if vars == 0 {
		return "has no {variable}"
	}
	return ""
}

// titleOf is a resource kind as a title: BookShelf -> Book shelf.
func titleOf(kind string) string {
	t := strings.Join(naming.Words(kind), " ")
	if t == "" {
		return kind
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// resourcesComment is what Register<Service>Tools's comment says of the
// service's resource templates.
func resourcesComment(sm *serviceModel) []string {
	if len(sm.resources) == 0 {
		return nil
	}
	lines := []string{"", "It also adds the MCP resource templates below (Server.AddResourceTemplate;", "mcpgo.Register adds them to an mcp-go server), read through their Get tool:"}
	for _, r := range sm.resources {
		lines = append(lines, "  - "+r.URITemplate+" (read with "+r.Tool+")")
	}
	return lines
}
