package gen

// What write and read tools share once kind and classification are
// resolved: the result field, the request model, its resolvers, the pair
// check and preview_unless.

import (
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// toolBody resolves what writes and reads share: the result field, the
// request model, its resolvers and the pair check.
func (b *builder) toolBody(t *toolModel) *toolModel {
	sm, m, tr := t.svc, t.method, toolRules(t)
	t.result = tr.GetResult()
	if t.result != "" {
		found := false
		for _, f := range m.Output.Fields {
			if string(f.Desc.Name()) == t.result {
				found = true
			}
		}
		if !found {
			b.probs.methodf(m, "result %q is not a field of %s; name one of its fields (%s)", t.result, m.Output.Desc.FullName(), fieldList(m.Output, nil))
		}
	}
	t.input = b.requestModel(t)
	if t.input == nil {
		return nil
	}
	b.collectResolvers(sm, t.input, map[*messageModel]bool{})
	if pc := tr.GetPairCheck(); pc != nil {
		t.pairCheck = b.pairCheck(t, pc)
	}
	if name := tr.GetPreviewUnless(); name != "" {
		if t.previewUnless = b.previewField(m, t.input, name); t.previewUnless == nil {
			return nil
		}
	}
	return t
}

// previewField finds preview_unless's field: a singular bool field of the
// request the agent sets (so it can ask for the write).
func (b *builder) previewField(m *protogen.Method, in *messageModel, name string) *fieldModel {
	for _, f := range in.fields {
		if string(f.proto.Desc.Name()) != name {
			continue
		}
		switch {
		case f.proto.Desc.Kind() != protoreflect.BoolKind || f.proto.Desc.IsList():
			b.probs.methodf(m, "preview_unless names %s, %s; it must name a singular bool field such as `bool confirm`", name, kindName(f.proto))
		case f.mode != modeAgent:
			b.probs.methodf(m, "preview_unless names %s, which the agent does not set; make it agent-supplied", name)
		case b.ann(f).agent.GetDefault() == "true":
			b.probs.methodf(m, "preview_unless names %s, whose default is true: every call would write without a preview; drop the default", name)
		default:
			return f
		}
		return nil
	}
	if !refused(in, name) {
		b.probs.methodf(m, "preview_unless names %q, which is not a field of %s; add one, e.g. bool %s = 99;", name, m.Input.Desc.FullName(), name)
	}
	return nil
}

func (b *builder) collectResolvers(sm *serviceModel, m *messageModel, seen map[*messageModel]bool) {
	if seen[m] {
		return
	}
	seen[m] = true
	for _, f := range m.fields {
		if r := f.resolver; r != nil {
			dup := false
			for _, have := range sm.resolvers {
				if have.name == r.name {
					dup = true
				}
			}
			if !dup {
				sm.resolvers = append(sm.resolvers, r)
			}
		}
		if f.child != nil {
			b.collectResolvers(sm, f.child, seen)
		}
	}
}
