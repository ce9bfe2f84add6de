package gen

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// referenceField links an agent.reference field to its reference resolver:
// a singular string the agent sends as an id or a name.
func (b *builder) referenceField(fm *fieldModel, ref *mcpwritev1.Reference) bool {
	f := fm.proto
	switch {
	case f.Desc.Kind() != protoreflect.StringKind || f.Desc.IsList() || f.Desc.IsMap():
		b.probs.fieldf(f, "reference resolves a singular string field, not %s; move reference to a string field that holds the entity's id", kindName(f))
		return false
	case !isSnakeName(ref.GetResolver()):
		b.probs.fieldf(f, "reference needs resolver: a snake_case name such as element_ref, got %q; e.g. [(mcpwrite.v1.field).agent = {reference: {resolver: \"element_ref\" kind: \"element\"}}]", ref.GetResolver())
		return false
	case ref.GetKind() == "":
		b.probs.fieldf(f, "reference needs kind: what the field names, e.g. [(mcpwrite.v1.field).agent = {reference: {resolver: %q kind: \"element\"}}]", ref.GetResolver())
		return false
	case b.ann(fm).agent.Default != nil:
		b.probs.fieldf(f, "a reference cannot have a default; name the entity in the request")
		return false
	}
	if r, ok := b.findResolver(ref.GetResolver()); ok {
		if !r.reference {
			b.probs.fieldf(f, "resolver %q fills %s as a value resolver; a reference resolver needs its own name", ref.GetResolver(), r.firstUse)
			return false
		}
		fm.resolver = r
		return true
	}
	fm.resolver = &resolverModel{name: ref.GetResolver(), method: resolverMethod(ref.GetResolver()), goType: "reference",
		firstUse: string(f.Desc.FullName()), field: f, reference: true, kind: ref.GetKind()}
	b.file.resolvers = append(b.file.resolvers, fm.resolver)
	return true
}

// referenceNote is the sentence a reference field's description ends with.
func referenceNote(f *fieldModel) string {
	return "The " + f.resolver.kind + "'s id, or its name when no other " + f.resolver.kind + " has it."
}
