package gen

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// limitWords states, in words, the buf.validate rules of an agent field that
// the portable schema subset cannot carry: ranges of 64-bit integers (sent as
// decimal strings, where minimum and maximum do not apply and doubles lose
// precision past 2^53), Duration and Timestamp ranges (strings), and the
// paths a FieldMask may name. The request check refuses a value outside
// them, so the agent reads them before it sends one.
func limitWords(f *fieldModel) []string {
	r := fieldValidate(f.proto)
	if r == nil || f.proto.Desc.IsList() || f.proto.Desc.IsMap() {
		return nil
	}
	switch t := r.GetType().(type) {
	case *validate.FieldRules_Int64:
		return intRangeWords(t.Int64.ProtoReflect())
	case *validate.FieldRules_Uint64:
		return intRangeWords(t.Uint64.ProtoReflect())
	case *validate.FieldRules_Sint64:
		return intRangeWords(t.Sint64.ProtoReflect())
	case *validate.FieldRules_Fixed64:
		return intRangeWords(t.Fixed64.ProtoReflect())
	case *validate.FieldRules_Sfixed64:
		return intRangeWords(t.Sfixed64.ProtoReflect())
	case *validate.FieldRules_Duration:
		return durationWords(t.Duration)
	case *validate.FieldRules_Timestamp:
		return timestampWords(t.Timestamp)
	case *validate.FieldRules_FieldMask:
		return fieldMaskWords(t.FieldMask)
	}
	return nil
}

// boundWords renders gt, gte, lt and lte as one sentence, each value as
// text(v); an upper bound below the lower one is an exclusive range.
func boundWords(msg protoreflect.Message, text func(protoreflect.Value) string) string {
	fields := msg.Descriptor().Fields()
	var low, up string
	for _, b := range []struct{ name, words string }{{"gt", "greater than %s"}, {"gte", "at least %s"}} {
		if fd := fields.ByName(protoreflect.Name(b.name)); fd != nil && msg.Has(fd) {
			low = fmt.Sprintf(b.words, text(msg.Get(fd)))
		}
	}
	for _, b := range []struct{ name, words string }{{"lt", "less than %s"}, {"lte", "at most %s"}} {
		if fd := fields.ByName(protoreflect.Name(b.name)); fd != nil && msg.Has(fd) {
			up = fmt.Sprintf(b.words, text(msg.Get(fd)))
		}
	}
	switch {
	case low != "" && up != "":
		return "Must be " + low + " and " + up + "."
	case low != "":
		return "Must be " + low + "."
	case up != "":
		return "Must be " + up + "."
	}
	return ""
}

func intRangeWords(msg protoreflect.Message) []string {
	text := func(v protoreflect.Value) string { return v.String() }
	if w := boundWords(msg, text); w != "" {
		return []string{w}
	}
	return nil
}

func durationWords(d *validate.DurationRules) []string {
	text := func(v protoreflect.Value) string {
		return durationText(v.Message().Interface().(*durationpb.Duration))
	}
	var words []string
	if w := boundWords(d.ProtoReflect(), text); w != "" {
		words = append(words, w)
	}
	if d.HasConst() {
		words = append(words, "Must be "+durationText(d.GetConst())+".")
	}
	if in := d.GetIn(); len(in) > 0 {
		words = append(words, "Must be one of "+joinDurations(in)+".")
	}
	if out := d.GetNotIn(); len(out) > 0 {
		words = append(words, "Must not be any of "+joinDurations(out)+".")
	}
	return words
}

// durationText is a Duration in its JSON form ("3600s", "1.5s").
func durationText(d *durationpb.Duration) string {
	return strconv.FormatFloat(d.AsDuration().Seconds(), 'f', -1, 64) + "s"
}

func joinDurations(ds []*durationpb.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = durationText(d)
	}
	return strings.Join(parts, ", ")
}

func timestampWords(ts *validate.TimestampRules) []string {
	text := func(v protoreflect.Value) string {
		return v.Message().Interface().(*timestamppb.Timestamp).AsTime().UTC().Format(time.RFC3339Nano)
	}
	var words []string
	if w := boundWords(ts.ProtoReflect(), text); w != "" {
		words = append(words, strings.NewReplacer("greater than", "after", "at least", "at or after", "less than", "before", "at most", "at or before").Replace(w))
	}
	switch {
	case ts.GetGtNow():
		words = append(words, "Must be in the future.")
	case ts.GetLtNow():
		words = append(words, "Must be in the past.")
	}
	if ts.HasWithin() {
		words = append(words, "Must be within "+durationText(ts.GetWithin())+" of now.")
	}
	if ts.HasConst() {
		words = append(words, "Must be "+text(protoreflect.ValueOfMessage(ts.GetConst().ProtoReflect()))+".")
	}
	return words
}

func fieldMaskWords(fm *validate.FieldMaskRules) []string {
	var words []string
	if fm.HasConst() {
		words = append(words, "Must be exactly "+strings.Join(fm.GetConst().GetPaths(), ",")+".")
	}
	if in := fm.GetIn(); len(in) > 0 {
		words = append(words, "Paths must be among "+strings.Join(in, ", ")+".")
	}
	if out := fm.GetNotIn(); len(out) > 0 {
		words = append(words, "Paths must not include "+strings.Join(out, ", ")+".")
	}
	return words
}

// itemCountWords states the item counts of an array sent as JSON text.
func itemCountWords(min, max *uint32) string {
	switch {
	case min != nil && max != nil && *min == *max:
		return "The array holds exactly " + counted(uint64(*min), "item") + "."
	case min != nil && max != nil:
		return fmt.Sprintf("The array holds %d to %s.", *min, counted(uint64(*max), "item"))
	case min != nil:
		return "The array holds at least " + counted(uint64(*min), "item") + "."
	default:
		return "The array holds at most " + counted(uint64(*max), "item") + "."
	}
}

// counted is n and the noun, in the plural unless n is 1: "1 byte", "3 items".
func counted(n uint64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
