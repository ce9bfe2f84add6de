package gen

import "github.com/invopop/jsonschema"

// errorEntrySchema is one entry of the error envelope (runtime.ErrorEntry):
// code and message always, the other keys when they apply. suggestions stays
// open to extra keys (valid_relationships, similar_elements, ...) that a
// domain adds beside the standard three.
func errorEntrySchema() *jsonschema.Schema {
	str := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }
	strs := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "array", Items: str()} }
	sugg := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties()}
	sugg.Properties.Set("did_you_mean", strs())
	sugg.Properties.Set("valid_values", strs())
	sugg.Properties.Set("hint", str())
	e := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: []string{"code", "message"}, AdditionalProperties: jsonschema.FalseSchema}
	e.Properties.Set("code", str())
	e.Properties.Set("message", str())
	e.Properties.Set("field", str())
	e.Properties.Set("details", &jsonschema.Schema{Type: "object"})
	e.Properties.Set("trace_id", str())
	e.Properties.Set("suggestions", sugg)
	return e
}

// anyOutputSchema is google.protobuf.Any as protojson writes it: "@type"
// and the fields of the packed message.
func anyOutputSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: []string{"@type"}}
	s.Properties.Set("@type", &jsonschema.Schema{Type: "string"})
	return s
}

// base64Pattern is what the decoder takes for bytes: base64 in the standard
// or URL alphabet, with or without padding.
const base64Pattern = `^[A-Za-z0-9+/_-]*={0,2}$`

// bytesInputSchema is how an agent sends bytes (and BytesValue): a string
// with the base64 pattern. contentEncoding, which output schemas use, is a
// keyword OpenAI's strict mode refuses; a pattern it keeps.
func bytesInputSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: base64Pattern}
}
