package domain

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// elementExists answers a create whose id the tenant already uses: a create
// never overwrites. Only the tenant's own ids are checked, so the answer
// says nothing about other tenants.
func elementExists(id string) error {
	return status.Errorf(codes.AlreadyExists, "element id %s already exists", id)
}

// duplicateName answers a create or rename to a name the model already has.
func duplicateName(name string, e *archimatev1.Element) error {
	return &runtime.ErrorEntry{
		Code:    "DUPLICATE_NAME",
		Message: fmt.Sprintf("Element '%s' already exists in this model", name),
		Field:   "name",
		Suggestions: &runtime.Suggestions{
			Hint: "Use updateElement to modify the existing element, or choose a different name",
			Extra: map[string]any{
				"existing_element": map[string]any{"id": e.GetId(), "type": aliasOf(e.GetType())},
				"alternatives":     []string{name + "2", name + "V2", "New" + name},
			},
		},
	}
}

// attached returns the ids of the relationships touching element id, sorted.
func (sp *space) attached(id string) []string {
	var out []string
	for rid, rel := range sp.relationships {
		if rel.GetSourceId() == id || rel.GetTargetId() == id {
			out = append(out, rid)
		}
	}
	sort.Strings(out)
	return out
}

// byName is the model's element with this name (case-insensitive), or nil.
func (sp *space) byName(model, name string) *archimatev1.Element {
	id, ok := sp.names[keyOf(model, name)]
	if !ok {
		return nil
	}
	return sp.elements[id]
}

// idLikeness is the lowest similarity score at which an element's id is
// offered for what the agent sent: a mistyped, truncated or re-cased id
// scores 0.75 and more, while ids that merely share the creation time
// (UUIDv7 prefixes) score about 0.4-0.6 and would offer every element made
// that second.
const idLikeness = 0.75

// notFound answers ELEMENT_NOT_FOUND with the tenant's elements whose name
// or id is most like what the agent sent (runtime/suggest's scoring: typos,
// abbreviations, case and separators), best first, at most three. Agents
// often send a name where an id belongs, or mistype an id; nothing like
// what was sent offers nothing rather than unrelated elements. Only the
// tenant's own elements are compared, so the answer depends on nothing
// another tenant has.
func (sp *space) notFound(field, sent string) error {
	byName := map[string][]string{} // name -> ids
	var names []suggest.Candidate
	var ids []suggest.Candidate
	for eid, e := range sp.elements {
		if _, seen := byName[e.GetName()]; !seen {
			names = append(names, suggest.Candidate{Name: e.GetName()})
		}
		byName[e.GetName()] = append(byName[e.GetName()], eid)
		ids = append(ids, suggest.Candidate{Name: eid})
	}
	// Sorted vocabularies keep equal scores in a stable order.
	sort.Slice(names, func(i, j int) bool { return names[i].Name < names[j].Name })
	sort.Slice(ids, func(i, j int) bool { return ids[i].Name < ids[j].Name })
	score := map[string]float64{} // element id -> best score
	note := func(eid string, sc float64) {
		if sc > score[eid] {
			score[eid] = sc
		}
	}
	for _, m := range suggest.NewIndex(names).Matches(sent, len(names)) {
		for _, eid := range byName[m.Name] {
			note(eid, m.Score)
		}
	}
	for _, m := range suggest.NewIndex(ids).Matches(sent, len(ids)) {
		if m.Score >= idLikeness {
			note(m.Name, m.Score)
		}
	}
	picked := make([]string, 0, len(score))
	for eid := range score {
		picked = append(picked, eid)
	}
	sort.Slice(picked, func(i, j int) bool {
		if score[picked[i]] != score[picked[j]] {
			return score[picked[i]] > score[picked[j]]
		}
		return picked[i] < picked[j]
	})
	if len(picked) > 3 {
		picked = picked[:3]
	}
	s := &runtime.Suggestions{}
	switch exact := byName[sent]; {
	case len(exact) == 1:
		s.Hint = fmt.Sprintf("%q is the name of element %s; send its id", sent, exact[0])
	case len(picked) > 0:
		s.Hint = "Use an id returned by createElement; these elements have a name or id close to " + strconv.Quote(clip(sent))
	default:
		s.Hint = "Use an id returned by createElement; no element in your model has a name or id close to " + strconv.Quote(clip(sent))
	}
	if len(picked) > 0 {
		similar := make([]map[string]any, 0, len(picked))
		for _, eid := range picked {
			e := sp.elements[eid]
			similar = append(similar, map[string]any{"id": e.GetId(), "name": e.GetName(), "type": aliasOf(e.GetType())})
		}
		s.Extra = map[string]any{"similar_elements": similar}
	}
	return &runtime.ErrorEntry{Code: "ELEMENT_NOT_FOUND", Message: fmt.Sprintf("Element '%s' not found", clip(sent)), Field: field, Suggestions: s}
}

