package gen

import (
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
		b.probs.fieldf(fm.proto, "recursion_depth applies to a field of a recursive message, not %s; drop recursion_depth", kindName(fm.proto))
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
