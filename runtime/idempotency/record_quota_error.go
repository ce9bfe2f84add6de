package idempotency

import (
	"errors"
	"fmt"
	"time"
)

// ErrQuota is what a *QuotaError matches with errors.Is.
var ErrQuota = errors.New("idempotency: quota of records reached")

// QuotaError is a store's refusal to claim a new key because the caller's
// tenant already holds Limit live records; RetryAfter is when the store
// expects a record of the tenant to expire. Claims of keys the tenant
// already holds (replays, retries) are never refused.
type QuotaError struct {
	Limit      int
	RetryAfter time.Duration
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("idempotency: the tenant holds its quota of %d live records; one expires within %s", e.Limit, e.RetryAfter)
}

// Is makes errors.Is(err, ErrQuota) true.
func (e *QuotaError) Is(target error) bool { return target == ErrQuota }
