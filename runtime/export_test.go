package runtime

import (
	"encoding/json"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// RenderSuccessForTest renders the success envelope of resp as a tool
// call does, and reports whether the one-pass encoder wrote it (false: it
// took the protojson path).
func RenderSuccessForTest(resp proto.Message, suggestions []string, warnings []mcpwriteimpl.Warning, enums map[string]*mcpwriteimpl.EnumTable, jsonNames bool) (body []byte, encoded bool, err error) {
	_, encErr := encodeResponseFields(resp, enums, jsonNames)
	o, err := successEnvelope(resp, "result", suggestions, warnings, enums, jsonNames)
	if err != nil {
		return nil, encErr == nil, err
	}
	b, err := marshalJSON(o)
	return b, encErr == nil, err
}

// RenderSuccessOracleForTest renders the same envelope the reference way:
// protojson, parsed, aliased in the tree, and the envelope marshalled by
// encoding/json.
func RenderSuccessOracleForTest(resp proto.Message, suggestions []string, warnings []mcpwriteimpl.Warning, enums map[string]*mcpwriteimpl.EnumTable, jsonNames bool) ([]byte, error) {
	o, err := successEnvelopeWith(responseFieldsProtojson, resp, "result", suggestions, warnings, enums, jsonNames)
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
