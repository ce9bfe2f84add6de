package proposal

import (
	"context"
	"slices"
	"sync"
	"time"
)

// DefaultMaxPending bounds the open (pending or applying) proposals a
// MemoryStore holds unless WithMaxPending says otherwise.
const DefaultMaxPending = 10000

// MemoryOption configures a MemoryStore.
type MemoryOption func(*MemoryStore)

// WithMaxPending bounds the open proposals held at once; n <= 0 keeps
// DefaultMaxPending. Closed proposals (applied, discarded, expired) are
// retained up to the same number again, oldest evicted first.
func WithMaxPending(n int) MemoryOption {
	return func(s *MemoryStore) {
		if n > 0 {
			s.maxOpen = n
		}
	}
}

// WithRetention sets how long a proposal is kept after its expiry (see
// DefaultRetention); d < 0 keeps the default, 0 drops it at expiry.
func WithRetention(d time.Duration) MemoryOption {
	return func(s *MemoryStore) {
		if d >= 0 {
			s.retention = d
		}
	}
}

// WithApplyLease sets how long an apply may stay unfinished before a new
// BeginApply takes it over (d <= 0 keeps DefaultApplyLease).
func WithApplyLease(d time.Duration) MemoryOption {
	return func(s *MemoryStore) {
		if d > 0 {
			s.applyLease = d
		}
	}
}

// WithClock sets the clock used to purge expired proposals when Create needs
// room (lookups use their now argument); nil keeps time.Now.
func WithClock(now func() time.Time) MemoryOption {
	return func(s *MemoryStore) {
		if now != nil {
			s.clock = now
		}
	}
}

// MemoryStore is a thread-safe, bounded, in-process Store for a single
// server process (tests, development, single-replica deployments). Expired
// proposals stop counting against the bound and are purged lazily, when
// Create needs room. Use NewMemoryStore; the zero value is not usable.
type MemoryStore struct {
	mu        sync.Mutex
	maxOpen   int
	retention time.Duration
	// applyLease: an apply unfinished for this long may be begun again.
	applyLease time.Duration
	clock      func() time.Time
	recs       map[string]*memRecord
	open       int // records with memRecord.open set
	// quotas bound the open records of one tenant (byTenant) and of one
	// principal (byOwner).
	quotas   Quotas
	byTenant map[string]map[*memRecord]struct{}
	byOwner  map[ownerKey]map[*memRecord]struct{}
}

type memRecord struct {
	p Proposal
	// open: counted against maxOpen; cleared when the proposal reaches a
	// final state or a sweep finds it expired.
	open bool
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts ...MemoryOption) *MemoryStore {
	s := &MemoryStore{
		maxOpen:    DefaultMaxPending,
		retention:  DefaultRetention,
		applyLease: DefaultApplyLease,
		clock:      time.Now,
		recs:       make(map[string]*memRecord),
		quotas:     Quotas{}.withDefaults(),
		byTenant:   make(map[string]map[*memRecord]struct{}),
		byOwner:    make(map[ownerKey]map[*memRecord]struct{}),
	}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// Create stores a copy of p as pending. It fills p.ID with NewID when empty
// and sets p.State to StatePending. Errors: ErrInvalid, ErrDuplicate, a
// *QuotaError (ErrQuota) past the caller's quota, a *FullError (ErrFull)
// when the whole store is full.
func (s *MemoryStore) Create(ctx context.Context, p *Proposal) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	rec := p.Clone()
	if rec.ID == "" {
		rec.ID = NewID()
	}
	rec.State = StatePending

	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[rec.ID]; ok {
		return ErrDuplicate
	}
	now := s.clock()
	if err := s.quotaLocked(rec, now); err != nil {
		return err
	}
	if s.open >= s.maxOpen || len(s.recs) >= 2*s.maxOpen {
		s.sweep(now)
	}
	if s.open >= s.maxOpen {
		return s.fullLocked(now)
	}
	if len(s.recs) >= 2*s.maxOpen {
		s.evictClosed()
	}
	r := &memRecord{p: *rec, open: true}
	s.recs[rec.ID] = r
	s.open++
	s.countLocked(r, true)
	p.ID, p.State = rec.ID, StatePending
	return nil
}

