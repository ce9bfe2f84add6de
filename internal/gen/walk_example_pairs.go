package gen

// A tool example's pair_check, checked as the generated early check runs
// it on the call: the relationship the type field names may connect the
// source to the target.

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/compiler/protogen"
)

// toolExampleProblems lists why the server would refuse obj as the
// arguments of t: the decoder's checks, the tool's pair_check and the
// request check on the request obj decodes to (walk_example_validate.go).
func toolExampleProblems(t *toolModel, obj map[string]any) []string {
	out := append(exampleProblems(t.input, obj, ""), pairProblems(t, obj)...)
	return append(out, requestProblems(t, obj, out)...)
}

// pairProblems checks t's pair_check over obj as the runtime's pair table
// does: a type with declared pairs connects only those (source, target)
// pairs; an end left unset (zero) is not checked, nor an end the server
// fills other than by a constant (its value is known only on a call).
func pairProblems(t *toolModel, obj map[string]any) []string {
	pc := t.pairCheck
	if pc == nil {
		return nil
	}
	typ, ok1 := pairEnd(t.input, pc.typ, obj)
	src, ok2 := pairEnd(t.input, pc.source, obj)
	dst, ok3 := pairEnd(t.input, pc.target, obj)
	if !ok1 || !ok2 || !ok3 || src == 0 || dst == 0 {
		return nil
	}
	constrained := false
	for _, p := range pc.rule.pairs {
		if int32(p.typ.Desc.Number()) != typ {
			continue
		}
		constrained = true
		if int32(p.source.Desc.Number()) == src && int32(p.target.Desc.Number()) == dst {
			return nil
		}
	}
	if !constrained {
		return nil
	}
	at := string(pc.typ.Desc.Name())
	if fm := t.input.fieldFor(pc.typ); fm != nil {
		at = fm.agentName
	}
	return []string{fmt.Sprintf("%s: Cannot create '%s' from %s to %s", at, aliasOf(pc.rule.types, typ), aliasOf(pc.rule.ends, src), aliasOf(pc.rule.ends, dst))}
}

// pairEnd is the enum number field f holds once obj is decoded and
// enriched: the agent's value (or the default), or a constant the server
// fills; false when it is known only on a call or the value is refused.
func pairEnd(m *messageModel, f *protogen.Field, obj map[string]any) (int32, bool) {
	fm := m.fieldFor(f)
	if fm == nil {
		return 0, false
	}
	if fm.fill != nil {
		if fm.fill.source != fillConstant || fm.fill.constant.ident == nil {
			return 0, false
		}
		for _, v := range f.Enum.Values {
			if v.GoIdent == *fm.fill.constant.ident {
				return int32(v.Desc.Number()), true
			}
		}
		return 0, false
	}
	if fm.mode != modeAgent && fm.mode != modeEnumAlias || fm.enumTable == nil {
		return 0, false
	}
	s, ok := decodedValue(fm, obj[fm.agentName])
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return int32(n), err == nil
}

// aliasOf is the alias agents know value n of t by, else the number.
func aliasOf(t *enumTable, n int32) string {
	for _, v := range t.values {
		if int32(v.value.Desc.Number()) == n {
			return v.alias
		}
	}
	return fmt.Sprint(n)
}
