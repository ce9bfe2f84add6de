package gen

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// Resource identity (docs/existing-apis.md). The resource message of an
// Update tool (the request's resource field beside its update_mask) is
// modelled apart from the same message elsewhere, as the variant
// variantUpdate: there the resource's name (its IDENTIFIER field, or the
// field google.api.resource's name_field names, "name" by default) is the
// agent's to set and required, since it says which resource to update,
// even when it is OUTPUT_ONLY; and IMMUTABLE fields are absent, since an
// update cannot change them. Elsewhere (Create) an IDENTIFIER field is the
// server's, like an OUTPUT_ONLY one. A key naming a field the server owns
// is refused with the reason, not as a bare unknown field.

// variantUpdate is the variant of an Update tool's resource message; it is
// the suffix of its generated Go names (decodeBookForUpdate).
const variantUpdate = "ForUpdate"

// variantInUpdate is the variant of a message reached from an Update
// tool's resource whose subtree holds an IMMUTABLE field: an update cannot
// change those at any depth, so they leave its input as they leave the
// resource's own fields. Messages without one keep their one model.
const variantInUpdate = "InUpdate"

// updateResourceOf returns the resource field of an UPDATE tool's request:
// a resource field beside a FieldMask update_mask (named after the method,
// or by AIP-134 shape the one message field beside the mask, whatever its
// name: maskResource), or a field whose message carries
// google.api.resource (an update that replaces the resource); nil for
// other tools.
func (b *builder) updateResourceOf(t *toolModel) *protogen.Field {
	if t.kind != kindUpdate {
		return nil
	}
	rf := resourceField(t.method, "Update")
	if mask := updateMaskField(t.method.Input); mask != nil && rf == nil {
		rf = b.maskResource(t, mask)
	}
	if rf == nil || updateMaskField(t.method.Input) == nil && ext[*annotations.ResourceDescriptor](rf.Message.Desc.Options(), annotations.E_Resource) == nil {
		return nil
	}
	return rf
}

// variantOf is the variant of the message a field leads to. A build
// with a message whose Go name is the variant's (BookForUpdate beside
// Book) is refused: their generated decoders would share a name.
func (b *builder) variantOf(via *protogen.Field) string {
	if via == nil {
		return ""
	}
	variant := variantUpdate
	if via != b.aip.updateResource {
		if !b.inUpdate() || !holdsImmutable(via.Message, map[*protogen.Message]bool{}) {
			return ""
		}
		variant = variantInUpdate
	}
	name := via.Message.GoIdent.GoName + variant
	for _, f := range b.plugin.Files {
		if f.GoImportPath != via.Message.GoIdent.GoImportPath {
			continue
		}
		for _, m := range f.Messages {
			if m.GoIdent.GoName == name {
				b.probs.fieldf(via, "the update tool's model of %s would share generated names with message %s; rename %s, or set the tool's kind with (mcpwrite.v1.tool)", via.Message.Desc.Name(), m.Desc.FullName(), m.Desc.Name())
				return ""
			}
		}
	}
	return variant
}

// inUpdate reports whether the message being built is an Update tool's
// resource or a message of it that holds an IMMUTABLE field.
func (b *builder) inUpdate() bool {
	if len(b.stack) == 0 {
		return false
	}
	v := b.stack[len(b.stack)-1].variant
	return v == variantUpdate || v == variantInUpdate
}

// holdsImmutable reports whether m or a message below it has an IMMUTABLE
// field.
func holdsImmutable(m *protogen.Message, seen map[*protogen.Message]bool) bool {
	if seen[m] {
		return false
	}
	seen[m] = true
	for _, f := range m.Fields {
		if slices.Contains(behaviors(f), annotations.FieldBehavior_IMMUTABLE) {
			return true
		}
		if vf := valueField(f); vf.Message != nil && holdsImmutable(vf.Message, seen) {
			return true
		}
	}
	return false
}

