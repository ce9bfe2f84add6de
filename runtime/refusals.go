package runtime

// The error entries a confirmation answers with: declined, cancelled,
// refused, unconfirmed, anonymous; and the summary and consequence text they
// show the user.

import (
	"fmt"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// summarize is one line naming the tool and the agent's scalar arguments,
// which is what a person needs to recognise the write.
func summarize(wt *boundTool, body *impl.Object) string {
	title := wt.doc.Title
	if title == "" {
		title = wt.doc.Name
	}
	var parts []string
	for i, k := range body.Keys {
		if pu := wt.doc.PreviewUnless; pu != nil && k == pu.Argument {
			continue // asking for the write is not part of what is written
		}
		if len(parts) == 4 {
			parts = append(parts, "...")
			break
		}
		v := body.Vals[i]
		switch v.Kind {
		case impl.KindString:
			s := v.Str
			if r := []rune(s); len(r) > 60 {
				s = string(r[:57]) + "..."
			}
			parts = append(parts, fmt.Sprintf("%s=%q", k, s))
		case impl.KindNumber:
			parts = append(parts, k+"="+v.Str)
		case impl.KindBool:
			parts = append(parts, fmt.Sprintf("%s=%t", k, v.Bool))
		}
	}
	if len(parts) == 0 {
		return title
	}
	return title + ": " + strings.Join(parts, ", ")
}

// consequence says what a classification puts at risk.
func consequence(classification string) string {
	switch classification {
	case "DESTRUCTIVE_DELETE":
		return "This permanently deletes data; it cannot be undone."
	case "DESTRUCTIVE_UPDATE":
		return "This overwrites existing data; the previous values are lost."
	}
	return "This changes data."
}

// declined is the answer when the user said no.
func declined(wt *boundTool, body *impl.Object) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:        impl.CodeConfirmationDeclined,
		Message:     "The user declined: " + summarize(wt, body) + ". Nothing was written.",
		Suggestions: &impl.Suggestions{Hint: "Do not retry unless the user asks for the change again."},
	}
}

// refusesWithoutElicitation: the tool's elicit_fallback is REFUSE, so a
// confirmation the client cannot show refuses the call instead of storing a
// proposal.
func refusesWithoutElicitation(d *schemadoc.Tool) bool { return d.ElicitFallback == "REFUSE" }

// confirmationRequired answers a write that must be confirmed by the user
// when the client cannot ask and the tool does not fall back to a proposal.
func confirmationRequired(wt *boundTool, body *impl.Object) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:        impl.CodeConfirmationRequired,
		Message:     "The user must confirm " + summarize(wt, body) + ", and this client cannot ask (it does not support MCP elicitation forms). Nothing was written.",
		Suggestions: &impl.Suggestions{Hint: "Tell the user this change needs their confirmation in a client that can show confirmation prompts; do not retry it here."},
	}
}

// cancelled is the answer when the user dismissed the confirmation without
// deciding: unlike a decline, the user may still want the change.
func cancelled(wt *boundTool, body *impl.Object) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:        impl.CodeConfirmationCancelled,
		Message:     "The user dismissed the confirmation without deciding: " + summarize(wt, body) + ". Nothing was written.",
		Suggestions: &impl.Suggestions{Hint: "Ask the user whether they want this change; call again only if they say yes."},
	}
}

// refusal is the answer to a confirmation that was not accepted: cancel
// (dismissed) and decline (or an accept without confirm) differ.
func refusal(wt *boundTool, body *impl.Object, res *mcp.ElicitResult) *impl.ErrorEntry {
	if res != nil && res.Action == "cancel" {
		return cancelled(wt, body)
	}
	return declined(wt, body)
}

// invalidConfirmation is a CONFIRMATION_INVALID entry; reason is stable for
// programs, the message for people.
func invalidConfirmation(reason, msg string) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code: codeConfirmationInvalid, Message: msg,
		Details:     map[string]any{"reason": reason},
		Suggestions: &impl.Suggestions{Hint: "Call the tool again without inputResponses or requestState to ask the user again."},
	}
}

// anonymousConfirmation refuses to confirm or propose for a caller without
// tenant and principal: the confirmation would belong to nobody (or anybody).
func anonymousConfirmation(tool string) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code:    impl.CodePermissionDenied,
		Message: tool + " needs the user's confirmation, which is bound to an authenticated tenant and principal; this call carries none. Nothing was written.",
		Suggestions: &impl.Suggestions{
			Hint: "Reconnect with credentials that identify the tenant and the user; the identity comes from the connection, never from tool arguments.",
		},
	}
}

// CodeConfirmationInvalid means the answer to a confirmation cannot be
// trusted: its request state is missing, altered, expired, issued for another
// call, or already used. Nothing was written.
const codeConfirmationInvalid = "CONFIRMATION_INVALID"
