package gen

// Tool examples are checked at generation by the rules the decoder applies
// to an agent's call, over the model the decoder is generated from: an
// example the server would refuse (an unknown enum alias, a number out of
// range, a string too short, too long or off its pattern, a list too short
// or too long, a required field left out, a value of the wrong JSON type)
// is a generation error naming the example and the field. Levels a
// recursive message takes as JSON text and values the decoder reads from
// text (Struct, Value, well-known types) are checked where they are plain.

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// exampleProblems lists why the decoder would refuse obj as the arguments
// of message m, each as "path: reason".
func exampleProblems(m *messageModel, obj map[string]any, prefix string) []string {
	var out []string
	for _, f := range m.agentFields() {
		v, ok := obj[f.agentName]
		path := prefix + f.agentName
		if !ok || v == nil {
			if f.required {
				out = append(out, path+": missing required field")
			}
			continue
		}
		out = append(out, exampleValueProblems(f, v, path)...)
	}
	return out
}

// exampleValueProblems checks one value of field f (a list or map field's
// whole value).
func exampleValueProblems(f *fieldModel, v any, path string) []string {
	d := f.proto.Desc
	switch {
	case d.IsMap():
		return nil // keys and values as text: checked by the decoder only
	case d.IsList():
		xs, ok := v.([]any)
		if !ok {
			return []string{path + ": expected an array"}
		}
		var out []string
		if vc := f.value; vc != nil {
			if vc.minItems != nil && uint32(len(xs)) < *vc.minItems {
				out = append(out, fmt.Sprintf("%s: must have at least %d items, got %d", path, *vc.minItems, len(xs)))
			}
			if vc.maxItems != nil && uint32(len(xs)) > *vc.maxItems {
				out = append(out, fmt.Sprintf("%s: must have at most %d items, got %d", path, *vc.maxItems, len(xs)))
			}
		}
		for i, x := range xs {
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
			if _, text := v.(string); text && f.child.recursive {
				return nil // a level sent as JSON text
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

// accepts reports whether the decoder's enum lookup takes s: an alias, a
// synonym or the proto value name (also without the enum's prefix),
// exactly or as the normalizing lookup reads it.
func (t *enumTable) accepts(s string) bool {
	prefix := naming.EnumPrefix(string(t.enum.Desc.Name()))
	n := suggest.Normalize(s)
	for _, v := range t.values {
		name := string(v.value.Desc.Name())
		for _, c := range append([]string{v.alias, name, strings.TrimPrefix(name, prefix)}, v.synonyms...) {
			if c == s || suggest.Normalize(c) == n {
				return true
			}
		}
	}
	return false
}
