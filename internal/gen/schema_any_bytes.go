package gen

import "github.com/invopop/jsonschema"

// anyOutputSchema is google.protobuf.Any as protojson writes it: "@type"
// and the fields of the packed message.
func anyOutputSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: []string{"@type"}}
	s.Properties.Set("@type", &jsonschema.Schema{Type: "string"})
	return s
}

// base64Pattern is exactly what the decoder takes for bytes: base64 in the
// standard or the URL alphabet (one of them per value), with or without
// padding. A body of 4-character groups ends in 2 or 3 more characters or
// none, so no length of 4n+1 (which no base64 has) matches.
const base64Pattern = `^(?:(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?|(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}(?:==)?|[A-Za-z0-9_-]{3}=?)?)$`

// bytesInputSchema is how an agent sends bytes (and BytesValue): a string
// with the base64 pattern. contentEncoding, which output schemas use, is a
// keyword OpenAI's strict mode refuses; a pattern it keeps.
func bytesInputSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: base64Pattern}
}
