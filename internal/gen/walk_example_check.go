package gen

// Tool examples are checked at generation by the rules the decoder applies
// to an agent's call, over the model the decoder is generated from: an
// example the server would refuse (an unknown enum alias, a number out of
// range, a string too short, too long or off its pattern, a list too short
// or too long, a required field left out, a value of the wrong JSON type)
// is a generation error naming the example and the field. Map entries
// (as an object or as {key, value} entries), levels a recursive message
// takes as JSON text, oneofs and required_when are checked as the decoder
// checks them. Values read from text (well-known types, 64-bit integers,
// bytes) and the request check's buf.validate rules are checked on the
// request the example decodes to (walk_example_build.go, walk_example_validate.go);
// live vocabularies are left to the server.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// exampleProblems lists why the decoder would refuse obj as the arguments
// of message m, each as "path: reason".
func exampleProblems(m *messageModel, obj map[string]any, prefix string) []string {
	var out []string
	if prefix != "" {
		// The tool's own keys are checked by toolExamples, which knows
		// its control arguments.
		out = unknownKeys(m, obj, prefix)
	}
	for _, f := range m.agentFields() {
		v, ok := obj[f.agentName]
		path := prefix + f.agentName
		if !ok || v == nil {
			if f.required && !f.overridable {
				out = append(out, path+": missing required field")
			}
			continue
		}
		out = append(out, exampleValueProblems(f, v, path)...)
	}
	out = append(out, oneofProblems(m, obj, prefix)...)
	return append(out, requiredWhenProblems(m, obj, prefix)...)
}

