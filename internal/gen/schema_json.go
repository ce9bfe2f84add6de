package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/invopop/jsonschema"
)

// schemaJSON renders s exactly as (*jsonschema.Schema).MarshalJSON does
// (the same keys in the same order, strings HTML-escaped as encoding/json
// escapes them, Extras merged last), in one pass: the library's method
// compares every node with an empty schema by reflection and marshals each
// nested schema separately, which re-reads the nested bytes at every
// level. A differential test holds the two byte-identical.
func schemaJSON(s *jsonschema.Schema) ([]byte, error) {
	var w schemaWriter
	if err := w.schema(s); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

type schemaWriter struct {
	buf   bytes.Buffer
	first bool // no member written yet in the current object
}

func (w *schemaWriter) schema(s *jsonschema.Schema) error {
	if s == nil {
		w.buf.WriteString("null")
		return nil
	}
	if schemaEmpty(s) {
		// true, false or an empty schema: the library's answer, cheap here.
		b, err := s.MarshalJSON()
		if err != nil {
			return err
		}
		w.buf.Write(b)
		return nil
	}
	w.buf.WriteByte('{')
	w.first = true
	str := func(key, v string) {
		if v != "" {
			w.key(key)
			writeJSONString(&w.buf, v)
		}
	}
	num := func(key string, v json.Number) error {
		if v == "" {
			return nil
		}
		if !json.Valid([]byte(v)) {
			return fmt.Errorf("schema: invalid number %q for %s", string(v), key)
		}
		w.key(key)
		w.buf.WriteString(string(v))
		return nil
	}
	count := func(key string, v *uint64) {
		if v != nil {
			w.key(key)
			w.buf.WriteString(strconv.FormatUint(*v, 10))
		}
	}
	flag := func(key string, v bool) {
		if v {
			w.key(key)
			w.buf.WriteString("true")
		}
	}
	var err error
	sub := func(key string, v *jsonschema.Schema) {
		if v != nil && err == nil {
			w.key(key)
			err = w.nested(v)
		}
	}
	list := func(key string, vs []*jsonschema.Schema) {
		if len(vs) == 0 || err != nil {
			return
		}
		w.key(key)
		w.buf.WriteByte('[')
		for i, v := range vs {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			if err = w.nested(v); err != nil {
				return
			}
		}
		w.buf.WriteByte(']')
	}
	schemaMap := func(key string, m map[string]*jsonschema.Schema) {
		if len(m) == 0 || err != nil {
			return
		}
		w.key(key)
		w.buf.WriteByte('{')
		for i, k := range sortedKeys(m) {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			writeJSONString(&w.buf, k)
			w.buf.WriteByte(':')
			if err = w.nested(m[k]); err != nil {
				return
			}
		}
		w.buf.WriteByte('}')
	}
	value := func(key string, v any, omit bool) {
		if omit || err != nil {
			return
		}
		var b []byte
		if b, err = json.Marshal(v); err == nil {
			w.key(key)
			w.buf.Write(b)
		}
	}

	str("$schema", s.Version)
	str("$id", string(s.ID))
	str("$anchor", s.Anchor)
	str("$ref", s.Ref)
	str("$dynamicRef", s.DynamicRef)
	schemaMap("$defs", s.Definitions)
	str("$comment", s.Comments)
	list("allOf", s.AllOf)
	list("anyOf", s.AnyOf)
	list("oneOf", s.OneOf)
	sub("not", s.Not)
	sub("if", s.If)
	sub("then", s.Then)
	sub("else", s.Else)
	schemaMap("dependentSchemas", s.DependentSchemas)
	list("prefixItems", s.PrefixItems)
	sub("items", s.Items)
	sub("contains", s.Contains)
	if s.Properties != nil && err == nil {
		w.key("properties")
		err = w.properties(s)
	}
	schemaMap("patternProperties", s.PatternProperties)
	sub("additionalProperties", s.AdditionalProperties)
	sub("propertyNames", s.PropertyNames)
	if err != nil {
		return err
	}
	str("type", s.Type)
	value("enum", s.Enum, len(s.Enum) == 0)
	value("const", s.Const, s.Const == nil)
	for _, n := range []struct {
		key string
		v   json.Number
	}{{"multipleOf", s.MultipleOf}, {"maximum", s.Maximum}, {"exclusiveMaximum", s.ExclusiveMaximum}, {"minimum", s.Minimum}, {"exclusiveMinimum", s.ExclusiveMinimum}} {
		if err := num(n.key, n.v); err != nil {
			return err
		}
	}
	count("maxLength", s.MaxLength)
	count("minLength", s.MinLength)
	str("pattern", s.Pattern)
	count("maxItems", s.MaxItems)
	count("minItems", s.MinItems)
	flag("uniqueItems", s.UniqueItems)
	count("maxContains", s.MaxContains)
	count("minContains", s.MinContains)
	count("maxProperties", s.MaxProperties)
	count("minProperties", s.MinProperties)
	value("required", s.Required, len(s.Required) == 0)
	value("dependentRequired", s.DependentRequired, len(s.DependentRequired) == 0)
	str("format", s.Format)
	str("contentEncoding", s.ContentEncoding)
	str("contentMediaType", s.ContentMediaType)
	sub("contentSchema", s.ContentSchema)
	str("title", s.Title)
	str("description", s.Description)
	value("default", s.Default, s.Default == nil)
	flag("deprecated", s.Deprecated)
	flag("readOnly", s.ReadOnly)
	flag("writeOnly", s.WriteOnly)
	value("examples", s.Examples, len(s.Examples) == 0)
	if err != nil {
		return err
	}
	w.buf.WriteByte('}')
	if len(s.Extras) == 0 {
		return nil
	}
	m, err := json.Marshal(s.Extras)
	if err != nil {
		return err
	}
	if w.first { // nothing but Extras
		w.buf.Truncate(w.buf.Len() - 2)
		w.buf.Write(m)
		return nil
	}
	w.buf.Truncate(w.buf.Len() - 1)
	w.buf.WriteByte(',')
	w.buf.Write(m[1:])
	return nil
}

// nested writes a schema inside the current object and restores its state.
func (w *schemaWriter) nested(s *jsonschema.Schema) error {
	first := w.first
	err := w.schema(s)
	w.first = first
	return err
}

func (w *schemaWriter) properties(s *jsonschema.Schema) error {
	w.buf.WriteByte('{')
	i := 0
	for p := s.Properties.Oldest(); p != nil; p = p.Next() {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		i++
		writeJSONString(&w.buf, p.Key)
		w.buf.WriteByte(':')
		if err := w.nested(p.Value); err != nil {
			return err
		}
	}
	w.buf.WriteByte('}')
	return nil
}

// key starts a member of the current object.
func (w *schemaWriter) key(k string) {
	if !w.first {
		w.buf.WriteByte(',')
	}
	w.first = false
	w.buf.WriteByte('"')
	w.buf.WriteString(k) // the keys above need no escaping
	w.buf.WriteString(`":`)
}

// schemaEmpty reports a schema with no exported field set: the library
// answers it with true, false or the empty schema's true.
func schemaEmpty(s *jsonschema.Schema) bool {
	return s.Version == "" && s.ID == "" && s.Anchor == "" && s.Ref == "" && s.DynamicRef == "" &&
		s.Definitions == nil && s.Comments == "" && s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil &&
		s.Not == nil && s.If == nil && s.Then == nil && s.Else == nil && s.DependentSchemas == nil &&
		s.PrefixItems == nil && s.Items == nil && s.Contains == nil && s.Properties == nil &&
		s.PatternProperties == nil && s.AdditionalProperties == nil && s.PropertyNames == nil &&
		s.Type == "" && s.Enum == nil && s.Const == nil && s.MultipleOf == "" && s.Maximum == "" &&
		s.ExclusiveMaximum == "" && s.Minimum == "" && s.ExclusiveMinimum == "" && s.MaxLength == nil &&
		s.MinLength == nil && s.Pattern == "" && s.MaxItems == nil && s.MinItems == nil && !s.UniqueItems &&
		s.MaxContains == nil && s.MinContains == nil && s.MaxProperties == nil && s.MinProperties == nil &&
		s.Required == nil && s.DependentRequired == nil && s.Format == "" && s.ContentEncoding == "" &&
		s.ContentMediaType == "" && s.ContentSchema == nil && s.Title == "" && s.Description == "" &&
		s.Default == nil && !s.Deprecated && !s.ReadOnly && !s.WriteOnly && s.Examples == nil && s.Extras == nil
}

// writeJSONString writes s as encoding/json.Marshal does: HTML characters,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced.
func writeJSONString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			b, _ := json.Marshal(s) // a string always marshals
			buf.Write(b)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}