// Get returns a copy of the proposal in any state; an open proposal past its
// expiry answers ErrExpired.
func (s *MemoryStore) Get(ctx context.Context, id, tenant, principal string, now time.Time) (*Proposal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now = orNow(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookup(id, tenant, principal)
	if err != nil {
		return nil, err
	}
	if r.p.Expired(now) {
		return nil, ErrExpired
	}
	return r.p.Clone(), nil
}

// BeginApply implements Store.BeginApply under the store lock, so exactly one
// of any number of concurrent callers moves a pending proposal to applying.
func (s *MemoryStore) BeginApply(ctx context.Context, id, tenant, principal string, now time.Time) (*Proposal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now = orNow(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookup(id, tenant, principal)
	if err != nil {
		return nil, err
	}
	switch {
	case r.p.State == StateApplied:
		return r.p.Clone(), nil
	case r.p.State == StateDiscarded:
		return nil, ErrDiscarded
	case r.p.Expired(now):
		return nil, ErrExpired
	case r.p.State == StateApplying && now.Before(r.p.ApplyStartedAt.Add(s.applyLease)):
		return nil, ErrBusy
	}
	r.p.State = StateApplying
	r.p.ApplyStartedAt = NormalizeTime(now)
	return r.p.Clone(), nil
}

// FinishApply records the result of an apply begun with BeginApply.
// Errors: ErrNotFound, ErrNotApplying.
func (s *MemoryStore) FinishApply(ctx context.Context, id string, result []byte, isError bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	if !ok {
		return ErrNotFound
	}
	if r.p.State != StateApplying {
		return ErrNotApplying
	}
	r.p.State = StateApplied
	r.p.Result = cloneBytes(result)
	r.p.ResultIsError = isError
	s.close(r)
	return nil
}

// AbortApply returns an applying proposal to pending.
// Errors: ErrNotFound, ErrNotApplying.
func (s *MemoryStore) AbortApply(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	if !ok {
		return ErrNotFound
	}
	if r.p.State != StateApplying {
		return ErrNotApplying
	}
	r.p.State = StatePending
	return nil
}

// Discard moves a pending proposal to discarded; discarding a discarded
// proposal succeeds. Errors: ErrNotFound, ErrExpired, ErrBusy, ErrApplied.
func (s *MemoryStore) Discard(ctx context.Context, id, tenant, principal string, now time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now = orNow(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.lookup(id, tenant, principal)
	if err != nil {
		return err
	}
	switch {
	case r.p.State == StateDiscarded:
		return nil
	case r.p.State == StateApplied:
		return ErrApplied
	case r.p.Expired(now):
		return ErrExpired
	case r.p.State == StateApplying:
		return ErrBusy
	}
	r.p.State = StateDiscarded
	s.close(r)
	return nil
}

// Len returns how many proposals the store holds (open and retained).
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recs)
}

// Purge drops every proposal whose expiry plus retention is at or before
// now and returns how many it dropped; Create does this on its own when the
// store is full, Purge lets a server reclaim memory on a timer.
func (s *MemoryStore) Purge(now time.Time) int {
	now = orNow(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	before := len(s.recs)
	s.sweep(now)
	return before - len(s.recs)
}

// lookup finds id for tenant and principal; a mismatch is ErrNotFound so a
// caller learns nothing about proposals it does not own.
func (s *MemoryStore) lookup(id, tenant, principal string) (*memRecord, error) {
	r, ok := s.recs[id]
	if !ok || !r.p.Owned(tenant, principal) {
		return nil, ErrNotFound
	}
	return r, nil
}

func (s *MemoryStore) close(r *memRecord) {
	if r.open {
		r.open = false
		s.open--
		s.countLocked(r, false)
	}
}

// sweep drops proposals past expiry plus retention and stops counting
// expired ones against the bound.
func (s *MemoryStore) sweep(now time.Time) {
	for id, r := range s.recs {
		if !now.Before(r.p.ExpiresAt.Add(s.retention)) {
			s.close(r)
			delete(s.recs, id)
		} else if r.open && r.p.Expired(now) {
			s.close(r)
		}
	}
}

// evictClosed makes room among closed proposals (final or expired), oldest
// expiry first and applying ones last, in a batch so a store kept at its
// bound does not sort on every Create.
func (s *MemoryStore) evictClosed() {
	closed := make([]*memRecord, 0, len(s.recs)-s.open)
	for _, r := range s.recs {
		if !r.open {
			closed = append(closed, r)
		}
	}
	slices.SortFunc(closed, func(a, b *memRecord) int {
		if aa, ba := a.p.State == StateApplying, b.p.State == StateApplying; aa != ba {
			if aa {
				return 1
			}
			return -1
		}
		return a.p.ExpiresAt.Compare(b.p.ExpiresAt)
	})
	n := len(s.recs) - 2*s.maxOpen + 1 + s.maxOpen/8
	for _, r := range closed[:min(n, len(closed))] {
		delete(s.recs, r.p.ID)
	}
}

// orNow replaces a zero now (a caller bug) with the wall clock, so a missing
// time never makes an expired proposal look live.
func orNow(now time.Time) time.Time {
	if now.IsZero() {
		return time.Now()
	}
	return now
}

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