// exampleValueProblems checks one value of field f (a list or map field's
// whole value).
func exampleValueProblems(f *fieldModel, v any, path string) []string {
	d := f.proto.Desc
	switch {
	case d.IsMap():
		return exampleMapProblems(f, v, path)
	case d.IsList():
		xs, ok := v.([]any)
		if !ok {
			return []string{path + ": expected an array"}
		}
		out := countProblems(f, len(xs), path)
		if vc := f.value; vc != nil {
			if vc.minItems != nil && uint32(len(xs)) < *vc.minItems {
				out = append(out, fmt.Sprintf("%s: must have at least %d items, got %d", path, *vc.minItems, len(xs)))
			}
			if vc.maxItems != nil && uint32(len(xs)) > *vc.maxItems {
				out = append(out, fmt.Sprintf("%s: must have at most %d items, got %d", path, *vc.maxItems, len(xs)))
			}
		}
		for i, x := range xs {
			if x == nil {
				continue // the decoder reads a null item as no item
			}
			out = append(out, exampleItemProblems(f, x, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	return exampleItemProblems(f, v, path)
}

// exampleItemProblems checks one singular value of f.
func exampleItemProblems(f *fieldModel, v any, path string) []string {
	switch {
	case f.enumTable != nil:
		s, ok := v.(string)
		if !ok {
			return []string{path + ": expected a string (one of " + strings.Join(f.enumTable.aliases(), ", ") + ")"}
		}
		if !f.enumTable.accepts(s) {
			return []string{fmt.Sprintf("%s: %q is not a value of %s (valid: %s)", path, s, f.enumTable.enum.Desc.FullName(), strings.Join(f.enumTable.aliases(), ", "))}
		}
		return nil
	case f.child != nil:
		obj, ok := v.(map[string]any)
		if !ok {
			if text, isText := v.(string); isText && f.child.recursive {
				return jsonTextLevelProblems(f.child, text, path)
			}
			return []string{path + ": expected an object"}
		}
		return exampleProblems(f.child, obj, path+".")
	}
	vc := f.value
	if vc == nil {
		return nil
	}
	switch x := v.(type) {
	case string:
		return exampleStringProblems(vc, x, path)
	case float64:
		if vc.minimum != nil && x < *vc.minimum {
			return []string{fmt.Sprintf("%s: must be at least %v, got %v", path, *vc.minimum, x)}
		}
		if vc.maximum != nil && x > *vc.maximum {
			return []string{fmt.Sprintf("%s: must be at most %v, got %v", path, *vc.maximum, x)}
		}
	}
	return nil
}

// exampleStringProblems checks a string against f's length and pattern.
func exampleStringProblems(vc *valueConstraints, s, path string) []string {
	n := utf8.RuneCountInString(s)
	switch {
	case vc.minLength != nil && uint32(n) < *vc.minLength:
		return []string{fmt.Sprintf("%s: must be at least %d characters, got %d", path, *vc.minLength, n)}
	case vc.maxLength != nil && uint32(n) > *vc.maxLength:
		return []string{fmt.Sprintf("%s: must be at most %d characters, got %d", path, *vc.maxLength, n)}
	case vc.pattern != nil:
		if re, err := regexp.Compile(*vc.pattern); err == nil && !re.MatchString(s) {
			return []string{fmt.Sprintf("%s: %q does not match %s", path, s, *vc.pattern)}
		}
	}
	return nil
}

// accepts reports whether the decoder's enum lookup takes s (find).
func (t *enumTable) accepts(s string) bool {
	_, ok := t.find(s)
	return ok
}

// spellings are the texts the decoder's lookup takes for v: its alias, its
// synonyms and the proto value name, also without the enum's prefix.
func (v *aliasValue) spellings(t *enumTable) []string {
	prefix := naming.EnumPrefix(string(t.enum.Desc.Name()))
	name := string(v.value.Desc.Name())
	return append([]string{v.alias, name, strings.TrimPrefix(name, prefix)}, v.synonyms...)
}

// The shapes of a tool example the decoder checks beyond one value: a
// map's entries, a recursive level sent as JSON text, keys a nested
// object does not have, the members of a oneof and the fields required
// when a sibling holds a value. Each reads as the generated decoder reads
// the same arguments (emit_decode.go) and words its reason as the
// decoder's answer does.

// exampleMapProblems checks a map field's value: a JSON object, or a list
// of {key, value} entries (MapEntries), its pair counts, each key as the
// key type reads it and each value as a singular value of f.
func exampleMapProblems(f *fieldModel, v any, path string) []string {
	keys, vals, out := mapEntries(v, path)
	if keys == nil && out != nil {
		return out
	}
	out = append(out, countProblems(f, len(keys), path)...)
	kf := f.proto.Message.Fields[0]
	for i, k := range keys {
		at := path + "." + k
		if p := mapKeyProblem(f, kf.Desc.Kind(), k); p != "" {
			out = append(out, at+": "+p)
			continue
		}
		if vals[i] == nil {
			continue
		}
		out = append(out, exampleItemProblems(f, vals[i], at)...)
	}
	return out
}

// mapEntries reads a map's entries in order; keys is nil with a reason
// when v is neither an object nor a list of entries.
func mapEntries(v any, path string) (keys []string, vals []any, out []string) {
	switch x := v.(type) {
	case map[string]any:
		keys = sortedKeys(x)
		for _, k := range keys {
			vals = append(vals, x[k])
		}
		return keys, vals, nil
	case []any:
		keys = []string{}
		seen := map[string]bool{}
		for i, e := range x {
			at := fmt.Sprintf("%s[%d]", path, i)
			entry, ok := e.(map[string]any)
			if !ok {
				out = append(out, at+": expected an object")
				continue
			}
			for _, k := range sortedKeys(entry) {
				if k != "key" && k != "value" {
					out = append(out, fmt.Sprintf("%s: unknown field %q", at, k))
				}
			}
			k, isText := entry["key"].(string)
			val, hasValue := entry["value"]
			switch {
			case entry["key"] == nil:
				out = append(out, at+".key: missing required field")
			case !isText:
				out = append(out, at+".key: expected a string (map keys are strings; numbers and booleans are written as text)")
			case seen[k]:
				out = append(out, fmt.Sprintf("%s.key: key %q is given twice", at, k))
			case !hasValue:
				out = append(out, at+".value: missing required field")
			default:
				seen[k] = true
				keys, vals = append(keys, k), append(vals, val)
			}
		}
		return keys, vals, out
	}
	return nil, nil, []string{path + ": expected an object (or a list of {key, value} entries)"}
}

// mapKeyProblem is why the decoder refuses map key k of kind kind ("" when
// it takes it): a key that is not the key type in its canonical form, or a
// string key off its buf.validate rules.
func mapKeyProblem(f *fieldModel, kind protoreflect.Kind, k string) string {
	var canon string
	var err error
	switch kind {
	case protoreflect.StringKind:
		return stringKeyProblem(f, k)
	case protoreflect.BoolKind:
		var b bool
		b, err = strconv.ParseBool(k)
		canon = strconv.FormatBool(b)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		var n int64
		n, err = strconv.ParseInt(k, 10, bitsOf(kind))
		canon = strconv.FormatInt(n, 10)
	default:
		var n uint64
		n, err = strconv.ParseUint(k, 10, bitsOf(kind))
		canon = strconv.FormatUint(n, 10)
	}
	switch {
	case err != nil:
		return fmt.Sprintf("map key %q is not a valid %s", k, kind)
	case canon != k:
		return fmt.Sprintf("map key %q is not a valid %s: write the number as %s", k, kind, canon)
	}
	return ""
}

func bitsOf(k protoreflect.Kind) int {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return 32
	}
	return 64
}

// stringKeyProblem checks a string key against the map's key rules.
func stringKeyProblem(f *fieldModel, k string) string {
	if f.pv == nil || f.mode != modeAgent {
		return ""
	}
	r, n := f.pv.keys, uint64(utf8.RuneCountInString(k))
	switch {
	case r.minLen != nil && n < *r.minLen:
		return fmt.Sprintf("key must be at least %d characters, got %d", *r.minLen, n)
	case r.maxLen != nil && n > *r.maxLen:
		return fmt.Sprintf("key must be at most %d characters, got %d", *r.maxLen, n)
	case r.pattern != "":
		if re, err := regexp.Compile(r.pattern); err == nil && !re.MatchString(k) {
			return fmt.Sprintf("key %q does not match %s", k, r.pattern)
		}
	}
	return ""
}

// countProblems checks the item or pair counts buf.validate sets beyond
// the agent rules (map pairs, enum_alias lists).
func countProblems(f *fieldModel, n int, path string) []string {
	if f.pv == nil {
		return nil
	}
	var out []string
	if c := f.pv.minCount; c != nil && uint64(n) < *c {
		out = append(out, fmt.Sprintf("%s: must have at least %d items, got %d", path, *c, n))
	}
	if c := f.pv.maxCount; c != nil && uint64(n) > *c {
		out = append(out, fmt.Sprintf("%s: must have at most %d items, got %d", path, *c, n))
	}
	return out
}

// jsonTextLevelProblems checks a level of recursive message m sent as
// JSON text, as Subtree reads it: the text of an object (or null), whose
// fields are checked as if written in place.
func jsonTextLevelProblems(m *messageModel, text, path string) []string {
	var x any
	if err := json.Unmarshal([]byte(text), &x); err != nil {
		return []string{fmt.Sprintf("%s: expected JSON text of an object: %v", path, err)}
	}
	switch y := x.(type) {
	case nil:
		return nil
	case map[string]any:
		return exampleProblems(m, y, path+".")
	}
	return []string{fmt.Sprintf("%s: expected JSON text of an object, got JSON text of %s", path, jsonKindOf(x))}
}

func jsonKindOf(x any) string {
	switch x.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return "an object"
}

// unknownKeys lists the keys of a nested object that its message does not
// take, as Known reports them.
func unknownKeys(m *messageModel, obj map[string]any, prefix string) []string {
	known := map[string]bool{}
	for _, f := range m.agentFields() {
		known[f.agentName] = true
	}
	var out []string
	for _, k := range sortedKeys(obj) {
		if !known[k] {
			out = append(out, fmt.Sprintf("%s%s: unknown field %q", prefix, k, k))
		}
	}
	return out
}

// oneofProblems checks each oneof (and (buf.validate.message).oneof rule)
// the decoder checks: at most one member sent, and one when required. A
// member holding null counts as not sent.
func oneofProblems(m *messageModel, obj map[string]any, prefix string) []string {
	var out []string
	check := func(keys []string, required bool) {
		var sent []string
		for _, k := range keys {
			if obj[k] != nil {
				sent = append(sent, k)
			}
		}
		switch {
		case len(sent) == 0 && required && len(keys) == 1:
			out = append(out, prefix+keys[0]+": missing required field")
		case len(sent) == 0 && required:
			out = append(out, prefix+keys[0]+": set exactly one of "+strings.Join(keys, ", "))
		case len(sent) > 1:
			out = append(out, prefix+sent[1]+": set only one of "+strings.Join(keys, ", ")+", not "+sent[0]+" and "+sent[1])
		}
	}
	for _, od := range m.proto.Oneofs {
		if od.Desc.IsSynthetic() {
			continue
		}
		var keys []string
		for _, f := range m.agentFields() {
			if f.proto.Oneof == od {
				keys = append(keys, f.agentName)
			}
		}
		required := m.requiredOneofs[od]
		if len(keys) == 0 || len(keys) < 2 && !required {
			continue
		}
		check(keys, required)
	}
	for _, mo := range m.msgOneofs {
		if mo.agentKeys != nil {
			check(mo.agentKeys, mo.required)
		}
	}
	return out
}

// requiredWhenProblems reports each field the example leaves out while its
// required_when condition holds: the sibling's value as decoded (its
// default, or the zero value, when the sibling is left out too) is one
// the condition lists.
func requiredWhenProblems(m *messageModel, obj map[string]any, prefix string) []string {
	var out []string
	for _, f := range m.agentFields() {
		rw := f.requiredWhen
		if rw == nil || obj[f.agentName] != nil {
			continue
		}
		got, ok := decodedValue(rw.when, obj[rw.when.agentName])
		if !ok {
			continue // the sibling itself is refused
		}
		for _, c := range rw.values {
			if want, _ := decodedValue(rw.when, c.json); want == got {
				out = append(out, fmt.Sprintf("%s%s: %s is required when %s is %s", prefix, f.agentName, f.agentName, rw.when.agentName, mustJSON(c.json)))
				break
			}
		}
	}
	return out
}

// decodedValue is what the decoder stores for JSON value v of singular
// scalar or enum field f, as comparable text: an enum's number, a
// number's shortest form, a string or a bool. A nil v is the field's
// default, else its zero value.
func decodedValue(f *fieldModel, v any) (string, bool) {
	if v == nil {
		switch {
		case f.enumDefault != nil:
			return strconv.Itoa(int(f.enumDefault.value.Desc.Number())), true
		case f.value != nil && f.value.deflt != nil:
			v = f.value.deflt.jsonValue
		case f.enumTable != nil:
			return "0", true
		default:
			v = zeroJSON(f.proto.Desc.Kind())
		}
	}
	if t := f.enumTable; t != nil {
		s, _ := v.(string)
		av, ok := t.find(s)
		if !ok {
			return "", false
		}
		return strconv.Itoa(int(av.value.Desc.Number())), true
	}
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case string:
		if isNumeric(f.proto.Desc.Kind()) {
			if n, err := strconv.ParseFloat(x, 64); err == nil {
				return strconv.FormatFloat(n, 'g', -1, 64), true
			}
		}
		return strconv.Quote(x), true
	}
	return "", false
}

func zeroJSON(k protoreflect.Kind) any {
	switch {
	case k == protoreflect.BoolKind:
		return false
	case isNumeric(k):
		return 0.0
	}
	return ""
}

// find is the offered value the decoder's enum lookup takes s as: an
// alias, a synonym or the proto value name (also without the enum's
// prefix), exactly or as the normalizing lookup reads it.
func (t *enumTable) find(s string) (*aliasValue, bool) {
	n := suggest.Normalize(s)
	for i := range t.values {
		for _, c := range t.values[i].spellings(t) {
			if c == s || suggest.Normalize(c) == n {
				return &t.values[i], true
			}
		}
	}
	return nil, false
}
