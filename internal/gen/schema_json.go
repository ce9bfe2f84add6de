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
	o := &schemaObject{w: w}
	if err := o.applicators(s); err != nil {
		return err
	}
	if err := o.assertions(s); err != nil {
		return err
	}
	w.buf.WriteByte('}')
	return w.extras(s)
}

// schemaObject writes the keywords of one schema object; the first error
// stops the schema-valued keywords and is returned by the step.
type schemaObject struct {
	w   *schemaWriter
	err error
}

func (o *schemaObject) str(key, v string) {
	if v != "" {
		o.w.key(key)
		writeJSONString(&o.w.buf, v)
	}
}

func (o *schemaObject) num(key string, v json.Number) error {
	if v == "" {
		return nil
	}
	if !json.Valid([]byte(v)) {
		return fmt.Errorf("schema: invalid number %q for %s", string(v), key)
	}
	o.w.key(key)
	o.w.buf.WriteString(string(v))
	return nil
}

func (o *schemaObject) count(key string, v *uint64) {
	if v != nil {
		o.w.key(key)
		o.w.buf.WriteString(strconv.FormatUint(*v, 10))
	}
}

func (o *schemaObject) flag(key string, v bool) {
	if v {
		o.w.key(key)
		o.w.buf.WriteString("true")
	}
}

func (o *schemaObject) sub(key string, v *jsonschema.Schema) {
	if v != nil && o.err == nil {
		o.w.key(key)
		o.err = o.w.nested(v)
	}
}

func (o *schemaObject) list(key string, vs []*jsonschema.Schema) {
	if len(vs) == 0 || o.err != nil {
		return
	}
	w := o.w
	w.key(key)
	w.buf.WriteByte('[')
	for i, v := range vs {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		if o.err = w.nested(v); o.err != nil {
			return
		}
	}
	w.buf.WriteByte(']')
}

func (o *schemaObject) schemaMap(key string, m map[string]*jsonschema.Schema) {
	if len(m) == 0 || o.err != nil {
		return
	}
	w := o.w
	w.key(key)
	w.buf.WriteByte('{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		writeJSONString(&w.buf, k)
		w.buf.WriteByte(':')
		if o.err = w.nested(m[k]); o.err != nil {
			return
		}
	}
	w.buf.WriteByte('}')
}

func (o *schemaObject) value(key string, v any, omit bool) {
	if omit || o.err != nil {
		return
	}
	var b []byte
	if b, o.err = json.Marshal(v); o.err == nil {
		o.w.key(key)
		o.w.buf.Write(b)
	}
}

// applicators writes the core and applicator keywords, in the library's
// order.
func (o *schemaObject) applicators(s *jsonschema.Schema) error {
	o.str("$schema", s.Version)
	o.str("$id", string(s.ID))
	o.str("$anchor", s.Anchor)
	o.str("$ref", s.Ref)
	o.str("$dynamicRef", s.DynamicRef)
	o.schemaMap("$defs", s.Definitions)
	o.str("$comment", s.Comments)
	o.list("allOf", s.AllOf)
	o.list("anyOf", s.AnyOf)
	o.list("oneOf", s.OneOf)
	o.sub("not", s.Not)
	o.sub("if", s.If)
	o.sub("then", s.Then)
	o.sub("else", s.Else)
	o.schemaMap("dependentSchemas", s.DependentSchemas)
	o.list("prefixItems", s.PrefixItems)
	o.sub("items", s.Items)
	o.sub("contains", s.Contains)
	if s.Properties != nil && o.err == nil {
		o.w.key("properties")
		o.err = o.w.properties(s)
	}
	o.schemaMap("patternProperties", s.PatternProperties)
	o.sub("additionalProperties", s.AdditionalProperties)
	o.sub("propertyNames", s.PropertyNames)
	return o.err
}

// assertions writes the validation, format, content and annotation
// keywords, in the library's order.
func (o *schemaObject) assertions(s *jsonschema.Schema) error {
	o.str("type", s.Type)
	o.value("enum", s.Enum, len(s.Enum) == 0)
	o.value("const", s.Const, s.Const == nil)
	for _, n := range []struct {
		key string
		v   json.Number
	}{{"multipleOf", s.MultipleOf}, {"maximum", s.Maximum}, {"exclusiveMaximum", s.ExclusiveMaximum}, {"minimum", s.Minimum}, {"exclusiveMinimum", s.ExclusiveMinimum}} {
		if err := o.num(n.key, n.v); err != nil {
			return err
		}
	}
	o.count("maxLength", s.MaxLength)
	o.count("minLength", s.MinLength)
	o.str("pattern", s.Pattern)
	o.count("maxItems", s.MaxItems)
	o.count("minItems", s.MinItems)
	o.flag("uniqueItems", s.UniqueItems)
	o.count("maxContains", s.MaxContains)
	o.count("minContains", s.MinContains)
	o.count("maxProperties", s.MaxProperties)
	o.count("minProperties", s.MinProperties)
	o.value("required", s.Required, len(s.Required) == 0)
	o.value("dependentRequired", s.DependentRequired, len(s.DependentRequired) == 0)
	o.str("format", s.Format)
	o.str("contentEncoding", s.ContentEncoding)
	o.str("contentMediaType", s.ContentMediaType)
	o.sub("contentSchema", s.ContentSchema)
	o.str("title", s.Title)
	o.str("description", s.Description)
	o.value("default", s.Default, s.Default == nil)
	o.flag("deprecated", s.Deprecated)
	o.flag("readOnly", s.ReadOnly)
	o.flag("writeOnly", s.WriteOnly)
	o.value("examples", s.Examples, len(s.Examples) == 0)
	return o.err
}

// extras merges s.Extras into the object just closed.
func (w *schemaWriter) extras(s *jsonschema.Schema) error {
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

// mustSchemaJSON writes a generator-built schema, which always marshals.
func mustSchemaJSON(s *jsonschema.Schema) json.RawMessage {
	b, err := schemaJSON(s)
	if err != nil {
		panic(fmt.Sprintf("marshal generated schema: %v", err))
	}
	return b
}
