package gen

import (
	"sort"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// table returns the alias table of an enum as a field presents it; fields
// with the same style and extras share one table.
func (b *builder) table(e *protogen.Enum, rules *mcpwritev1.EnumAlias, f *protogen.Field) *enumTable {
	style, ok := styleOf(rules.GetStyle())
	if !ok {
		b.probs.fieldf(f, "unknown enum_alias style %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)", int32(rules.GetStyle()))
		style = stylePascal
	}
	if style == styleUnset {
		style = stylePascal
	}
	return b.styledTable(e, style, rules.GetExtra(), f)
}

// styledTable returns the alias table of an enum in style with the extra
// aliases of f (none when extra is empty).
func (b *builder) styledTable(e *protogen.Enum, style aliasStyle, extra map[string]string, f *protogen.Field) *enumTable {
	key := string(e.Desc.FullName()) + "|" + style.String()
	for _, k := range sortedKeys(extra) {
		key += "|" + k + "=" + extra[k]
	}
	if t, ok := b.tables[key]; ok {
		return t
	}
	var extraOf *protogen.Field
	if len(extra) > 0 {
		extraOf = f
	}
	name := enumTableVarName(e, style, extraOf)
	er := ext[*mcpwritev1.EnumRules](e.Desc.Options(), mcpwritev1.E_Enum)
	t := &enumTable{enum: e, varName: name, style: style, extra: extra, hint: er.GetHint()}
	byValue := map[string][]string{}
	for _, alias := range sortedKeys(extra) {
		byValue[extra[alias]] = append(byValue[extra[alias]], alias)
	}
	known := map[string]bool{}
	for _, v := range e.Values {
		known[string(v.Desc.Name())] = true
	}
	for _, alias := range sortedKeys(extra) {
		if !known[extra[alias]] {
			b.probs.fieldf(f, "extra alias %q names %q, which is not a value of %s; name one of its values (%s)", alias, extra[alias], e.Desc.FullName(), valueNames(e))
		}
	}
	for _, v := range e.Values {
		vr := valueRules(v)
		vname := string(v.Desc.Name())
		if vr.GetHidden() || strings.HasSuffix(vname, "UNSPECIFIED") {
			continue
		}
		av := aliasValue{value: v, synonyms: vr.GetSynonyms(), desc: vr.GetDescription()}
		if av.desc == "" {
			av.desc = cleanComment(v.Comments.Leading.String())
		}
		if av.desc == "" {
			av.desc = cleanComment(v.Comments.Trailing.String())
		}
		switch {
		case len(byValue[vname]) > 0:
			av.alias = byValue[vname][0]
			av.synonyms = append(append([]string(nil), byValue[vname][1:]...), av.synonyms...)
		case vr.GetAlias() != "":
			av.alias = vr.GetAlias()
		default:
			av.alias = valueAlias(style, string(e.Desc.Name()), vname)
		}
		t.values = append(t.values, av)
	}
	if len(t.values) == 0 {
		b.probs.enumf(e, "offers no value to agents (every value is hidden or UNSPECIFIED); add a value, or remove [(mcpwrite.v1.value).hidden = true] from one")
	}
	seen := map[string]string{}
	for _, v := range t.values {
		for _, n := range append([]string{v.alias}, v.synonyms...) {
			k := naming.Normalize(n) // as the runtime matches
			if prev, ok := seen[k]; ok && prev != string(v.value.Desc.Name()) {
				b.probs.enumf(e, "alias or synonym %q of %s collides with %s; give %s an alias of its own, e.g. [(mcpwrite.v1.value).alias = %q], or drop the synonym", n, v.value.Desc.Name(), prev, v.value.Desc.Name(), string(v.value.Desc.Name()))
			}
			seen[k] = string(v.value.Desc.Name())
		}
	}
	b.tables[key] = t
	b.file.enums = append(b.file.enums, t)
	if _, ok := b.file.firstTable[e.Desc.FullName()]; !ok {
		b.file.firstTable[e.Desc.FullName()] = t
	}
	return t
}

func (t *enumTable) lookup(s string) (*aliasValue, bool) {
	for i := range t.values {
		v := &t.values[i]
		if v.alias == s {
			return v, true
		}
		for _, syn := range v.synonyms {
			if syn == s {
				return v, true
			}
		}
	}
	return nil, false
}

func (t *enumTable) aliases() []string {
	out := make([]string, len(t.values))
	for i, v := range t.values {
		out[i] = v.alias
	}
	return out
}

// aliasOf returns the alias of a value in this table, or its name.
func (t *enumTable) aliasOf(v *protogen.EnumValue) string {
	for _, av := range t.values {
		if av.value == v {
			return av.alias
		}
	}
	return string(v.Desc.Name())
}

// groupAlias is how a group_by enum value is named in discovery output.
func groupAlias(v *protogen.EnumValue) string {
	if a := valueRules(v).GetAlias(); a != "" {
		return a
	}
	return valueAlias(stylePascal, string(v.Parent.Desc.Name()), string(v.Desc.Name()))
}

// sortTables orders tables by variable name for byte-stable output.
func sortTables(ts []*enumTable) []*enumTable {
	out := append([]*enumTable(nil), ts...)
	sort.Slice(out, func(i, j int) bool { return out[i].varName < out[j].varName })
	return out
}
