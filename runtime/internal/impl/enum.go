package impl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// EnumValue is one agent-facing enum value.
type EnumValue struct {
	Number      int32
	Name        string // proto value name, e.g. ELEMENT_TYPE_APPLICATION_COMPONENT
	Alias       string // agent-facing name, e.g. ApplicationComponent
	Synonyms    []string
	Description string
}

// EnumTable maps agent-facing names to enum numbers. Matching is exact on
// alias and synonyms first, then case- and separator-insensitive.
type EnumTable struct {
	FullName string
	Values   []EnumValue // offered values, declaration order; UNSPECIFIED and hidden excluded
	Hint     string
	exact    map[string]int32 // alias, then synonym -> number
	index    map[string]int32 // normalised alias, synonym, name, short name -> number
	alias    map[int32]string // number -> alias (first value with the number)
	aliases  []string         // offered aliases, declaration order
	names    *suggest.Index   // did-you-mean over aliases (synonyms and names also match)
}

// NewEnumTable builds the lookup index of an agent-facing enum.
//
// Lookup tries, in order: an exact alias, an exact synonym, then the
// normalised input (case and separators ignored, see suggest.Normalize)
// against aliases, synonyms and proto value names with or without the
// enum's common prefix, so "ApplicationComponent", "APPLICATION_COMPONENT",
// "ELEMENT_TYPE_APPLICATION_COMPONENT" and "application-component" all find
// ApplicationComponent. On a collision the earlier rule and the earlier
// value win. Values named *UNSPECIFIED are dropped: they are never offered
// and never match. A value without an alias is offered under its proto
// name without the prefix, in PascalCase.
func NewEnumTable(fullName string, values []EnumValue, hint string) *EnumTable {
	t := &EnumTable{
		FullName: fullName,
		Hint:     hint,
		exact:    make(map[string]int32, 2*len(values)),
		index:    make(map[string]int32, 4*len(values)),
		alias:    make(map[int32]string, len(values)),
	}
	prefix := enumValuePrefix(fullName, values)
	for _, v := range values {
		if v.Name == "UNSPECIFIED" || strings.HasSuffix(v.Name, "_UNSPECIFIED") {
			continue
		}
		if v.Alias == "" {
			v.Alias = naming.PascalOf(strings.TrimPrefix(v.Name, prefix))
		}
		t.Values = append(t.Values, v)
	}
	short := func(name string) string {
		if s := strings.TrimPrefix(name, prefix); s != "" {
			return s
		}
		return name
	}
	put := func(m map[string]int32, k string, n int32) {
		if _, taken := m[k]; !taken && k != "" {
			m[k] = n
		}
	}
	cands := make([]suggest.Candidate, 0, len(t.Values))
	for _, v := range t.Values {
		put(t.exact, v.Alias, v.Number)
		put(t.index, suggest.Normalize(v.Alias), v.Number)
		if _, taken := t.alias[v.Number]; !taken {
			t.alias[v.Number] = v.Alias
			t.aliases = append(t.aliases, v.Alias)
		}
		also := append(slices.Clone(v.Synonyms), v.Name, short(v.Name))
		cands = append(cands, suggest.Candidate{Name: v.Alias, Also: also})
	}
	for _, v := range t.Values {
		for _, s := range v.Synonyms {
			put(t.exact, s, v.Number)
		}
	}
	for _, v := range t.Values {
		for _, s := range v.Synonyms {
			put(t.index, suggest.Normalize(s), v.Number)
		}
	}
	for _, v := range t.Values {
		// The proto constant name, exactly as written, means its own value
		// without the normalizing lookup.
		put(t.exact, v.Name, v.Number)
		put(t.index, suggest.Normalize(v.Name), v.Number)
		put(t.index, suggest.Normalize(short(v.Name)), v.Number)
	}
	t.names = suggest.NewIndex(cands)
	return t
}

// Lookup returns the number an agent-facing name stands for.
func (t *EnumTable) Lookup(s string) (int32, bool) {
	if t == nil {
		return 0, false
	}
	if n, ok := t.exact[s]; ok {
		return n, true
	}
	if len(s) > suggest.MaxInputLen {
		return 0, false
	}
	n, ok := t.index[suggest.Normalize(s)]
	return n, ok
}

// Alias returns the agent-facing name of value n; "" when n is not offered.
func (t *EnumTable) Alias(n int32) string {
	if t == nil {
		return ""
	}
	return t.alias[n]
}

// Aliases returns the offered names in declaration order.
func (t *EnumTable) Aliases() []string {
	if t == nil {
		return nil
	}
	return slices.Clone(t.aliases)
}

// closest returns the aliases s most plausibly meant, best first.
func (t *EnumTable) closest(s string) []string {
	if t.names == nil {
		return nil
	}
	return t.names.Closest(s, MaxDidYouMean)
}

// suggestions lists the offered values for an error about this enum.
func (t *EnumTable) suggestions() *Suggestions {
	s := &Suggestions{ValidValues: BoundList(t.aliases), Hint: t.Hint}
	if len(t.aliases) > MaxListed {
		note := fmt.Sprintf("showing %d of %d values", MaxListed, len(t.aliases))
		if s.Hint != "" {
			s.Hint += " (" + note + ")"
		} else {
			s.Hint = note
		}
	}
	return s
}

// enumValuePrefix returns the prefix the value names share: the enum's own
// name in UPPER_SNAKE_CASE plus "_" (the protobuf style), else the longest
// common prefix ending in "_" of two or more values.
func enumValuePrefix(fullName string, values []EnumValue) string {
	if len(values) == 0 {
		return ""
	}
	short := fullName[strings.LastIndexByte(fullName, '.')+1:]
	if p := naming.EnumPrefix(short); p != "_" && allHavePrefix(values, p) {
		return p
	}
	if len(values) < 2 {
		return ""
	}
	p := values[0].Name
	for _, v := range values[1:] {
		i := 0
		for i < len(p) && i < len(v.Name) && p[i] == v.Name[i] {
			i++
		}
		p = p[:i]
	}
	if i := strings.LastIndexByte(p, '_'); i >= 0 {
		p = p[:i+1]
		if allHavePrefix(values, p) {
			return p
		}
	}
	return ""
}

// allHavePrefix reports whether every name starts with p and keeps
// something after it.
func allHavePrefix(values []EnumValue, p string) bool {
	for _, v := range values {
		if !strings.HasPrefix(v.Name, p) || len(v.Name) == len(p) {
			return false
		}
	}
	return true
}
