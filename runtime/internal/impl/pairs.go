package impl

import "fmt"

// Pair is one allowed (source, target) combination for a relationship type,
// by enum numbers.
type Pair struct {
	Type, Source, Target int32
}

// PairTable enforces a tool's pair_check: which relationship types may
// connect which (source, target) kinds. Generated code builds one per tool.
type PairTable struct {
	types, ends *EnumTable
	allowed     map[int32]map[[2]int32]bool
	order       []int32 // type numbers in declaration order, for suggestions
	hint        string
}

// NewPairTable indexes pairs. types names the relationship enum, ends the
// enum of sources and targets. A type with no declared pair is unconstrained.
func NewPairTable(types, ends *EnumTable, pairs []Pair, hint string) *PairTable {
	t := &PairTable{types: types, ends: ends, allowed: map[int32]map[[2]int32]bool{}, hint: hint}
	for _, p := range pairs {
		if t.allowed[p.Type] == nil {
			t.allowed[p.Type] = map[[2]int32]bool{}
			t.order = append(t.order, p.Type)
		}
		t.allowed[p.Type][[2]int32{p.Source, p.Target}] = true
	}
	return t
}

// Check returns nil when typ may connect src to dst, else INVALID_RELATIONSHIP
// on field with the relationship types that may connect them. Unknown ends
// (zero) are not checked: the domain decides.
func (t *PairTable) Check(field string, typ, src, dst int32) error {
	ok, constrained := t.allowed[typ]
	if !constrained || src == 0 || dst == 0 || ok[[2]int32{src, dst}] {
		return nil
	}
	valid := []string{}
	for _, other := range t.order {
		if t.allowed[other][[2]int32{src, dst}] {
			valid = append(valid, t.name(t.types, other))
		}
	}
	return &ErrorEntry{
		Code:    CodeInvalidRelationship,
		Field:   field,
		Message: fmt.Sprintf("Cannot create '%s' from %s to %s", t.name(t.types, typ), t.name(t.ends, src), t.name(t.ends, dst)),
		Suggestions: &Suggestions{
			Hint:  t.hint,
			Extra: map[string]any{"valid_relationships": valid},
		},
	}
}

func (t *PairTable) name(e *EnumTable, n int32) string {
	if a := e.Alias(n); a != "" {
		return a
	}
	return fmt.Sprint(n)
}