// behaviors returns f's google.api.field_behavior values.
func behaviors(f *protogen.Field) []annotations.FieldBehavior {
	opts := f.Desc.Options()
	if opts == nil || !proto.HasExtension(opts, annotations.E_FieldBehavior) {
		return nil
	}
	bs, _ := proto.GetExtension(opts, annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	return bs
}

// isIdentity reports whether f names the resource m: an IDENTIFIER field,
// a field annotated (mcpwrite.v1.field).identity, or, in a message that
// annotates none, the string field google.api.resource's name_field names
// ("name" by default, also for a resource message without
// google.api.resource).
func isIdentity(m *protogen.Message, f *protogen.Field) bool {
	if slices.Contains(behaviors(f), annotations.FieldBehavior_IDENTIFIER) || identityAnnotated(f) {
		return true
	}
	for _, g := range m.Fields {
		if identityAnnotated(g) {
			return false
		}
	}
	name := "name"
	if rd := ext[*annotations.ResourceDescriptor](m.Desc.Options(), annotations.E_Resource); rd.GetNameField() != "" {
		name = rd.GetNameField()
	}
	return string(f.Desc.Name()) == name && stringField(m, f.Desc.Name()) != nil
}

// identityAnnotated reports a field annotated (mcpwrite.v1.field).identity.
func identityAnnotated(f *protogen.Field) bool {
	return ext[*mcpwritev1.FieldRules](f.Desc.Options(), mcpwritev1.E_Field).GetIdentity()
}

// identityBehavior adjusts f's field behaviour in mm for resource identity
// and records the fields the server owns; it returns whether the server
// owns f (hidden from the agent), whether the agent must set it, and
// whether f is hidden whatever its annotation says: the server-owned name
// of a resource whose agent annotation (a reference, say) is for the
// update that names it.
func (b *builder) identityBehavior(mm *messageModel, f *protogen.Field, outputOnly, required bool) (bool, bool, bool) {
	bs := behaviors(f)
	rules := ext[*mcpwritev1.FieldRules](f.Desc.Options(), mcpwritev1.E_Field)
	serverNamed := outputOnly || slices.Contains(bs, annotations.FieldBehavior_IDENTIFIER)
	owned := func(why string) (bool, bool, bool) {
		if rules.GetKind() == nil || rules.GetHidden() {
			mm.owned = append(mm.owned, ownedField{name: b.fieldName(f), why: why})
		}
		return true, false, false
	}
	switch {
	case mm.variant == variantUpdate && isIdentity(mm.proto, f):
		return false, true, false
	case mm.variant != variantUpdate && serverNamed && rules.GetAgent() != nil && isIdentity(mm.proto, f) &&
		ext[*annotations.ResourceDescriptor](mm.proto.Desc.Options(), annotations.E_Resource) != nil:
		mm.owned = append(mm.owned, ownedField{name: b.fieldName(f), why: "the server names the resource on create"})
		return true, false, true
	case (mm.variant == variantUpdate || mm.variant == variantInUpdate) && slices.Contains(bs, annotations.FieldBehavior_IMMUTABLE):
		return owned("IMMUTABLE: set when the resource is created and never updated")
	case slices.Contains(bs, annotations.FieldBehavior_IDENTIFIER):
		return owned("IDENTIFIER: the server names the resource on create")
	case outputOnly:
		return owned("OUTPUT_ONLY: the server sets it")
	case rules.GetKind() == nil && commentOutputOnly(f):
		b.file.commentOutputOnly = append(b.file.commentOutputOnly, f)
		return owned("OUTPUT_ONLY: the server sets it")
	}
	return outputOnly, required, false
}

// commentOutputOnly reports a field documented "Output only." (the AIP-203
// comment prefix) without field_behavior: it is the server's, as documented.
func commentOutputOnly(f *protogen.Field) bool {
	return behaviors(f) == nil && strings.HasPrefix(strings.ToLower(cleanComment(f.Comments.Leading.String())), "output only.")
}

// commentOutputOnlyWarnings list, per message, the fields taken as
// OUTPUT_ONLY from their comment alone.
func commentOutputOnlyWarnings(fm *fileModel) []string {
	var out []string
	byMsg := map[*protogen.Message][]string{}
	var order []*protogen.Message
	seen := map[*protogen.Field]bool{}
	for _, f := range fm.commentOutputOnly {
		if seen[f] {
			continue
		}
		seen[f] = true
		if byMsg[f.Parent] == nil {
			order = append(order, f.Parent)
		}
		byMsg[f.Parent] = append(byMsg[f.Parent], string(f.Desc.Name()))
	}
	for _, m := range order {
		out = append(out, fmt.Sprintf("%s: message %s: %s documented \"Output only.\" without google.api.field_behavior; the agent does not set them (annotate them OUTPUT_ONLY to make it explicit: [(google.api.field_behavior) = OUTPUT_ONLY])",
			where(m.Desc), m.Desc.FullName(), strings.Join(byMsg[m], ", ")))
	}
	return out
}
