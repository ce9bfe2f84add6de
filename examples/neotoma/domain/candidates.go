package domain

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
)

// AnalyzeSchemaCandidates counts, per entity type, the live entities that
// carry each raw fragment and how consistent its type is: a field carried
// by at least min_frequency entities whose confidence (its type
// consistency) reaches min_confidence is a candidate.
func (m *Memory) AnalyzeSchemaCandidates(ctx context.Context, req *neotomav1.AnalyzeSchemaCandidatesRequest) (*neotomav1.AnalyzeSchemaCandidatesResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := req.GetEntityType(); t != "" {
		if bad := m.checkType(who, t, "entity_type"); bad != nil {
			return nil, bad
		}
	}
	type stats struct {
		kinds   map[string]int
		formats map[string]map[string]int // by kind
		// samples are the distinct values by their canonical JSON.
		samples map[string]*structpb.Value
	}
	byType := map[string]map[string]*stats{}
	for _, e := range m.user(who).entities {
		if e.mergedInto != "" || (req.GetEntityType() != "" && e.typ != req.GetEntityType()) {
			continue
		}
		for k, v := range e.rawFragments {
			kind := jsonKind(v)
			if kind == "" {
				continue
			}
			if byType[e.typ] == nil {
				byType[e.typ] = map[string]*stats{}
			}
			st := byType[e.typ][k]
			if st == nil {
				st = &stats{kinds: map[string]int{}, formats: map[string]map[string]int{}, samples: map[string]*structpb.Value{}}
				byType[e.typ][k] = st
			}
			st.kinds[kind]++
			if st.formats[kind] == nil {
				st.formats[kind] = map[string]int{}
			}
			st.formats[kind][valueFormat(v)]++
			st.samples[string(canonicalJSON(v))] = v
		}
	}
	out := &neotomav1.AnalyzeSchemaCandidatesResponse{MinFrequency: req.GetMinFrequency(), MinConfidence: req.GetMinConfidence()}
	for _, typ := range sortedKeys(byType) {
		rec := &neotomav1.SchemaRecommendation{EntityType: typ, Source: "raw_fragments"}
		var sum float64
		for _, k := range sortedKeys(byType[typ]) {
			st := byType[typ][k]
			total, best, bestKind := 0, 0, ""
			for _, kind := range sortedKeys(st.kinds) {
				total += st.kinds[kind]
				if st.kinds[kind] > best {
					best, bestKind = st.kinds[kind], kind
				}
			}
			consistency := float64(best) / float64(total)
			if int32(total) < req.GetMinFrequency() || consistency < req.GetMinConfidence() {
				continue
			}
			// The first 10 distinct values in canonical JSON order, the
			// same whatever order the entities are visited in.
			var samples []*structpb.Value
			for _, c := range sortedKeys(st.samples)[:min(10, len(st.samples))] {
				samples = append(samples, st.samples[c])
			}
			common := 0
			for _, n := range st.formats[bestKind] {
				common = max(common, n)
			}
			rec.Fields = append(rec.Fields, &neotomav1.FieldCandidate{
				FieldName: k, FieldType: bestKind, Frequency: int32(total), Confidence: consistency, TypeConsistency: consistency, SampleValues: samples,
				NamingPatternMatch: fieldName.MatchString(k), FormatConsistency: float64(common) / float64(best),
			})
			sum += consistency
		}
		if len(rec.Fields) == 0 {
			continue
		}
		rec.ConfidenceScore = sum / float64(len(rec.Fields))
		rec.Reasoning = fmt.Sprintf("%d raw-fragment field(s) carried by at least %d %s entities with consistent types", len(rec.Fields), req.GetMinFrequency(), typ)
		out.Recommendations = append(out.Recommendations, rec)
		out.TotalFields += int32(len(rec.Fields))
	}
	out.TotalEntityTypes = int32(len(out.Recommendations))
	return out, nil
}

// valueFormat is the shape of a raw value: for strings and numbers its text
// with letters as a and digits as 9, each run collapsed to one ("PO-12" is
// a-9, 12.5 is 9.9); booleans, arrays and objects have one format each.
func valueFormat(v *structpb.Value) string {
	var text string
	switch x := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		text = x.StringValue
	case *structpb.Value_NumberValue:
		text = string(canonicalJSON(v))
	default:
		return jsonKind(v)
	}
	var b strings.Builder
	last := rune(-1)
	for _, r := range text {
		switch {
		case unicode.IsLetter(r):
			r = 'a'
		case unicode.IsDigit(r):
			r = '9'
		}
		if r != last || (r != 'a' && r != '9') {
			b.WriteRune(r)
		}
		last = r
	}
	return b.String()
}

// jsonKind is the schema field type a raw value would take ("" for null).
func jsonKind(v *structpb.Value) string {
	switch x := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		if isDate(x.StringValue) {
			return "date"
		}
		return "string"
	case *structpb.Value_NumberValue:
		return "number"
	case *structpb.Value_BoolValue:
		return "boolean"
	case *structpb.Value_ListValue:
		return "array"
	case *structpb.Value_StructValue:
		return "object"
	}
	return ""
}
