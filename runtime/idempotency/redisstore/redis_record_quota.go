package redisstore

// WithMaxRecordsPerTenant bounds the live records one tenant may claim
// through this store: a claim of a new key past it is refused with an
// *idempotency.QuotaError (keys the tenant holds, replays and retries, are
// not). Each tenant's live records are tracked in a sorted set
// (<prefix>tenant-records:<tenant>, scored by when each record stops being
// live), updated next to each claim, completion and release, so concurrent
// claims may overshoot the bound by a few. n <= 0, the default, sets no
// bound (Redis's own maxmemory then bounds the store). Records written by
// Fill (a cache filled from the authoritative store) are not counted.
func WithMaxRecordsPerTenant(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxPerTenant = n
		}
	}
}
