package gen

// Helpers for the fix each report ends with: text a proto author can paste
// (a name that would be accepted, a literal of the field's type, the
// fields to choose from).

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// acceptedName is s with every character outside [a-zA-Z0-9_-] made "_",
// cut to 64 characters: a name a tool or agent field may have.
func acceptedName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "name"
	}
	return string(b)
}

// literalExample is a JSON literal of f's type as protojson writes it,
// quoted as a proto text string: what default, constant and required_when
// values take ("\"text\"", "0", "true", "\"VALUE\"").
func literalExample(f *protogen.Field) string {
	var lit string
	switch k := f.Desc.Kind(); {
	case f.Enum != nil:
		v := f.Enum.Values[len(f.Enum.Values)-1]
		lit = strconv.Quote(string(v.Desc.Name()))
	case k == protoreflect.BoolKind:
		lit = "true"
	case isNumeric(k):
		lit = "1"
	default:
		lit = `"text"`
	}
	return strconv.Quote(lit)
}

// fieldList names m's fields that keep takes, or says there is none.
func fieldList(m *protogen.Message, keep func(*protogen.Field) bool) string {
	var names []string
	for _, f := range m.Fields {
		if keep == nil || keep(f) {
			names = append(names, string(f.Desc.Name()))
		}
	}
	if len(names) == 0 {
		return "there is none; add one"
	}
	return strings.Join(names, ", ")
}

// singularEnum keeps the singular enum fields.
func singularEnum(f *protogen.Field) bool {
	return f.Enum != nil && !f.Desc.IsList() && !f.Desc.IsMap()
}

// impliesExample is an implies entry naming a value of e, as written.
func impliesExample(e *protogen.Enum) string {
	v := e.Values[len(e.Values)-1]
	return strconv.Quote(string(e.Desc.FullName()) + "." + string(v.Desc.Name()))
}

// valueNames are e's value names.
func valueNames(e *protogen.Enum) string {
	names := make([]string, len(e.Values))
	for i, v := range e.Values {
		names[i] = string(v.Desc.Name())
	}
	return strings.Join(names, ", ")
}

// firstOf is the first name of a fieldList, or "field" when there is none.
func firstOf(list string) string {
	if first, _, _ := strings.Cut(list, ", "); first != "" && !strings.HasPrefix(list, "there is none") {
		return first
	}
	return "field"
}

// toolNames are the names of sm's tools.
func toolNames(sm *serviceModel) string {
	var names []string
	for _, t := range sm.tools {
		names = append(names, t.name)
	}
	return strings.Join(names, ", ")
}

// agentNames are the names the agent sends m's fields by.
func agentNames(m *messageModel) string {
	var names []string
	for _, f := range m.agentFields() {
		names = append(names, f.agentName)
	}
	if len(names) == 0 {
		return "there is none"
	}
	return strings.Join(names, ", ")
}

// minimalInput is a JSON object holding t's first input field, with a
// value of its type, for a fix to start from.
func minimalInput(t *toolModel) string {
	fs := t.input.agentFields()
	if len(fs) == 0 {
		return "{}"
	}
	f := fs[0]
	v := `"text"`
	switch d := f.proto.Desc; {
	case d.IsList():
		v = "[]"
	case d.IsMap() || f.child != nil:
		v = "{}"
	case f.enumTable != nil && len(f.enumTable.values) > 0:
		v = strconv.Quote(f.enumTable.values[0].alias)
	case d.Kind() == protoreflect.BoolKind:
		v = "true"
	case isNumeric(d.Kind()):
		v = "1"
	}
	return `{"` + f.agentName + `":` + v + `}`
}
