package runtime

import (
	"fmt"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// confirmWords are the arguments agents send to confirm a write on their
// own (confirm: true, force: true, ...). No tool takes them: a write the
// user must confirm is confirmed by the user, by proposal or elicitation.
var confirmWords = map[string]bool{"confirm": true, "confirmed": true, "force": true, "yes": true}

// hintConfirmFlow answers such an argument, sent to a tool the user
// confirms, with how confirmation works on that tool instead of a bare
// unknown field: by proposal, call it without the argument to get a
// proposal id, then apply by id once the user agrees; by elicitation, call
// it without the argument and the user is asked.
func (r *registry) hintConfirmFlow(wt *boundTool, es impl.Errors) {
	if wt.read {
		return
	}
	conf := defaultConfirmation(wt.doc)
	if conf == ConfirmDirect {
		return
	}
	for _, e := range es {
		if e == nil || e.Code != CodeUnknownField || !confirmWords[strings.ToLower(e.Field)] {
			continue
		}
		name := wt.doc.Name
		if conf == ConfirmProposal && r.svc.ApplyTool != "" {
			e.Message = fmt.Sprintf("unknown field %q: %s is confirmed by proposal, not by an argument", e.Field, name)
			e.Suggestions = &impl.Suggestions{Hint: fmt.Sprintf(
				"Call %s without %s: it writes nothing and answers with a proposal (%s). Show it to the user; if they confirm, call %s with that %s.",
				name, e.Field, r.control().proposalID, r.svc.ApplyTool, r.control().proposalID)}
			continue
		}
		e.Message = fmt.Sprintf("unknown field %q: %s asks the user to confirm, not an argument", e.Field, name)
		e.Suggestions = &impl.Suggestions{Hint: fmt.Sprintf(
			"Call %s without %s: the user is asked to confirm before anything is written.", name, e.Field)}
	}
}
