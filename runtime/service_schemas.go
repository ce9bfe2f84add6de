package runtime

import (
	"bytes"
	"encoding/json"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// The service tools' schemas stay in the portable subset every vendor
// accepts: object types with properties, required and additionalProperties
// false, string enums, no $ref, anyOf, oneOf, allOf or type arrays.

// jsonSchema is one schema of that subset. It is written with its keywords
// in a fixed order (type, properties, items, description, enum, required,
// additionalProperties), each only when set, so tools/list sends the same
// bytes every time.
type jsonSchema struct {
	Type string
	// Properties are an object's properties in declaration order; nil
	// writes no properties keyword, an empty list writes {}.
	Properties props
	// Items is an array's item schema.
	Items       *jsonSchema
	Description string
	// Enum lists a string's values; nil writes no enum keyword, an empty
	// list writes [].
	Enum []string
	// Required names the properties every instance has (written when any).
	Required []string
	// Closed writes additionalProperties false.
	Closed bool
	// Values is the schema of every value of a map-like object, written as
	// additionalProperties (when not Closed).
	Values *jsonSchema
}

// prop is one named property schema.
type prop struct {
	name   string
	schema jsonSchema
}

// props keeps properties in declaration order.
type props []prop

// MarshalJSON writes the schema's keywords in their fixed order.
func (s jsonSchema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := s.write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (s *jsonSchema) write(b *bytes.Buffer) error {
	n := 0
	key := func(k string) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteByte('"')
		b.WriteString(k) // keywords need no escaping
		b.WriteString(`":`)
	}
	b.WriteByte('{')
	if s.Type != "" {
		key("type")
		if err := writeJSONString(b, s.Type); err != nil {
			return err
		}
	}
	if s.Properties != nil {
		key("properties")
		b.WriteByte('{')
		for i, p := range s.Properties {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSONString(b, p.name); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := p.schema.write(b); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	if s.Items != nil {
		key("items")
		if err := s.Items.write(b); err != nil {
			return err
		}
	}
	if s.Description != "" {
		key("description")
		if err := writeJSONString(b, s.Description); err != nil {
			return err
		}
	}
	if s.Enum != nil {
		key("enum")
		if err := writeJSONStrings(b, s.Enum); err != nil {
			return err
		}
	}
	if len(s.Required) > 0 {
		key("required")
		if err := writeJSONStrings(b, s.Required); err != nil {
			return err
		}
	}
	switch {
	case s.Closed:
		key("additionalProperties")
		b.WriteString("false")
	case s.Values != nil:
		key("additionalProperties")
		if err := s.Values.write(b); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeJSONString writes s as a JSON string without HTML escaping, as every
// answer is written.
func writeJSONString(b *bytes.Buffer, s string) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode ends with a newline
	return nil
}

func writeJSONStrings(b *bytes.Buffer, ss []string) error {
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeJSONString(b, s); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// objectSchema is a closed object schema.
func objectSchema(ps props, required ...string) jsonSchema {
	s := objectSchemaOpen(ps, required...)
	s.Closed = true
	return s
}

// objectSchemaOpen is an object schema that allows more properties (for
// results whose shape depends on the tool they came from).
func objectSchemaOpen(ps props, required ...string) jsonSchema {
	if ps == nil {
		ps = props{}
	}
	return jsonSchema{Type: "object", Properties: ps, Required: required}
}

func stringSchema(desc string) jsonSchema {
	return jsonSchema{Type: "string", Description: desc}
}

func enumSchema(desc string, values []string) jsonSchema {
	return jsonSchema{Type: "string", Description: desc, Enum: nonNil(values)}
}

func arraySchema(items jsonSchema) jsonSchema {
	return jsonSchema{Type: "array", Items: &items}
}

var (
	typeString  = jsonSchema{Type: "string"}
	typeBoolean = jsonSchema{Type: "boolean"}
	typeObject  = jsonSchema{Type: "object"}
)

// envelopeSchema is the schema of one envelope key (schemadoc.Envelope).
func envelopeSchema(k schemadoc.EnvelopeKey) prop {
	s := jsonSchema{Type: k.Type, Description: k.Description}
	if k.Items != "" {
		s.Items = &jsonSchema{Type: k.Items}
	}
	return prop{k.Name, s}
}

// resultSchemaJSON is a service tool's output schema: its success shape,
// opened so the error envelope (success false, error, errors) that every
// tool answers a bad call with also conforms. Clients validate
// structuredContent against the output schema even for isError results.
// The success shape's own required keys are dropped, since a failure has
// none of them. The envelope's error and errors follow the success shape's
// properties unless the success shape has them: validate_write lists the
// payload's problems as errors (error entries, as the envelope's are), so
// its schema states errors once, as the tool describes it.
func resultSchemaJSON(success jsonSchema) json.RawMessage {
	env := schemadoc.AnswerEnvelope()
	ps := success.Properties
	// A member the tool's own answer describes (validate_write's errors:
	// the payload's problems, error entries either way) is described once,
	// by the tool; the envelope adds only what the answer lacks.
	has := func(name string) bool {
		for _, p := range ps {
			if p.name == name {
				return true
			}
		}
		return false
	}
	if !has(env.Success.Name) {
		ps = append(props{envelopeSchema(env.Success)}, ps...)
	}
	ps = ps[:len(ps):len(ps)]
	for _, k := range []schemadoc.EnvelopeKey{env.Error, env.Errors} {
		if !has(k.Name) {
			ps = append(ps, envelopeSchema(k))
		}
	}
	return schemaJSON(jsonSchema{Type: "object", Properties: ps})
}

// schemaJSON renders a schema for mcp.Tool.
func schemaJSON(s jsonSchema) json.RawMessage {
	b, err := s.MarshalJSON()
	if err != nil {
		panic(err) // unreachable: strings always encode
	}
	return b
}

func errorEntrySchema() jsonSchema {
	return objectSchemaOpen(props{
		{"code", typeString}, {"message", typeString}, {"field", typeString},
		{"details", typeObject}, {"trace_id", typeString}, {"suggestions", typeObject},
	}, "code", "message")
}

func warningSchema() jsonSchema {
	return objectSchema(props{
		{"code", typeString}, {"message", typeString}, {"field", typeString}, {"suggestion", typeString},
	}, "code", "message")
}

func validateOutputSchema() jsonSchema {
	return objectSchema(props{
		{"valid", typeBoolean},
		{"errors", arraySchema(errorEntrySchema())},
		{"warnings", arraySchema(warningSchema())},
		{"suggestions", arraySchema(typeString)},
		{"preview", objectSchema(props{
			{"request", typeObject},
			{"server_filled", arraySchema(typeString)},
			{"domain", typeObject},
		}, "request", "server_filled")},
	}, "valid", "errors", "warnings", "suggestions")
}

func schemaOutputSchema() jsonSchema {
	return objectSchema(props{
		{"operation", typeString},
		{"schema_hash", stringSchema("Identifies this tool's schema; changes exactly when the tool does")},
		{"schema_version", stringSchema("Identifies the whole service's schema, the same on every tool's _meta mcpwrite/schema_version; cache what you learned by it")},
		{"description", typeString}, {"kind", typeString},
		{"classification", typeString}, {"confirmation", typeString},
		{"input_schema", typeObject}, {"output_schema", typeObject},
		{"examples", arraySchema(objectSchema(props{{"description", typeString}, {"input", typeObject}}, "description", "input"))},
		{"required_fields", arraySchema(typeString)},
		{"optional_fields", arraySchema(typeString)},
		{"server_fills", arraySchema(objectSchema(props{
			{"field", typeString}, {"proto_field", typeString}, {"source", typeString}, {"how", typeString}, {"overridable", typeBoolean},
		}, "field", "source", "how"))},
		{"control_arguments", arraySchema(stringSchema("An argument that steers the call, not the request (idempotency key, dry run, the agent's summary), in the service's field naming; the other spelling is accepted too"))},
		{"field_naming", stringSchema("JSON_NAME when every field name is the protojson name (parentId); absent for proto names")},
		{"rules", arraySchema(objectSchema(props{
			{"field", typeString}, {"proto_field", typeString}, {"filled_by", typeString},
			{"rules", arraySchema(objectSchema(props{
				{"rule", typeString}, {"value", typeString}, {"id", typeString}, {"message", typeString}, {"checked_by", typeString},
			}, "rule", "checked_by"))},
		}, "filled_by", "rules"))},
		{"decided_by", stringSchema("The evidence that decided kind and classification: a proto signal (an idempotency_level, a google.api.http binding, an AIP standard-method shape, a method name) or the tool option")},
		{"long_descriptions", arraySchema(objectSchema(props{{"path", typeString}, {"description", typeString}}, "path", "description"))},
	}, "operation", "schema_hash", "schema_version", "description", "kind", "classification", "confirmation", "input_schema", "output_schema",
		"examples", "required_fields", "optional_fields", "server_fills", "control_arguments")
}

func discoveryOutputSchema(grouped, paired bool) jsonSchema {
	item := props{{"value", typeString}, {"description", typeString}, {"group", typeString}}
	if paired {
		item = append(item, prop{"valid_pairs", arraySchema(objectSchema(props{{"source", typeString}, {"target", typeString}}, "source", "target"))})
	}
	ps := props{{"values", arraySchema(objectSchema(item, "value"))}}
	req := []string{"values"}
	if grouped {
		values := arraySchema(typeString)
		ps = append(ps, prop{"groups", jsonSchema{Type: "object", Values: &values}})
		req = append(req, "groups")
	}
	return objectSchema(ps, req...)
}

// proposalResultSchema is apply_proposal's success shape: whatever the
// applied write answers.
func proposalResultSchema() jsonSchema {
	return objectSchemaOpen(props{{"success", typeBoolean}}, "success")
}

// discardResultSchema is discard_proposal's success shape.
func discardResultSchema() jsonSchema {
	return objectSchema(props{{"success", typeBoolean}, {"proposal_id", typeString}, {"discarded", typeBoolean}}, "success", "proposal_id", "discarded")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
