package runtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// Quotas named in RESOURCE_EXHAUSTED answers (details.quota).
const (
	quotaProposalsPerPrincipal = "pending_proposals_per_principal"
	quotaProposalsPerTenant    = "pending_proposals_per_tenant"
	quotaProposalsServer       = "pending_proposals_server"
	quotaIdempotencyPerTenant  = "idempotency_records_per_tenant"
)

// exhausted is the retryable RESOURCE_EXHAUSTED entry of a call refused
// because a bounded resource of its caller (or, for the server-wide bound,
// of the server) is full: it names the quota, its limit and when to retry.
func exhausted(quota string, limit int, retry time.Duration, message, hint string) *impl.ErrorEntry {
	secs := int64(max(retry, time.Second).Round(time.Second) / time.Second)
	return &impl.ErrorEntry{
		Code:        impl.CodeResourceExhausted,
		Message:     message,
		Details:     map[string]any{"quota": quota, "limit": limit, "retry_after_seconds": secs},
		Suggestions: &impl.Suggestions{Hint: hint},
	}
}

// Quotas named in RESOURCE_EXHAUSTED answers for waiting confirmations.
const (
	quotaElicitationsPerPrincipal = "waiting_confirmations_per_principal"
	quotaElicitationsPerTenant    = "waiting_confirmations_per_tenant"
)

// idempotencyQuotaError is the RESOURCE_EXHAUSTED entry of a claim the
// store refused because the caller's tenant holds its quota of records;
// nil for other errors.
func idempotencyQuotaError(tool string, err error) *impl.ErrorEntry {
	qe, ok := errors.AsType[*idempotency.QuotaError](err)
	if !ok {
		return nil
	}
	return exhausted(quotaIdempotencyPerTenant, qe.Limit, qe.RetryAfter,
		fmt.Sprintf("%s was not run: your tenant holds the quota of %d idempotency records (client_request_id keys); nothing was written", tool, qe.Limit),
		"Retry after details.retry_after_seconds, when the earliest record expires, or retry an earlier call with its own client_request_id.")
}
