package gen

import (
	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// Read tools (kind READ) share the write tools' decoding, enrichment and
// error envelope, but change nothing: their hints are fixed, they are never
// confirmed, and they take neither client_request_id nor dry_run. The
// options that only make sense for a write are refused with the fix.

// readTool finishes the model of a READ tool whose kind and classification
// are resolved.
func (b *builder) readTool(t *toolModel) *toolModel {
	m, tr := t.method, toolRules(t)
	if tr == nil { // expose: ALL, classified a read from its proto
		tr = &mcpwritev1.ToolRules{}
	}
	ok := true
	if t.classification != classReadOnly {
		b.probs.methodf(m, "kind READ is classified READ_ONLY; remove classification %s", t.classification)
		ok = false
	}
	if tr.PreviewUnless != nil {
		b.probs.methodf(m, "kind READ writes nothing to preview; remove preview_unless %q", tr.GetPreviewUnless())
		ok = false
	}
	if tr.ConfirmationMessage != nil {
		b.probs.methodf(m, "kind READ is never confirmed (a read changes nothing); remove confirmation_message")
		ok = false
	}
	if tr.ElicitFallback != nil {
		b.probs.methodf(m, "kind READ is never confirmed (a read changes nothing); remove elicit_fallback %s", tr.GetElicitFallback())
		ok = false
	}
	if tr.Confirmation != nil {
		b.probs.methodf(m, "kind READ is never confirmed (a read changes nothing); remove confirmation %s", tr.GetConfirmation())
		ok = false
	}
	for _, h := range []struct {
		name string
		set  *bool
		want bool
	}{
		{"read_only_hint", tr.ReadOnlyHint, true},
		{"destructive_hint", tr.DestructiveHint, false},
		{"idempotent_hint", tr.IdempotentHint, true},
	} {
		if h.set != nil && *h.set != h.want {
			b.probs.methodf(m, "kind READ is read-only, not destructive and idempotent; remove %s: %t", h.name, *h.set)
			ok = false
		}
	}
	if tr.RetryOnConflict != nil || tr.MaxConflictRetries != nil {
		b.probs.methodf(m, "kind READ has no write to retry on conflict; remove retry_on_conflict and max_conflict_retries")
		ok = false
	}
	if !ok {
		return nil
	}
	t.confirmation = confirmDirect
	t.readOnly, t.destructive, t.idempotent = true, false, true
	t.openWorld = tr.GetOpenWorldHint()
	t.nextSteps = tr.GetNextSteps()
	if b.toolBody(t) == nil {
		return nil
	}
	if !b.checkReadFields(t, t.input, map[*messageModel]bool{}) {
		return nil
	}
	return t
}

// checkReadFields refuses server fills that need a write's idempotency key.
func (b *builder) checkReadFields(t *toolModel, mm *messageModel, seen map[*messageModel]bool) bool {
	if seen[mm] {
		return true
	}
	seen[mm] = true
	ok := true
	for _, f := range mm.fields {
		if b.ann(f).generated.GetKind() == mcpwritev1.Generated_REQUEST_SCOPED {
			b.probs.fieldf(f.proto, "REQUEST_SCOPED is derived from client_request_id, which read tool %s (method %s) does not take; use UUID_V7, or make the method a write",
				t.name, t.method.Desc.FullName())
			ok = false
		}
		if f.child != nil && !b.checkReadFields(t, f.child, seen) {
			ok = false
		}
	}
	return ok
}

// Paging fields of a read, by their AIP-158 names.
const (
	pageSizeField      = "page_size"
	pageTokenField     = "page_token"
	nextPageTokenField = "next_page_token"
)

// pagingName is a paging field's name as agents see it.
func pagingName(jsonNames bool, field string) string {
	if jsonNames {
		return naming.Camel(naming.Words(field))
	}
	return field
}

func pageTokenDesc(jsonNames bool) string {
	return "Token from the " + pagingName(jsonNames, nextPageTokenField) + " of the previous call, to get the next page; omit for the first page."
}

func nextPageTokenDesc(jsonNames bool) string {
	return "Pass as " + pagingName(jsonNames, pageTokenField) + " to get the next page; empty on the last page."
}
