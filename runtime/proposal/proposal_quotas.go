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
