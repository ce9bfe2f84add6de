package runtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// Quotas named in RESOURCE_EXHAUSTED answers (details.quota).
const (
	quotaProposalsPerPrincipal = "pending_proposals_per_principal"
	quotaProposalsPerTenant    = "pending_proposals_per_tenant"
	quotaProposalsServer       = "pending_proposals_server"
)

// exhausted is the retryable RESOURCE_EXHAUSTED entry of a call refused
// because a bounded resource of its caller (or, for the server-wide bound,
// of the server) is full: it names the quota, its limit and when to retry.
func exhausted(quota string, limit int, retry time.Duration, message, hint string) *ErrorEntry {
	secs := int64(max(retry, time.Second).Round(time.Second) / time.Second)
	return &ErrorEntry{
		Code:        mcpwriteimpl.CodeResourceExhausted,
		Message:     message,
		Details:     map[string]any{"quota": quota, "limit": limit, "retry_after_seconds": secs},
		Suggestions: &Suggestions{Hint: hint},
	}
}

// proposalQuotaError turns a store's refusal of a new proposal for lack of
// room into its RESOURCE_EXHAUSTED entry; it returns nil for other errors.
func (r *registry) proposalQuotaError(tool string, err error) *ErrorEntry {
	free := fmt.Sprintf("Apply a pending proposal with %s or discard one with %s, or retry after details.retry_after_seconds, when the earliest pending proposal expires.",
		r.svc.ApplyTool, r.svc.DiscardTool)
	if qe, ok := errors.AsType[*proposal.QuotaError](err); ok {
		quota, who := quotaProposalsPerPrincipal, "you hold"
		if qe.Scope == proposal.ScopeTenant {
			quota, who = quotaProposalsPerTenant, "your tenant holds"
		}
		return exhausted(quota, qe.Limit, qe.RetryAfter,
			fmt.Sprintf("%s was not proposed: %s the quota of %d pending proposals; nothing was written", tool, who, qe.Limit), free)
	}
	if fe, ok := errors.AsType[*proposal.FullError](err); ok {
		return exhausted(quotaProposalsServer, fe.Limit, fe.RetryAfter,
			fmt.Sprintf("%s was not proposed: the server holds its limit of %d pending proposals; nothing was written", tool, fe.Limit),
			"Retry after details.retry_after_seconds.")
	}
	return nil
}
