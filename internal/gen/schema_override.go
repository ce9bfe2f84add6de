package gen

// The rules an overridable server field's value must meet. The server fills
// the field when the agent leaves it out; when the agent sends it, the
// request check (protovalidate, after enrichment) applies the field's
// buf.validate rules to the agent's value and blames the agent. The schema
// states the rules of such a field as an agent field's: string in and const
// as the enum, not_in in words, lengths and pattern as keywords; numeric
// bounds as minimum, maximum and their exclusive forms, numeric const, in
// and not_in in words (the walk maps them as an agent field's, into
// fieldModel.override; pvKeywords and pvWords state them); 64-bit ranges,
// Duration and Timestamp rules in words (limitWords).

import (
	"slices"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/invopop/jsonschema"
)

// overrideSchema adds the rules of the overridable field f to its schema s
// (v is the schema of one value: a list's items).
func overrideSchema(f *fieldModel, s, v *jsonschema.Schema) {
	if !f.overridable || f.proto.Desc.IsMap() {
		return
	}
	r, _ := oneValueRules(f)
	if r == nil {
		return
	}
	var words []string
	if str := r.GetString(); str != nil {
		words = overrideStringRules(str, v)
	}
	if e := r.GetEnum(); e != nil && f.enumTable != nil {
		overrideEnumRules(e, f.enumTable, v)
	}
	if o := f.override; o != nil {
		pvKeywords(o, v)
		words = append(words, pvWords(o)...)
	}
	words = append(words, limitWords(f)...)
	if len(words) > 0 {
		s.Description = appendSentence(s.Description, strings.Join(words, " "))
	}
}

// overrideStringRules puts the string rules on v and returns the words of
// the ones without a portable keyword.
func overrideStringRules(str *validate.StringRules, v *jsonschema.Schema) []string {
	switch {
	case str.HasConst():
		v.Enum = []any{str.GetConst()}
	case len(str.GetIn()) > 0:
		v.Enum = nil
		for _, x := range str.GetIn() {
			v.Enum = append(v.Enum, x)
		}
	}
	if str.HasLen() {
		v.MinLength, v.MaxLength = u64(str.GetLen()), u64(str.GetLen())
	}
	if str.HasMinLen() {
		v.MinLength = u64(str.GetMinLen())
	}
	if str.HasMaxLen() {
		v.MaxLength = u64(str.GetMaxLen())
	}
	if str.HasPattern() {
		v.Pattern = str.GetPattern()
	}
	if out := str.GetNotIn(); len(out) > 0 {
		return []string{"Must not be any of " + quoteAll(out) + "."}
	}
	return nil
}

// overrideEnumRules narrows v's aliases to enum in, not_in and const.
func overrideEnumRules(e *validate.EnumRules, t *enumTable, v *jsonschema.Schema) {
	in, notIn := e.GetIn(), e.GetNotIn()
	if e.HasConst() {
		in = []int32{e.GetConst()}
	}
	if len(in) == 0 && len(notIn) == 0 {
		return
	}
	var allowed []any
	for _, av := range t.values {
		n := int32(av.value.Desc.Number())
		if (len(in) == 0 || slices.Contains(in, n)) && !slices.Contains(notIn, n) {
			allowed = append(allowed, av.alias)
		}
	}
	if len(allowed) > 0 {
		v.Enum = allowed
	}
}