// checkNew refuses the whole template when any name is taken or repeated.
func (sp *space) checkNew(model string, names []string) error {
	seen := map[nameKey]bool{}
	for _, n := range names {
		k := keyOf(model, n)
		if e := sp.byName(model, n); e != nil || seen[k] {
			return status.Errorf(codes.AlreadyExists, "Element '%s' already exists in this model; nothing was created", n)
		}
		seen[k] = true
	}
	return nil
}

// checkFreeIDs refuses the whole template when the tenant already uses one
// of the element ids it would create or their relationship ids (each
// element's id + "-rel"): a template never overwrites.
func (sp *space) checkFreeIDs(ids []string) error {
	for _, id := range ids {
		if _, dup := sp.elements[id]; dup {
			return status.Errorf(codes.AlreadyExists, "element id %s already exists; nothing was created", id)
		}
		if _, dup := sp.relationships[id+"-rel"]; dup {
			return status.Errorf(codes.AlreadyExists, "relationship id %s already exists; nothing was created", id+"-rel")
		}
	}
	return nil
}

// put stores a new element and indexes its name; callers checked that
// neither the id nor the name is taken. It answers a copy of e, or e
// itself in a working copy's space (shared), as link does.
func (sp *space) put(e *archimatev1.Element) *archimatev1.Element {
	sp.elements[e.GetId()] = e
	sp.names[keyOf(e.GetModelId(), e.GetName())] = e.GetId()
	sp.born[e.GetId()] = births.Add(1)
	if sp.shared {
		return e
	}
	return proto.Clone(e).(*archimatev1.Element)
}

func (sp *space) link(id string, t archimatev1.RelationshipType, src, dst string) *archimatev1.Relationship {
	rel := &archimatev1.Relationship{Id: id, Type: t, SourceId: src, TargetId: dst}
	sp.relationships[id] = rel
	if sp.shared {
		return rel
	}
	return proto.Clone(rel).(*archimatev1.Relationship)
}

// named returns the model's elements named ref ignoring case (exact) and
// those whose names differ from it only in case and separators (alike),
// each sorted by id.
func (sp *space) named(model, ref string) (exact, alike []*archimatev1.Element) {
	norm := suggest.Normalize(ref)
	for _, e := range sp.elements {
		if e.GetModelId() != model {
			continue
		}
		switch {
		case strings.EqualFold(e.GetName(), ref):
			exact = append(exact, e)
		case norm != "" && suggest.Normalize(e.GetName()) == norm:
			alike = append(alike, e)
		}
	}
	byID := func(es []*archimatev1.Element) {
		sort.Slice(es, func(i, j int) bool { return es[i].GetId() < es[j].GetId() })
	}
	byID(exact)
	byID(alike)
	return exact, alike
}

// lookup is the one element ref names, as ResolveElementRef resolves it
// (id, else exact name ignoring case, else name up to case and
// separators), or nil when it names none or several.
func (sp *space) lookup(model, ref string) *archimatev1.Element {
	if ref == "" {
		return nil
	}
	if e, ok := sp.elements[ref]; ok {
		return e
	}
	exact, alike := sp.named(model, ref)
	matches := exact
	if len(matches) == 0 {
		matches = alike
	}
	if len(matches) != 1 {
		return nil
	}
	return matches[0]
}

// orList reads "A", "A or B", "A, B or C".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// clip shortens what the agent sent for an answer that quotes it.
func clip(s string) string {
	const max = 64
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}
