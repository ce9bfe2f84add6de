package gen

import "github.com/invopop/jsonschema"

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
