package gen

// Readers of the resolved buf.validate rules, for the schema builders and
// the emitters: description words, the request check switch, the agent
// paths and the message rule docs.

import (
	"fmt"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
)

// pvDescription is the description words of the rules without a portable
// keyword.
func pvDescription(f *fieldModel) string {
	if f.pv == nil {
		return ""
	}
	return strings.Join(append(pvWords(f.pv), limitWords(f)...), " ")
}

// pvWords are the words of the rules of pv without a portable keyword, but
// the ones limitWords states.
func pvWords(pv *pvRules) []string {
	var words []string
	if pv.unique {
		// uniqueItems is outside what strict modes accept.
		words = append(words, "Items must be unique.")
	}
	if pv.format != "" && !formatKeywords[pv.format] {
		words = append(words, "Must be "+formatWordsFor(pv.format)+".")
	}
	if len(pv.strNotIn) > 0 {
		words = append(words, "Must not be any of "+quoteAll(pv.strNotIn)+".")
	}
	for _, a := range pv.affixes {
		words = append(words, fmt.Sprintf(affixCheck[a.rule][1], a.value))
	}
	if pv.numConst {
		words = append(words, "Must be "+pv.numInText[0]+".")
	} else if len(pv.numIn) > 0 {
		words = append(words, "Must be one of "+strings.Join(pv.numInText, ", ")+".")
	}
	if len(pv.numNotIn) > 0 {
		words = append(words, "Must not be any of "+strings.Join(pv.numNotInText, ", ")+".")
	}
	return words
}

// agentPaths lists, in field order, the dotted proto path and agent path of
// every field of m (and its nested messages) the agent may set; the third
// element is "overridable" for a field the server fills when it is left out.
//
// A recursive message is listed once per path: the names below its first
// level repeat those above it.
func agentPaths(m *messageModel, protoPrefix, agentPrefix string) [][3]string {
	return agentPathsOnce(m, protoPrefix, agentPrefix, map[*messageModel]bool{})
}

func agentPathsOnce(m *messageModel, protoPrefix, agentPrefix string, open map[*messageModel]bool) [][3]string {
	if open[m] {
		return nil
	}
	open[m] = true
	defer delete(open, m)
	var out [][3]string
	for _, f := range m.fields {
		if !f.exposed() {
			continue
		}
		p, a := protoPrefix+string(f.proto.Desc.Name()), agentPrefix+f.agentName
		over := ""
		if f.overridable {
			over = "overridable"
		}
		out = append(out, [3]string{p, a, over})
		if f.child != nil {
			out = append(out, agentPathsOnce(f.child, p+".", a+".", open)...)
		}
	}
	return out
}

// messageRuleDocs lists the rules of a message itself: its CEL rules and
// required oneofs.
func messageRuleDocs(m *messageModel) []ruleDoc {
	var out []ruleDoc
	for _, c := range ext[*validate.MessageRules](m.proto.Desc.Options(), validate.E_Message).GetCel() {
		out = append(out, ruleDoc{Rule: "cel", ID: c.GetId(), Message: c.GetMessage(), Value: c.GetExpression(), CheckedBy: "protovalidate"})
	}
	for _, mo := range m.msgOneofs {
		by := "decoder"
		if mo.agentKeys == nil {
			by = "protovalidate"
		}
		v := "[" + strings.Join(quoteEach(mo.fields), ", ") + "]"
		if mo.required {
			v += " required"
		}
		out = append(out, ruleDoc{Rule: "message.oneof", Value: v, CheckedBy: by})
	}
	for _, od := range m.proto.Oneofs {
		if oneofValidateRequired(od) {
			out = append(out, ruleDoc{Rule: "oneof.required", Value: string(od.Desc.Name()), CheckedBy: "decoder"})
		}
	}
	return out
}
