package proposal

import (
	"errors"
	"fmt"
	"time"
)

// Default quotas of open (pending or applying) proposals. A store refuses a
// new proposal past its caller's quota with a *QuotaError, so one tenant,
// or one principal, can never take the room every other caller needs.
const (
	// DefaultMaxPendingPerTenant bounds the open proposals of one tenant.
	DefaultMaxPendingPerTenant = 1000
	// DefaultMaxPendingPerPrincipal bounds the open proposals of one
	// principal of a tenant.
	DefaultMaxPendingPerPrincipal = 100
)

// Quotas are the per-tenant and per-principal bounds of open proposals a
// store enforces; a zero field keeps its default.
type Quotas struct {
	PerTenant    int
	PerPrincipal int
}

// withDefaults fills zero or negative fields with the defaults.
func (q Quotas) withDefaults() Quotas {
	if q.PerTenant <= 0 {
		q.PerTenant = DefaultMaxPendingPerTenant
	}
	if q.PerPrincipal <= 0 {
		q.PerPrincipal = DefaultMaxPendingPerPrincipal
	}
	return q
}

// Resolved returns q with every zero field set to its default; stores call
// it on the quotas they are given.
func (q Quotas) Resolved() Quotas { return q.withDefaults() }

// ErrQuota is what a *QuotaError matches with errors.Is.
var ErrQuota = errors.New("proposal: quota of open proposals reached")

// Quota scopes named by QuotaError.Scope.
const (
	ScopeTenant    = "tenant"
	ScopePrincipal = "principal"
)

// QuotaError is Create's refusal of a proposal past its caller's quota: the
// caller's tenant (Scope "tenant") or principal ("principal") already holds
// Limit open proposals. RetryAfter is how long until the earliest of them
// expires and frees a place (applying or discarding one frees it sooner).
type QuotaError struct {
	Scope      string
	Limit      int
	RetryAfter time.Duration
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("proposal: the %s holds its quota of %d open proposals; one frees within %s", e.Scope, e.Limit, e.RetryAfter)
}

// Is makes errors.Is(err, ErrQuota) true.
func (e *QuotaError) Is(target error) bool { return target == ErrQuota }

// FullError is Create's refusal when the whole store holds as many open
// proposals as it may (ErrFull); RetryAfter is how long until the earliest
// open proposal expires.
type FullError struct {
	Limit      int
	RetryAfter time.Duration
}

func (e *FullError) Error() string {
	return fmt.Sprintf("%s (limit %d); one frees within %s", ErrFull, e.Limit, e.RetryAfter)
}

// Is makes errors.Is(err, ErrFull) true.
func (e *FullError) Is(target error) bool { return target == ErrFull }

// retryAfter is how long from now until expires, at least a second.
func retryAfter(expires, now time.Time) time.Duration {
	d := expires.Sub(now)
	if d < time.Second {
		return time.Second
	}
	return d.Round(time.Second)
}

// ownerKey identifies a principal of a tenant.
type ownerKey struct{ tenant, principal string }

// WithQuotas sets the per-tenant and per-principal quotas of open proposals
// (zero fields keep DefaultMaxPendingPerTenant and
// DefaultMaxPendingPerPrincipal).
func WithQuotas(q Quotas) MemoryOption {
	return func(s *MemoryStore) { s.quotas = q.withDefaults() }
}

// quotaLocked refuses a new open proposal of p's tenant or principal past
// their quota. It looks at the caller's own open proposals only (at most
// its quota of them): expired ones stop counting, and the earliest expiry
// of the rest says when to retry. Another tenant's proposals are never
// scanned for it.
func (s *MemoryStore) quotaLocked(p *Proposal, now time.Time) error {
	owner := ownerKey{p.Tenant, p.Principal}
	scope, limit, set := "", 0, map[*memRecord]struct{}(nil)
	switch {
	case len(s.byOwner[owner]) >= s.quotas.PerPrincipal:
		scope, limit, set = ScopePrincipal, s.quotas.PerPrincipal, s.byOwner[owner]
	case len(s.byTenant[p.Tenant]) >= s.quotas.PerTenant:
		scope, limit, set = ScopeTenant, s.quotas.PerTenant, s.byTenant[p.Tenant]
	default:
		return nil
	}
	var earliest time.Time
	for r := range set {
		if r.p.Expired(now) {
			s.close(r) // removes r from set: safe while ranging over a map
			continue
		}
		if earliest.IsZero() || r.p.ExpiresAt.Before(earliest) {
			earliest = r.p.ExpiresAt
		}
	}
	if len(set) < limit {
		return s.quotaLocked(p, now) // the other scope may still be full
	}
	return &QuotaError{Scope: scope, Limit: limit, RetryAfter: retryAfter(earliest, now)}
}

// fullLocked is the refusal of a store holding maxOpen open proposals.
func (s *MemoryStore) fullLocked(now time.Time) error {
	var earliest time.Time
	for _, r := range s.recs {
		if r.open && (earliest.IsZero() || r.p.ExpiresAt.Before(earliest)) {
			earliest = r.p.ExpiresAt
		}
	}
	return &FullError{Limit: s.maxOpen, RetryAfter: retryAfter(earliest, now)}
}

// countLocked adds r to (add) or removes it from the open proposals of its
// tenant and principal.
func (s *MemoryStore) countLocked(r *memRecord, add bool) {
	owner := ownerKey{r.p.Tenant, r.p.Principal}
	if add {
		if s.byTenant[r.p.Tenant] == nil {
			s.byTenant[r.p.Tenant] = map[*memRecord]struct{}{}
		}
		if s.byOwner[owner] == nil {
			s.byOwner[owner] = map[*memRecord]struct{}{}
		}
		s.byTenant[r.p.Tenant][r] = struct{}{}
		s.byOwner[owner][r] = struct{}{}
		return
	}
	delete(s.byTenant[r.p.Tenant], r)
	if len(s.byTenant[r.p.Tenant]) == 0 {
		delete(s.byTenant, r.p.Tenant)
	}
	delete(s.byOwner[owner], r)
	if len(s.byOwner[owner]) == 0 {
		delete(s.byOwner, owner)
	}
}
