package gen

import (
	"fmt"
	"strconv"

	"github.com/invopop/jsonschema"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Recursive messages (a tree's children, a nested filter, google.api.HttpRule)
// share one model per message, so the decoder and the enrichment are one
// function per message that calls itself. Input schemas cannot refer to
// themselves in the portable subset (no $ref), so a schema spells out a
// bounded number of levels of a recursive message and takes deeper levels as
// a string holding JSON text of the same object. The decoder accepts either
// form at every level and reads JSON text within the depth and size limits
// of the arguments (mcpwriteimpl.Decoder.Subtree).

const (
	// defaultRecursionDepth is how many levels of a recursive message an
	// input schema spells out when no field says otherwise.
	defaultRecursionDepth = 3
	// maxRecursionDepth bounds (mcpwrite.v1.field).agent.recursion_depth:
	// every level multiplies the schema by the message's recursive fields.
	maxRecursionDepth = 8
)

// inProgress returns the model of name when it is being built (a cycle),
// nil otherwise.
func (b *builder) inProgress(name protoreflect.FullName) *messageModel {
	for _, mm := range b.stack {
		if mm.proto.Desc.FullName()+protoreflect.FullName(mm.variant) == name {
			return mm
		}
	}
	return nil
}

// recur marks every message of the cycle that closes at mm recursive and
// returns mm. A recursive message counts as agent-facing while it is built,
// so the field that closes the cycle is exposed like its siblings.
func (b *builder) recur(mm *messageModel) *messageModel {
	on := false
	for _, s := range b.stack {
		on = on || s == mm
		if on {
			s.recursive = true
		}
	}
	mm.agentFacing = true
	return mm
}

// pop ends the build of the innermost message. When the outermost one is
// done, the flags computed from models still in progress are completed.
func (b *builder) pop() {
	b.stack = b.stack[:len(b.stack)-1]
	if len(b.stack) == 0 {
		b.propagateFlags()
	}
}

// propagateFlags recomputes the transitive flags of every message until
// nothing changes: a message of a cycle read its members' flags before they
// were final. The flags only ever turn true, so this ends.
func (b *builder) propagateFlags() {
	for changed := true; changed; {
		changed = false
		for _, mm := range b.file.messages {
			for _, f := range mm.fields {
				c := f.child
				if c == nil {
					continue
				}
				set := func(flag *bool, v bool) {
					if v && !*flag {
						*flag, changed = true, true
					}
				}
				set(&mm.serverFilled, c.serverFilled)
				set(&mm.hasResolvers, c.hasResolvers)
				set(&mm.hasReferences, c.hasReferences)
				set(&mm.agentFacing, c.agentFacing && (f.mode == modeAgent || f.mode == modeEnumAlias))
			}
		}
	}
}

// checkRecursionDepth validates an agent field's recursion_depth once its
// message model is built.
func (b *builder) checkRecursionDepth(fm *fieldModel) bool {
	a := b.ann(fm).agent
	if a == nil || a.RecursionDepth == nil {
		return true
	}
	n := a.GetRecursionDepth()
	switch {
	case fm.child == nil:
		b.probs.fieldf(fm.proto, "recursion_depth applies to a field of a recursive message, not %s", kindName(fm.proto))
		return false
	case !fm.child.recursive:
		b.probs.fieldf(fm.proto, "recursion_depth applies to a field of a recursive message; %s does not contain itself, so its schema is complete without it: drop recursion_depth", fm.child.proto.Desc.FullName())
		return false
	case n < 1 || n > maxRecursionDepth:
		b.probs.fieldf(fm.proto, "recursion_depth %d is out of range: use 1 to %d (the schema spells out that many levels of %s)", n, maxRecursionDepth, fm.child.proto.Desc.FullName())
		return false
	}
	return true
}

// expansion tracks, while one input schema is written, how many levels of
// each recursive message are open on the path and the depth in force.
type expansion struct {
	open  map[*messageModel]int
	limit map[*messageModel]int
}

func newExpansion() *expansion {
	return &expansion{open: map[*messageModel]int{}, limit: map[*messageModel]int{}}
}

// enter opens one more level of m reached through f; it reports false
// (and opens nothing) when that level is past the depth in force, limit.
func (x *expansion) enter(f *fieldModel, m *messageModel) (leave func(), limit int, ok bool) {
	limit = x.limit[m]
	if limit == 0 {
		limit = defaultRecursionDepth
	}
	if f != nil && f.recursionDepth != nil {
		limit = *f.recursionDepth
	}
	if x.open[m]+1 > limit {
		return nil, limit, false
	}
	prevOpen, prevLimit := x.open[m], x.limit[m]
	x.open[m], x.limit[m] = prevOpen+1, limit
	return func() { x.open[m], x.limit[m] = prevOpen, prevLimit }, limit, true
}

// childSchema is the schema of the recursive message m reached through f:
// its object while levels remain, JSON text past them.
func (x *expansion) childSchema(f *fieldModel, m *messageModel) *jsonschema.Schema {
	leave, limit, ok := x.enter(f, m)
	if !ok {
		return &jsonschema.Schema{Type: "string", Description: recursiveTextNote(m, limit)}
	}
	defer leave()
	return objectSchema(m, x)
}

// recursiveTextNote describes the JSON text a level past the schema's
// expansion takes, with an example naming the message's first string field.
func recursiveTextNote(m *messageModel, limit int) string {
	levels := strconv.Itoa(limit) + " levels"
	if limit == 1 {
		levels = "1 level"
	}
	example := ""
	for _, f := range m.agentFields() {
		if f.proto.Desc.Kind() == protoreflect.StringKind && !f.proto.Desc.IsList() {
			example = fmt.Sprintf(`, e.g. "{\"%s\":\"...\"}"`, f.agentName)
			break
		}
	}
	return fmt.Sprintf("JSON text of one %s object with the same fields as the level above%s. The schema spells out %s of %s; deeper levels travel as JSON text.",
		m.proto.Desc.Name(), example, levels, m.proto.Desc.Name())
}
