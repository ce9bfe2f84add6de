package impl

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// maxCandidates bounds the candidates one reference error lists.
const maxCandidates = 5

// Referent is one entity an agent's reference may name.
type Referent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// Reference is a reference resolver's answer for the text an agent sent in
// a (mcpwrite.v1.field).agent.reference field: an id or a human name.
type Reference struct {
	// Matches are the entities the text names exactly: the one whose id it
	// is, or those whose name it is. One resolves the reference; several
	// answer NEEDS_DISAMBIGUATION listing them.
	Matches []Referent
	// Known are the entities to suggest when nothing matches (for example
	// the model's elements); the runtime offers those with the closest
	// names. Optional.
	Known []Referent
}

// UserReference converts a reference resolver's answer in the user-facing
// type (runtime.Reference) to this package's; the package that defines it
// sets it when it is loaded.
var UserReference func(answer any) (Reference, bool)

// ResolveReference turns a reference resolver's answer (a
// runtime.Reference, or a Reference of this package) into the id the
// request carries, or the agent-facing error: NEEDS_DISAMBIGUATION with the
// matches as candidates, or NOT_FOUND with the known entities whose names
// are closest to text. A resolver error is reported as ResolverError does;
// an answer of any other type is a server bug, answered INTERNAL. For use
// by generated code.
func (c *Call) ResolveReference(field, kind, text string, answer any, err error) (string, error) {
	field = c.path(field)
	if err != nil {
		return "", c.ResolverError(field, err)
	}
	ref, ok := answer.(Reference)
	if !ok && UserReference != nil {
		ref, ok = UserReference(answer)
	}
	if !ok {
		return "", c.ResolverError(field, fmt.Errorf("the resolver answered a %T, not a runtime.Reference", answer))
	}
	switch len(ref.Matches) {
	case 1:
		return ref.Matches[0].ID, nil
	case 0:
		return "", notFoundReference(field, kind, text, ref.Known)
	}
	cands := ref.Matches
	if len(cands) > maxCandidates {
		cands = cands[:maxCandidates]
	}
	ids := make([]string, len(cands))
	for i, m := range cands {
		ids[i] = m.ID
	}
	return "", &ErrorEntry{
		Code:    CodeNeedsDisambiguation,
		Field:   field,
		Message: fmt.Sprintf("%s names %d %ss; send the id of the one you mean", Excerpt(text), len(ref.Matches), kind),
		Suggestions: &Suggestions{
			ValidValues: ids,
			Hint:        "ask the user which " + kind + " they mean if the candidates do not tell",
			Extra:       map[string]any{"candidates": cands},
		},
	}
}

// notFoundReference is NOT_FOUND with the known entities named closest to text.
func notFoundReference(field, kind, text string, known []Referent) *ErrorEntry {
	names := make([]string, 0, len(known))
	byName := map[string][]Referent{}
	for _, k := range known {
		if _, seen := byName[k.Name]; !seen {
			names = append(names, k.Name)
		}
		byName[k.Name] = append(byName[k.Name], k)
	}
	var similar []Referent
	dym := suggest.Closest(text, names, MaxDidYouMean)
	for _, n := range dym {
		for _, k := range byName[n] {
			if len(similar) < maxCandidates {
				similar = append(similar, k)
			}
		}
	}
	e := &ErrorEntry{
		Code:    CodeNotFound,
		Field:   field,
		Message: fmt.Sprintf("no %s has the id or name %s", kind, Excerpt(text)),
	}
	if len(similar) > 0 {
		e.Suggestions = &Suggestions{
			DidYouMean: dym,
			Hint:       "send the id or the exact name of one of the candidates",
			Extra:      map[string]any{"candidates": similar},
		}
	}
	return e
}

// ResolverNotImplemented is the error of a contract resolver method a
// handler left to the generated Unimplemented<Service>Resolvers: the
// handler implements typed resolvers but not method's typed form for in's
// request type. It is a server bug, answered INTERNAL and logged. For use
// by generated code.
func ResolverNotImplemented(method string, in proto.Message) error {
	name := "a nil request"
	if in != nil {
		name = string(in.ProtoReflect().Descriptor().FullName())
	}
	return status.Errorf(codes.Unimplemented, "%s is not implemented for %s: implement its typed form %sFor<Request>", method, name, method)
}
