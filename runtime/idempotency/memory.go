package idempotency

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// DefaultMemoryMaxEntries bounds a MemoryStore unless WithMaxEntries says otherwise.
const DefaultMemoryMaxEntries = 100_000

// MemoryStore is a bounded, thread-safe Store held in process memory: an LRU
// of records with per-record expiry. It is the adapter cache layer; alone it
// is only authoritative within one process and until a restart, and under
// memory pressure the least recently used key (even an in-progress claim) is
// forgotten first.
type MemoryStore struct {
	mu         sync.Mutex
	maxEntries int
	maxTTL     time.Duration
	lru        *list.List // of *entry, most recently used at the front
	items      map[Key]*list.Element
}

// entry is a record and the time the store forgets it, which for a cache can
// be earlier than the record's own ExpiresAt.
type entry struct {
	rec      Record
	deadline time.Time
}

func (e *entry) live(now time.Time) bool { return e.rec.Live(now) && now.Before(e.deadline) }

// MemoryOption configures NewMemoryStore.
type MemoryOption func(*MemoryStore)

// WithMaxEntries bounds the number of records kept (values < 1 keep the default).
func WithMaxEntries(n int) MemoryOption {
	return func(s *MemoryStore) {
		if n > 0 {
			s.maxEntries = n
		}
	}
}

// WithMaxTTL makes the store forget a completed record after d whatever its
// ExpiresAt, so a cache keeps a shorter window than the durable store (values
// <= 0 mean no cap).
func WithMaxTTL(d time.Duration) MemoryOption {
	return func(s *MemoryStore) { s.maxTTL = d }
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts ...MemoryOption) *MemoryStore {
	s := &MemoryStore{maxEntries: DefaultMemoryMaxEntries, lru: list.New(), items: map[Key]*list.Element{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

var (
	_ Store           = (*MemoryStore)(nil)
	_ RecordCompleter = (*MemoryStore)(nil)
	_ Filler          = (*MemoryStore)(nil)
)

// Len returns the number of records held, expired ones included until evicted.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// lookup returns k's element and whether its record is live at now.
func (s *MemoryStore) lookup(k Key, now time.Time) (*list.Element, *entry, bool) {
	el, ok := s.items[k]
	if !ok {
		return nil, nil, false
	}
	e := el.Value.(*entry)
	return el, e, e.live(now)
}

// put stores e under its key as the most recently used entry (replacing el
// when not nil) and evicts the least recently used beyond the bound.
func (s *MemoryStore) put(el *list.Element, e *entry) {
	if el != nil {
		el.Value = e
		s.lru.MoveToFront(el)
		return
	}
	s.items[e.rec.Key] = s.lru.PushFront(e)
	for s.lru.Len() > s.maxEntries {
		s.remove(s.lru.Back())
	}
}

func (s *MemoryStore) remove(el *list.Element) {
	s.lru.Remove(el)
	delete(s.items, el.Value.(*entry).rec.Key)
}

// deadline is when a completed record written at now is forgotten.
func (s *MemoryStore) deadline(now, expires time.Time, keep time.Duration) time.Time {
	if s.maxTTL > 0 && (keep <= 0 || s.maxTTL < keep) {
		keep = s.maxTTL
	}
	if keep > 0 {
		if d := now.Add(keep); d.Before(expires) {
			return d
		}
	}
	return expires
}

// Claim implements Store.
func (s *MemoryStore) Claim(_ context.Context, k Key, fingerprint string, now time.Time, lease time.Duration) (ClaimResult, error) {
	now = TruncateTime(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	el, e, live := s.lookup(k, now)
	if live {
		s.lru.MoveToFront(el)
		return ClaimResult{Existing: cloneRecord(&e.rec)}, nil
	}
	until := TruncateTime(now.Add(lease))
	s.put(el, &entry{
		rec:      Record{Key: k, Fingerprint: fingerprint, State: StateInProgress, CreatedAt: now, LeaseUntil: until, ExpiresAt: until},
		deadline: until,
	})
	return ClaimResult{Claimed: true}, nil
}

// Complete implements Store.
func (s *MemoryStore) Complete(ctx context.Context, k Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) error {
	_, err := s.CompleteRecord(ctx, k, fingerprint, response, isError, now, ttl)
	return err
}

// CompleteRecord implements RecordCompleter.
func (s *MemoryStore) CompleteRecord(_ context.Context, k Key, fingerprint string, response []byte, isError bool, now time.Time, ttl time.Duration) (*Record, error) {
	now = TruncateTime(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	created := now
	el, e, live := s.lookup(k, now)
	if e != nil {
		switch {
		case e.rec.State == StateInProgress && e.rec.Fingerprint == fingerprint:
			created = e.rec.CreatedAt
		case live:
			return nil, ErrClaimLost
		}
	}
	rec := Record{
		Key: k, Fingerprint: fingerprint, State: StateCompleted,
		Response: append([]byte(nil), response...), IsError: isError,
		CreatedAt: created, ExpiresAt: TruncateTime(now.Add(ttl)),
	}
	s.put(el, &entry{rec: rec, deadline: s.deadline(now, rec.ExpiresAt, 0)})
	return cloneRecord(&rec), nil
}

// Release implements Store.
func (s *MemoryStore) Release(_ context.Context, k Key, fingerprint string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.items[k]; ok {
		if r := &el.Value.(*entry).rec; r.State == StateInProgress && r.Fingerprint == fingerprint {
			s.remove(el)
		}
	}
	return nil
}

// Get implements Store.
func (s *MemoryStore) Get(_ context.Context, k Key, now time.Time) (*Record, error) {
	now = TruncateTime(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	el, e, live := s.lookup(k, now)
	if !live {
		return nil, ErrNotFound
	}
	s.lru.MoveToFront(el)
	return cloneRecord(&e.rec), nil
}

// Fill implements Filler.
func (s *MemoryStore) Fill(_ context.Context, rec *Record, now time.Time, keep time.Duration) error {
	now = TruncateTime(now)
	if rec == nil || rec.State != StateCompleted || !rec.Live(now) {
		return nil
	}
	cp := *cloneRecord(rec)
	cp.CreatedAt = TruncateTime(cp.CreatedAt)
	cp.ExpiresAt = TruncateTime(cp.ExpiresAt)
	cp.LeaseUntil = time.Time{}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(s.items[cp.Key], &entry{rec: cp, deadline: s.deadline(now, cp.ExpiresAt, keep)})
	return nil
}

// cloneRecord copies rec so callers never share the store's response bytes.
func cloneRecord(rec *Record) *Record {
	cp := *rec
	if rec.Response != nil {
		cp.Response = append([]byte(nil), rec.Response...)
	}
	return &cp
}
