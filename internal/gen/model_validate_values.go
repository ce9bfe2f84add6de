package gen

// The buf.validate rules as values: the rules the model keeps (pvRules,
// keyRules, affix, ruleDoc), the readers of a field's and a oneof's rules,
// and the renderers of rule values and kinds.

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// pvRules are the buf.validate rules of an agent-supplied field that have
// no mcpwrite counterpart; the ones that do (lengths, pattern, inclusive
// bounds, item counts, required) are merged into the field's AgentSupplied.
type pvRules struct {
	exclusiveMin, exclusiveMax *float64
	// minimum, maximum: an overridable field's inclusive bounds (an agent
	// field's are merged into its AgentSupplied).
	minimum, maximum *float64
	strIn, strNotIn  []string
	numIn, numNotIn  []float64
	// numInText, numNotInText: their values as written (numberText)
	numInText, numNotInText []string
	// numConst: numIn is a const rule's one value (stated as const)
	numConst bool
	// f32: the numbers are a float rule's, float32 values (stated as
	// written, floatText)
	f32    bool
	format string // uuid, email, uri, hostname, ip, ipv4, ipv6
	// keys are the string rules of a map's keys.
	keys keyRules
	// affixes are string.prefix, suffix, contains and not_contains, in
	// that order: checked by the decoder, stated in the description.
	affixes []affix
	unique  bool
	// minCount, maxCount: map pairs, or the items of an enum_alias list
	minCount, maxCount *uint64
	// enumAllowed are the enum numbers the field accepts when enum.in or
	// not_in narrow the alias table; nil when every offered alias is fine.
	enumAllowed []int32
	// docs lists every rule for getWriteSchema, the ones only the
	// protovalidate step checks (CEL and the rest) included.
	docs []ruleDoc
}

// keyRules are the rules of string map keys the decoder checks.
type keyRules struct {
	minLen, maxLen *uint64
	pattern        string
}

// affix is one string.prefix, suffix, contains or not_contains rule.
type affix struct {
	rule, value string
}

// affixCheck names the decoder check and the description words of each
// affix rule.
var affixCheck = map[string][2]string{
	"prefix":       {"HasPrefix", "Must start with %q."},
	"suffix":       {"HasSuffix", "Must end with %q."},
	"contains":     {"Contains", "Must contain %q."},
	"not_contains": {"NotContains", "Must not contain %q."},
}

// ruleDoc is one buf.validate rule as getWriteSchema lists it.
type ruleDoc = schemadoc.Rule

// formatKeywords are the formats that JSON Schema draft-07 and 2020-12 both
// name; "ip" (either family) is described in words.
var formatKeywords = map[string]bool{"uuid": true, "email": true, "uri": true, "hostname": true, "ipv4": true, "ipv6": true}

func isNumberRules(kind string) bool {
	switch kind {
	case "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64", "float", "double":
		return true
	}
	return false
}

// ruleValue renders a rule's value as written in the proto.
func ruleValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if fd.IsList() {
		l := v.List()
		parts := make([]string, l.Len())
		for i := range parts {
			parts[i] = scalarText(fd, l.Get(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return scalarText(fd, v)
}

func scalarText(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return strconv.Quote(v.String())
	case protoreflect.MessageKind:
		return "{...}"
	}
	return v.String()
}

func numberOf(v protoreflect.Value) float64 {
	switch x := v.Interface().(type) {
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case uint32:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// floatText is x as the shortest decimal that reads back as x; for a
// float rule's value (f32), a float32, the float32's: 0.1 as written, not
// the float64 0.10000000149011612 it widens to.
func floatText(x float64, f32 bool) string {
	if f32 && float64(float32(x)) == x {
		return strconv.FormatFloat(x, 'g', -1, 32)
	}
	return formatFloat(x)
}

// numberText is v, a numeric rule's value, as written: an integer in
// decimal digits (1000000, not 1e+06; exact past 2^53, where a double is
// not), a float32 as floatText states it.
func numberText(v protoreflect.Value) string {
	switch x := v.Interface().(type) {
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float32:
		return floatText(float64(x), true)
	}
	return formatFloat(numberOf(v))
}

func int32List(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(int(x))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// formatWordsFor mirrors impl.FormatWords (runtime/internal/impl) for description text.
func formatWordsFor(format string) string {
	switch format {
	case "ip":
		return "an IPv4 or IPv6 address"
	}
	return fmt.Sprintf("a valid %s", format)
}

// validateImport is the file whose import switches the request check on.
const validateImport = "buf/validate/validate.proto"

func quoteEach(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// wrapperRules are the rule kinds of the wrapper well-known types.
var wrapperRules = map[protoreflect.FullName]string{
	"google.protobuf.DoubleValue": "double", "google.protobuf.FloatValue": "float",
	"google.protobuf.Int64Value": "int64", "google.protobuf.UInt64Value": "uint64",
	"google.protobuf.Int32Value": "int32", "google.protobuf.UInt32Value": "uint32",
	"google.protobuf.BoolValue": "bool", "google.protobuf.StringValue": "string",
	"google.protobuf.BytesValue": "bytes", "google.protobuf.Timestamp": "timestamp",
	"google.protobuf.Duration": "duration", "google.protobuf.Any": "any",
	"google.protobuf.FieldMask": "field_mask",
}

// ruleKindFor is the buf.validate rule kind (the FieldRules type oneof
// member) that fits field fd, or its items / map values for those
// prefixes; "" when no type rules fit (other messages).
func ruleKindFor(fd protoreflect.FieldDescriptor, prefix string) string {
	switch {
	case prefix == "map.values.":
		fd = fd.MapValue()
	case prefix == "" && fd.IsMap():
		return "map"
	case prefix == "" && fd.IsList():
		return "repeated"
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return wrapperRules[fd.Message().FullName()]
	case protoreflect.EnumKind:
		return "enum"
	}
	return fd.Kind().String()
}
