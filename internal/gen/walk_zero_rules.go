package gen

import (
	"fmt"
	"regexp"
	"slices"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A field without presence (a proto3 scalar that is not optional, a
// repeated field, a map) that the agent leaves out reaches the request check
// at its zero value, and protovalidate applies the field's rules to it. A
// rule that fails on the zero value (min_items: 1, gt: 0, min_len: 1, a
// pattern "" does not match, an e-mail format, a CEL rule such as
// this.size() > 0) therefore refuses an omitted field: the schema must say
// so, or the agent that sends the schema's required fields is refused and
// needs a second round.

// zeroValueRequired makes fm required when one of its buf.validate rules
// fails on the zero value, and reports a field whose required_when keeps it
// optional, with the fix.
func (b *builder) zeroValueRequired(fm *fieldModel) bool {
	pf := fm.proto
	r := fieldValidate(pf)
	if r == nil || fm.required || pf.Desc.HasPresence() || b.hasDefault(fm) {
		return true
	}
	if ig := r.GetIgnore(); ig == validate.Ignore_IGNORE_ALWAYS || ig == validate.Ignore_IGNORE_IF_ZERO_VALUE {
		return true
	}
	if !r.HasIgnore() && inMessageOneof(pf) {
		return true // a (buf.validate.message).oneof member is IGNORE_IF_ZERO_VALUE
	}
	rule := zeroFails(r, pf.Desc)
	if rule == "" {
		rule = celZeroFails(r, pf.Desc)
	}
	if rule == "" {
		return true
	}
	if b.ann(fm).agent.GetRequiredWhen() != nil {
		fix := "add (buf.validate.field).ignore = IGNORE_IF_ZERO_VALUE"
		if !pf.Desc.IsList() && !pf.Desc.IsMap() {
			fix += " or make the field optional"
		}
		b.probs.fieldf(pf, "(buf.validate.field).%s fails on the zero value, so the request check refuses the field whenever it is omitted, which required_when allows; %s", rule, fix)
		return false
	}
	fm.required = true
	return true
}

// hasDefault reports whether an omitted fm gets a value other than zero.
func (b *builder) hasDefault(fm *fieldModel) bool {
	return b.ann(fm).agent.GetDefault() != "" || b.ann(fm).alias.GetDefault() != ""
}

// zeroFails names the first rule of r the zero value of fd fails ("" for
// none). The field's CEL rules are celZeroFails's (walk_zero_cel.go).
func zeroFails(r *validate.FieldRules, fd protoreflect.FieldDescriptor) string {
	switch {
	case fd.IsList():
		if rr := r.GetRepeated(); rr.GetMinItems() > 0 {
			return fmt.Sprintf("repeated.min_items %d", rr.GetMinItems())
		}
		return ""
	case fd.IsMap():
		if mr := r.GetMap(); mr.GetMinPairs() > 0 {
			return fmt.Sprintf("map.min_pairs %d", mr.GetMinPairs())
		}
		return ""
	}
	rm := r.ProtoReflect()
	which := rm.WhichOneof(rm.Descriptor().Oneofs().ByName("type"))
	if which == nil {
		return ""
	}
	kind := string(which.Name())
	switch {
	case kind == "string":
		return stringZeroFails(r.GetString())
	case kind == "bytes":
		return bytesZeroFails(r.GetBytes())
	case kind == "bool":
		if r.GetBool().GetConst() {
			return "bool.const true"
		}
	case kind == "enum":
		e := r.GetEnum()
		if e.HasConst() && e.GetConst() != 0 || len(e.GetIn()) > 0 && !slices.Contains(e.GetIn(), 0) || slices.Contains(e.GetNotIn(), 0) {
			return "enum (in, not_in or const)"
		}
	case isNumberRules(kind):
		return numberZeroFails(rm.Get(which).Message(), kind)
	}
	return ""
}

// stringFormats are the string rules that "" fails.
var stringFormats = []string{
	"email", "hostname", "ip", "ipv4", "ipv6", "uri", "address", "uuid", "tuuid", "ulid",
	"ip_with_prefixlen", "ipv4_with_prefixlen", "ipv6_with_prefixlen", "ip_prefix", "ipv4_prefix", "ipv6_prefix",
	"host_and_port", "protobuf_fqn", "protobuf_dot_fqn",
}

func stringZeroFails(s *validate.StringRules) string {
	switch {
	case s.GetMinLen() > 0:
		return fmt.Sprintf("string.min_len %d", s.GetMinLen())
	case s.GetLen() > 0:
		return fmt.Sprintf("string.len %d", s.GetLen())
	case s.GetMinBytes() > 0:
		return fmt.Sprintf("string.min_bytes %d", s.GetMinBytes())
	case s.GetLenBytes() > 0:
		return fmt.Sprintf("string.len_bytes %d", s.GetLenBytes())
	case s.HasConst() && s.GetConst() != "":
		return "string.const"
	case len(s.GetIn()) > 0 && !slices.Contains(s.GetIn(), ""):
		return "string.in"
	case slices.Contains(s.GetNotIn(), ""):
		return "string.not_in"
	case s.HasPattern() && !patternMatchesEmpty(s.GetPattern()):
		return fmt.Sprintf("string.pattern %q", s.GetPattern())
	case s.GetPrefix() != "":
		return "string.prefix"
	case s.GetSuffix() != "":
		return "string.suffix"
	case s.GetContains() != "":
		return "string.contains"
	}
	m := s.ProtoReflect()
	for _, name := range stringFormats {
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd != nil && m.Has(fd) && m.Get(fd).Bool() {
			return "string." + name
		}
	}
	return ""
}

func bytesZeroFails(s *validate.BytesRules) string {
	switch {
	case s.GetMinLen() > 0:
		return fmt.Sprintf("bytes.min_len %d", s.GetMinLen())
	case s.GetLen() > 0:
		return fmt.Sprintf("bytes.len %d", s.GetLen())
	case len(s.GetConst()) > 0:
		return "bytes.const"
	case len(s.GetIn()) > 0 && !slices.ContainsFunc(s.GetIn(), func(b []byte) bool { return len(b) == 0 }):
		return "bytes.in"
	case s.HasPattern() && !patternMatchesEmpty(s.GetPattern()):
		return fmt.Sprintf("bytes.pattern %q", s.GetPattern())
	case len(s.GetPrefix()) > 0:
		return "bytes.prefix"
	case len(s.GetSuffix()) > 0:
		return "bytes.suffix"
	case len(s.GetContains()) > 0:
		return "bytes.contains"
	case s.GetIp() || s.GetIpv4() || s.GetIpv6():
		return "bytes.ip"
	}
	return ""
}

// patternMatchesEmpty reports whether "" matches an RE2 pattern (an invalid
// pattern is reported where the rule is mapped, not here).
func patternMatchesEmpty(p string) bool {
	re, err := regexp.Compile(p)
	return err != nil || re.MatchString("")
}

// numberZeroFails applies the range, const, in and not_in rules of a
// numeric rules message to 0. A lower bound above the upper bound is
// protovalidate's exclusive range (outside [upper, lower]).
func numberZeroFails(msg protoreflect.Message, kind string) string {
	fields := msg.Descriptor().Fields()
	get := func(name string) (float64, bool) {
		fd := fields.ByName(protoreflect.Name(name))
		if fd == nil || !msg.Has(fd) {
			return 0, false
		}
		if fd.IsList() {
			return 0, true
		}
		return numberOf(msg.Get(fd)), true
	}
	has := func(name string, x float64) bool {
		fd := fields.ByName(protoreflect.Name(name))
		if fd == nil || !msg.Has(fd) {
			return false
		}
		l := msg.Get(fd).List()
		for i := 0; i < l.Len(); i++ {
			if numberOf(l.Get(i)) == x {
				return true
			}
		}
		return false
	}
	if c, ok := get("const"); ok && c != 0 {
		return kind + ".const"
	}
	if _, ok := get("in"); ok && !has("in", 0) {
		return kind + ".in"
	}
	if has("not_in", 0) {
		return kind + ".not_in"
	}
	lowOK, upOK := true, true
	low, hasLow, up, hasUp := 0.0, false, 0.0, false
	if x, ok := get("gt"); ok {
		low, hasLow, lowOK = x, true, 0 > x
	} else if x, ok := get("gte"); ok {
		low, hasLow, lowOK = x, true, 0 >= x
	}
	if x, ok := get("lt"); ok {
		up, hasUp, upOK = x, true, 0 < x
	} else if x, ok := get("lte"); ok {
		up, hasUp, upOK = x, true, 0 <= x
	}
	ok := lowOK && upOK
	if hasLow && hasUp && up < low {
		ok = lowOK || upOK
	}
	if !ok {
		return kind + " range"
	}
	return ""
}

// inMessageOneof reports whether f is named by a (buf.validate.message).oneof
// rule of its message, which makes it IGNORE_IF_ZERO_VALUE unless it sets
// ignore itself.
func inMessageOneof(f *protogen.Field) bool {
	if f.Parent == nil {
		return false
	}
	for _, o := range ext[*validate.MessageRules](f.Parent.Desc.Options(), validate.E_Message).GetOneof() {
		if slices.Contains(o.GetFields(), string(f.Desc.Name())) {
			return true
		}
	}
	return false
}
