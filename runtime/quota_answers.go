package runtime

import (
	"errors"
	"fmt"
	"sync"
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

// holdElicitation counts one more waiting confirmation of rc, or answers
// the RESOURCE_EXHAUSTED entry of the quota it would exceed; release ends
// the wait.
func (r *registry) holdElicitation(rc RequestContext, tool string) (release func(), e *impl.ErrorEntry) {
	q, w := r.cfg.elicitQuotas, &r.waits
	owner := [2]string{rc.TenantID, rc.PrincipalID}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.byTenant == nil {
		w.byTenant, w.byOwner = map[string]int{}, map[[2]string]int{}
	}
	hint := fmt.Sprintf("Answer or cancel a confirmation the user is being asked, or retry after details.retry_after_seconds, when the longest wait ends (%s).", r.cfg.elicitTimeout)
	switch {
	case w.byOwner[owner] >= q.perPrincipal:
		return nil, exhausted(quotaElicitationsPerPrincipal, q.perPrincipal, r.cfg.elicitTimeout,
			fmt.Sprintf("%s was not run: you have the quota of %d confirmations waiting for an answer; nothing was written", tool, q.perPrincipal), hint)
	case w.byTenant[rc.TenantID] >= q.perTenant:
		return nil, exhausted(quotaElicitationsPerTenant, q.perTenant, r.cfg.elicitTimeout,
			fmt.Sprintf("%s was not run: your tenant has the quota of %d confirmations waiting for an answer; nothing was written", tool, q.perTenant), hint)
	}
	w.byOwner[owner]++
	w.byTenant[rc.TenantID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.byOwner[owner]--; w.byOwner[owner] <= 0 {
				delete(w.byOwner, owner)
			}
			if w.byTenant[rc.TenantID]--; w.byTenant[rc.TenantID] <= 0 {
				delete(w.byTenant, rc.TenantID)
			}
		})
	}, nil
}

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
