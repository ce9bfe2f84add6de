package gen

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// vocabularyField checks an agent.vocabulary annotation: a string field or
// a list of strings, a snake_case name, and neither a reference nor a
// default (the values exist only while the server runs).
func (b *builder) vocabularyField(fm *fieldModel, v *mcpwritev1.Vocabulary) bool {
	f := fm.proto
	switch {
	case f.Desc.Kind() != protoreflect.StringKind || f.Desc.IsMap():
		b.probs.fieldf(f, "vocabulary applies to a string field or a list of strings, not %s; move vocabulary to a string field", kindName(f))
		return false
	case !isSnakeName(v.GetName()):
		b.probs.fieldf(f, "vocabulary needs name: a snake_case name such as entity_type, got %q; e.g. [(mcpwrite.v1.field).agent = {vocabulary: {name: \"entity_type\"}}]", v.GetName())
		return false
	case b.ann(fm).agent.GetReference() != nil:
		b.probs.fieldf(f, "a field cannot take both a reference and a vocabulary: a reference becomes an entity's id, a vocabulary value is kept as the agent names it; drop one of them")
		return false
	case b.ann(fm).agent.Default != nil:
		b.probs.fieldf(f, "a vocabulary field cannot have a default: its values are known only while the server runs; drop default")
		return false
	case v.DiscoveryTool != nil && !isToolName(v.GetDiscoveryTool()):
		b.probs.fieldf(f, "vocabulary discovery_tool %q must match ^[a-zA-Z0-9_-]{1,64}$; e.g. discovery_tool: %q", v.GetDiscoveryTool(), acceptedName(v.GetDiscoveryTool()))
		return false
	}
	fm.vocab = &vocabModel{name: v.GetName(), discoveryTool: v.GetDiscoveryTool()}
	return true
}

// vocabularyTools collects the discovery tools of the live vocabularies the
// service's inputs use, checks that every field of a vocabulary names the
// same tool, and picks the tool each field's description points to.
func (b *builder) vocabularyTools(sm *serviceModel) {
	first := map[string]*fieldModel{}
	var order []string
	seen := map[*messageModel]bool{}
	var visit func(m *messageModel)
	visit = func(m *messageModel) {
		if seen[m] {
			return
		}
		seen[m] = true
		for _, f := range m.fields {
			if f.child != nil {
				visit(f.child)
			}
			if f.vocab == nil || !f.exposed() {
				continue
			}
			v := f.vocab
			if prev, ok := first[v.name]; !ok {
				first[v.name] = f
				order = append(order, v.name)
			} else if prev.vocab.discoveryTool != v.discoveryTool {
				b.probs.fieldf(f.proto, "vocabulary %q names discovery_tool %q here but %q on %s; name the same tool on every field of the vocabulary, or none",
					v.name, v.discoveryTool, prev.vocab.discoveryTool, prev.proto.Desc.FullName())
			}
			var listed []string
			for _, t := range []string{v.discoveryTool, sm.schemaTool} {
				if t != "" {
					listed = append(listed, t)
				}
			}
			switch {
			case len(listed) == 0:
				b.probs.fieldf(f.proto, "vocabulary %q would be listed nowhere: the service omits the schema tool, so name a discovery_tool", v.name)
			case v.listedBy != "":
			case len(listed) == 1:
				v.listedBy = listed[0] + " lists"
			default:
				v.listedBy = strings.Join(listed, " and ") + " list"
			}
		}
	}
	for _, t := range sm.tools {
		visit(t.input)
	}
	sm.vocabNames = order
	for _, n := range order {
		if tool := first[n].vocab.discoveryTool; tool != "" {
			sm.vocabTools = append(sm.vocabTools, &vocabToolModel{tool: tool, vocabulary: n,
				desc: "List the " + strings.ReplaceAll(n, "_", " ") + " values the caller's tenant can use, with their aliases."})
		}
	}
}

// vocabularyNote is the sentence a vocabulary field's description ends with.
func vocabularyNote(f *fieldModel) string {
	return "A value of the live vocabulary " + f.vocab.name + " (or one of its aliases); " + f.vocab.listedBy + " the values."
}

// vocabularyComment is the paragraph of a Register function's comment that
// names the vocabularies its options must serve; nil when there is none.
func vocabularyComment(sm *serviceModel) []string {
	if len(sm.vocabNames) == 0 {
		return nil
	}
	quoted := make([]string, len(sm.vocabNames))
	for i, n := range sm.vocabNames {
		quoted[i] = strconv.Quote(n)
	}
	what := "the live vocabulary " + quoted[0]
	if len(quoted) > 1 {
		what = "the live vocabularies " + strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
	}
	return []string{"", "The tools take values of " + what + ": pass", "runtime.WithVocabulary for each, or registration fails."}
}
