package gen

import (
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// Read tools (kind READ) share the write tools' decoding, enrichment and
// error envelope, but change nothing: their hints are fixed, they are never
// confirmed, and they take neither client_request_id nor dry_run. The
// options that only make sense for a write are refused with the fix.

// isRead reports whether the tool is a read.
func (t *toolModel) isRead() bool { return t.kind == mcpwritev1.ToolRules_READ }

// readTool finishes the model of a READ tool whose kind and classification
// are resolved.
func (b *builder) readTool(t *toolModel) *toolModel {
	m, tr := t.method, t.rules
	ok := true
	if t.classification != mcpwritev1.ToolRules_READ_ONLY {
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
	t.confirmation = mcpwritev1.ToolRules_DIRECT
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
		if f.generated.GetKind() == mcpwritev1.Generated_REQUEST_SCOPED {
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

// describePaging gives a read's undocumented page_size and page_token
// properties their standard descriptions.
func describePaging(t *toolModel, s *jsonschema.Schema) {
	for _, f := range t.input.fields {
		if !f.exposed() || f.desc != "" || f.mode != modeAgent || f.proto.Desc.IsList() || f.proto.Desc.IsMap() {
			continue
		}
		ps, ok := s.Properties.Get(f.agentName)
		if !ok {
			continue
		}
		switch name, k := string(f.proto.Desc.Name()), f.proto.Desc.Kind(); {
		case name == pageSizeField && isNumeric(k):
			ps.Description = pageSizeDesc(f.agent)
		case name == pageTokenField && k == protoreflect.StringKind:
			ps.Description = pageTokenDesc(t.svc.jsonNames)
		}
	}
}

// pageSizeDesc is "Maximum results per page, 1-100; default 50." from the
// field's own bounds and default.
func pageSizeDesc(a *mcpwritev1.AgentSupplied) string {
	d := "Maximum results per page"
	n := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case a.Minimum != nil && a.Maximum != nil:
		d += ", " + n(a.GetMinimum()) + "-" + n(a.GetMaximum())
	case a.Maximum != nil:
		d += ", at most " + n(a.GetMaximum())
	case a.Minimum != nil:
		d += ", at least " + n(a.GetMinimum())
	}
	if a.Default != nil {
		d += "; default " + strings.TrimSpace(a.GetDefault())
	}
	return d + "."
}
