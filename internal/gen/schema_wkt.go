package gen

// The leaf schemas: scalars and well-known types, as agents send them and
// as answers render them.

import (
	"github.com/invopop/jsonschema"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// jsonTextWKT are the free-form well-known types an agent sends as JSON
// text in a string: the only lossless form that strict tool-calling modes
// accept (they refuse open objects and typeless values). The decoder also
// takes the value itself.
var jsonTextWKT = map[protoreflect.FullName]string{
	"google.protobuf.Struct":    `JSON text of an object, e.g. "{\"key\":\"value\"}".`,
	"google.protobuf.Value":     `JSON text of any value, e.g. "42", "\"text\"", "null" or "{\"key\":1}"; text that is not JSON is taken as a string.`,
	"google.protobuf.ListValue": `JSON text of an array, e.g. "[1,\"two\"]".`,
}

// jsonTextNote is the description note of a field (or its items) sent as
// JSON text; "" otherwise.
func jsonTextNote(f *protogen.Field) string {
	if f.Message == nil {
		return ""
	}
	return jsonTextWKT[f.Message.Desc.FullName()]
}

// wktInputSchema is how an agent sends a well-known type.
func wktInputSchema(name protoreflect.FullName) *jsonschema.Schema {
	if note, ok := jsonTextWKT[name]; ok {
		return &jsonschema.Schema{Type: "string", Description: note}
	}
	switch name {
	case "google.protobuf.BytesValue":
		return bytesInputSchema()
	case "google.protobuf.FieldMask":
		return fieldMaskSchema()
	}
	return wktSchema(name)
}

// anyJSONValue is the output schema of google.protobuf.Value: one typed
// branch per JSON kind, never the boolean or empty schema some clients refuse.
func anyJSONValue() *jsonschema.Schema {
	var branches []*jsonschema.Schema
	for _, t := range []string{"string", "number", "boolean", "object", "array", "null"} {
		branches = append(branches, &jsonschema.Schema{Type: t})
	}
	return &jsonschema.Schema{AnyOf: branches}
}

func scalarSchema(k protoreflect.Kind) *jsonschema.Schema {
	switch k {
	case protoreflect.BoolKind:
		return &jsonschema.Schema{Type: "boolean"}
	case protoreflect.StringKind:
		return &jsonschema.Schema{Type: "string"}
	case protoreflect.BytesKind:
		return &jsonschema.Schema{Type: "string", ContentEncoding: "base64"}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return &jsonschema.Schema{Type: "number"}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return &jsonschema.Schema{Type: "string", Pattern: "^-?[0-9]+$"}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return &jsonschema.Schema{Type: "string", Pattern: "^[0-9]+$"}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return &jsonschema.Schema{Type: "integer", Minimum: "0"}
	default:
		return &jsonschema.Schema{Type: "integer"}
	}
}

func wktSchema(name protoreflect.FullName) *jsonschema.Schema {
	switch name {
	case "google.protobuf.Timestamp":
		return &jsonschema.Schema{Type: "string", Format: "date-time"}
	case "google.protobuf.Duration":
		return &jsonschema.Schema{Type: "string", Pattern: `^-?[0-9]+(\.[0-9]{1,9})?s$`}
	case "google.protobuf.FieldMask":
		return &jsonschema.Schema{Type: "string"}
	case "google.protobuf.Struct":
		return &jsonschema.Schema{Type: "object"}
	case "google.protobuf.Value":
		return anyJSONValue()
	case "google.protobuf.ListValue":
		return &jsonschema.Schema{Type: "array"}
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue":
		return &jsonschema.Schema{Type: "number"}
	case "google.protobuf.Int64Value":
		return scalarSchema(protoreflect.Int64Kind)
	case "google.protobuf.UInt64Value":
		return scalarSchema(protoreflect.Uint64Kind)
	case "google.protobuf.Int32Value":
		return &jsonschema.Schema{Type: "integer"}
	case "google.protobuf.UInt32Value":
		return scalarSchema(protoreflect.Uint32Kind)
	case "google.protobuf.BoolValue":
		return &jsonschema.Schema{Type: "boolean"}
	case "google.protobuf.StringValue":
		return &jsonschema.Schema{Type: "string"}
	case "google.protobuf.BytesValue":
		return scalarSchema(protoreflect.BytesKind)
	}
	return nil
}
