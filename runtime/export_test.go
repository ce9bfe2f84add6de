package runtime

import (
	"encoding/json"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// ZeroForTest chooses the fields written at their zero value: All (the
// service's emit_zero_values) or the Fields listed (emit_zero_value).
type ZeroForTest struct {
	All    bool
	Fields []string
}

func zeroShape(jsonNames bool, zero []ZeroForTest) answerShape {
	svc := &schemadoc.Service{}
	if jsonNames {
		svc.FieldNaming = "JSON_NAME"
	}
	if len(zero) > 0 {
		svc.ZeroValues, svc.ZeroValueFields = zero[0].All, zero[0].Fields
	}
	return shapeOf(svc)
}

// RenderSuccessForTest renders the success envelope of resp as a tool
// call does, and reports whether the one-pass encoder wrote it (false: it
// took the protojson path).
func RenderSuccessForTest(resp proto.Message, suggestions []string, warnings []impl.Warning, enums map[string]*impl.EnumTable, jsonNames bool, zero ...ZeroForTest) (body []byte, encoded bool, err error) {
	shape := zeroShape(jsonNames, zero)
	_, encErr := encodeResponseFields(resp, enums, shape)
	o, err := successEnvelope(resp, "result", suggestions, warnings, enums, shape)
	if err != nil {
		return nil, encErr == nil, err
	}
	b, err := marshalJSON(o)
	return b, encErr == nil, err
}

// RenderSuccessOracleForTest renders the same envelope the reference way:
// protojson, parsed, aliased in the tree, and the envelope marshalled by
// encoding/json.
func RenderSuccessOracleForTest(resp proto.Message, suggestions []string, warnings []impl.Warning, enums map[string]*impl.EnumTable, jsonNames bool, zero ...ZeroForTest) ([]byte, error) {
	shape := zeroShape(jsonNames, zero)
	o, err := successEnvelopeWith(responseFieldsProtojson, resp, "result", suggestions, warnings, enums, shape)
	if err != nil {
		return nil, err
	}
	return marshalJSONStd(oracleObject(o))
}

// oracleObject is o with every member value marshalled by encoding/json.
type oracleObject object

func (o oracleObject) MarshalJSON() ([]byte, error) {
	var b []byte
	b = append(b, '{')
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := marshalJSONStd(m.Key)
		if err != nil {
			return nil, err
		}
		b = append(b, k...)
		b = append(b, ':')
		v := m.Val
		switch x := v.(type) {
		case object:
			v = oracleObject(x)
		case ownJSON:
			v = json.RawMessage(x)
		}
		raw, err := marshalJSONStd(v)
		if err != nil {
			return nil, err
		}
		b = append(b, raw...)
	}
	return append(b, '}'), nil
}

// ClassificationForTest is how answers of a service whose document has
// enumOutput spell the canonical classification c.
func ClassificationForTest(enumOutput, c string) string {
	return shapeOf(&schemadoc.Service{EnumOutput: enumOutput}).classification(c)
}
