package gen

// The questions the stages ask of the resolved model: which fields the
// agent sees and must send, and what a tool's kind, classification and
// confirmation imply.

import (
	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// fieldFor returns the model of f, or nil when f is not part of the model.
func (m *messageModel) fieldFor(f *protogen.Field) *fieldModel {
	for _, fm := range m.fields {
		if fm.proto == f {
			return fm
		}
	}
	return nil
}

// mustSend reports whether the agent must send f: a required field the
// server does not fill when left out, or the only member of a required
// oneof.
func (m *messageModel) mustSend(f *fieldModel) bool {
	if od := f.proto.Oneof; od != nil && !od.Desc.IsSynthetic() && len(od.Fields) == 1 && m.requiredOneofs[od] {
		return true
	}
	return f.required && !f.overridable || m.onlyOfRequiredRule(f)
}

// onlyOfRequiredRule reports whether f is the single field of a required
// (buf.validate.message).oneof rule the decoder checks.
func (m *messageModel) onlyOfRequiredRule(f *fieldModel) bool {
	for _, mo := range m.msgOneofs {
		if mo.required && len(mo.agentKeys) == 1 && mo.agentKeys[0] == f.agentName {
			return true
		}
	}
	return false
}

func (m *messageModel) agentFields() []*fieldModel {
	var out []*fieldModel
	for _, f := range m.fields {
		if f.exposed() {
			out = append(out, f)
		}
	}
	return out
}

// exposed reports whether the field appears in the input schema.
func (f *fieldModel) exposed() bool {
	switch f.mode {
	case modeAgent, modeEnumAlias:
		if f.child != nil && !f.child.agentFacing {
			return false
		}
		return true
	case modeDerived, modeGenerated:
		return f.overridable
	}
	return false
}

// creates: the tool makes what it writes (kind CREATE or classification
// SAFE_CREATE).
func (t *toolModel) creates() bool {
	return t.kind == kindCreate || t.classification == classSafeCreate
}

func (t *toolModel) kindName() string { return t.kind.String() }

func (t *toolModel) classificationName() string { return t.classification.String() }

func (t *toolModel) confirmationName() string { return t.confirmation.String() }

// destructiveClass reports a DESTRUCTIVE_UPDATE or DESTRUCTIVE_DELETE
// classification.
func (t *toolModel) destructiveClass() bool {
	return t.classification == classDestructiveUpdate || t.classification == classDestructiveDelete
}

// refusesUnconfirmed reports an elicit_fallback of REFUSE: a confirmation
// the client cannot show refuses the write instead of proposing it.
func (t *toolModel) refusesUnconfirmed() bool {
	return t.elicitFallback == fallbackRefuse
}

// mayPropose reports whether the write's confirmation can be a proposal:
// PROPOSAL, or ELICIT falling back to one.
func (t *toolModel) mayPropose() bool {
	return t.confirmation == confirmProposal ||
		t.confirmation == confirmElicit && t.elicitFallback != fallbackRefuse
}

// fieldNaming is the document's field_naming: "JSON_NAME" when agents see
// protojson names, else "".
func (sm *serviceModel) fieldNaming() string {
	if sm.jsonNames {
		return "JSON_NAME"
	}
	return ""
}

// isRead reports whether the tool is a read.
func (t *toolModel) isRead() bool { return t.kind == kindRead }

// agentSummaryArg is the argument in which the agent may summarise a write
// whose confirmation can be a proposal (PROPOSAL, or ELICIT falling back to
// one), or "" when the tool cannot propose or has a field of that name.
func agentSummaryArg(t *toolModel) string {
	if t.isRead() || t.svc.applyTool == "" || hasAgentField(t.input, schemadoc.AgentSummaryArgument) {
		return ""
	}
	if t.mayPropose() {
		return schemadoc.AgentSummaryArgument
	}
	return ""
}

func hasAgentField(m *messageModel, name string) bool {
	for _, f := range m.agentFields() {
		if f.agentName == name {
			return true
		}
	}
	return false
}

// importsValidate reports whether the service's file imports
// buf/validate/validate.proto: its tools then run protovalidate on the
// complete request after enrichment (runtime/pvcheck).
func importsValidate(sm *serviceModel) bool {
	imps := sm.proto.Desc.ParentFile().Imports()
	for i := 0; i < imps.Len(); i++ {
		if imps.Get(i).Path() == validateImport {
			return true
		}
	}
	return false
}
