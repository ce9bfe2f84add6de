package runtime

// Bottom layer: the ordered JSON object every answer is built from (object,
// member), its encoder, and the protojson rendering of messages.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// member is one key of a JSON object whose key order is part of the output:
// agents and golden tests read the envelope, so it must be byte-stable.
type member struct {
	Key string
	Val any
}

// object is a JSON object that keeps its keys in insertion order.
type object []member

// set replaces the value of key, or appends it.
func (o *object) set(key string, val any) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Val = val
			return
		}
	}
	*o = append(*o, member{key, val})
}

// MarshalJSON writes the members in order without HTML escaping.
func (o object) MarshalJSON() ([]byte, error) {
	return appendObjectJSON(make([]byte, 0, 256), o)
}

// marshalJSON is json.Marshal without HTML escaping ("<" stays "<"), since the
// output is read by agents, not embedded in HTML. An envelope (object) is
// written directly, its members in order, with the bytes encoding/json
// writes for the same values.
func marshalJSON(v any) ([]byte, error) {
	if o, ok := v.(object); ok {
		return appendObjectJSON(make([]byte, 0, 512), o)
	}
	return marshalJSONStd(v)
}

// marshalJSONStd is marshalJSON through encoding/json.
func marshalJSONStd(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// appendObjectJSON appends o as encoding/json writes it (without HTML
// escaping): ownJSON as it is, the envelope's own value types directly,
// anything else through encoding/json.
func appendObjectJSON(b []byte, o object) ([]byte, error) {
	b = append(b, '{')
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendEnvString(b, m.Key); err != nil {
			return nil, err
		}
		b = append(b, ':')
		if b, err = appendEnvValue(b, m.Val); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendEnvValue appends one member value as encoding/json writes it.
func appendEnvValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case ownJSON:
		return append(b, v...), nil
	case object:
		return appendObjectJSON(b, v) // a nil object is {}, as its MarshalJSON writes it
	case []object:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, o := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendEnvValue(b, o); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case string:
		return appendEnvString(b, v)
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendEnvString(b, s); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case []impl.Warning:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendWarning(b, &v[i]); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	raw, err := marshalJSONStd(v)
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

// appendWarning appends w as encoding/json writes it (by its tags).
func appendWarning(b []byte, w *impl.Warning) ([]byte, error) {
	var err error
	b = append(b, `{"code":`...)
	if b, err = appendEnvString(b, w.Code); err != nil {
		return nil, err
	}
	b = append(b, `,"message":`...)
	if b, err = appendEnvString(b, w.Message); err != nil {
		return nil, err
	}
	if w.Field != "" {
		b = append(b, `,"field":`...)
		if b, err = appendEnvString(b, w.Field); err != nil {
			return nil, err
		}
	}
	if w.Suggestion != "" {
		b = append(b, `,"suggestion":`...)
		if b, err = appendEnvString(b, w.Suggestion); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendEnvString appends s as encoding/json writes it without HTML
// escaping: printable ASCII other than '"' and '\\' literally, anything
// else through encoding/json (its escapes, U+2028 and U+2029 escaped,
// invalid UTF-8 replaced).
func appendEnvString(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			raw, err := marshalJSONStd(s)
			if err != nil {
				return nil, err
			}
			return append(b, raw...), nil
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// parseObject reads a JSON object keeping its key order; values stay raw.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o = append(o, member{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// protoJSON and camelJSON are how requests and responses are shown to
// agents, with the field names of the schemas: proto names, or protojson
// names for a service with field_naming JSON_NAME.
var (
	protoJSON = protojson.MarshalOptions{UseProtoNames: true}
	camelJSON = protojson.MarshalOptions{}
)

// messageJSON renders m as compact JSON (protojson output is deliberately
// unstable in whitespace, so it is compacted), with protojson field names
// when jsonNames.
func messageJSON(m proto.Message, jsonNames bool) (json.RawMessage, error) {
	if m == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := jsonOptions(jsonNames).Marshal(m)
	if err != nil {
		return nil, err
	}
	return compactJSON(b)
}

// jsonOptions picks the protojson rendering of the service's field names.
func jsonOptions(jsonNames bool) protojson.MarshalOptions {
	if jsonNames {
		return camelJSON
	}
	return protoJSON
}

// ownOutputLimits bounds the parse of JSON this process rendered itself:
// nothing in it may be refused for its size.
func ownOutputLimits(raw []byte) impl.Limits {
	n := len(raw) + 1
	return impl.Limits{MaxBytes: n, MaxDepth: 100, MaxStringBytes: n, MaxArrayLen: n, MaxObjectKeys: n}
}

// compactJSON drops protojson's deliberately unstable whitespace.
func compactJSON(b []byte) (json.RawMessage, error) {
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return nil, err
	}
	return c.Bytes(), nil
}

// ownJSON is compact, valid JSON this process wrote itself: the envelope
// copies it as it is.
type ownJSON []byte

// MarshalJSON returns j.
func (j ownJSON) MarshalJSON() ([]byte, error) { return j, nil }
