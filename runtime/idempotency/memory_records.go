package idempotency

import (
	"container/heap"
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Default bounds of a MemoryStore.
const (
	// DefaultMemoryMaxEntries bounds the number of records.
	DefaultMemoryMaxEntries = 100_000
	// DefaultMemoryMaxBytes bounds the bytes of the records held: keys,
	// fingerprints, stored results and a fixed overhead per record.
	DefaultMemoryMaxBytes = 64 << 20
	// recordOverhead is what one record costs beyond its strings: the
	// entry, its list element and map slot.
	recordOverhead = 256
)

// MemoryStore is a bounded, thread-safe Store held in process memory, with
// per-record expiry. It is the adapter cache layer; alone it is only
// authoritative within one process and until a restart.
//
// It is bounded by entries and by bytes, and fair between tenants: each
// tenant has its own least-recently-used list, and when a bound is reached
// the store evicts from the tenant holding the most bytes, so one tenant's
// flood of keys evicts its own records, never a smaller tenant's. The record
// just written is never the one evicted, so what the store reports stored
// is held; a completed record larger than the whole byte bound is refused
// with ErrRecordTooLarge (Fill skips it).
type MemoryStore struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	maxTTL     time.Duration
	tenants    map[string]*tenantLRU
	bySize     tenantHeap // the tenants, the one holding the most bytes first
	items      map[Key]*list.Element
	entries    int
	bytes      int
}

// tenantLRU is one tenant's records, most recently used at the front.
type tenantLRU struct {
	lru   *list.List // of *entry
	bytes int
	index int // position in MemoryStore.bySize
}

// tenantHeap orders tenants by bytes held, then by records, largest first,
// so the tenant to evict from is found in constant time.
type tenantHeap []*tenantLRU

func (h tenantHeap) Len() int { return len(h) }
func (h tenantHeap) Less(i, j int) bool {
	return h[i].bytes > h[j].bytes || h[i].bytes == h[j].bytes && h[i].lru.Len() > h[j].lru.Len()
}
func (h tenantHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *tenantHeap) Push(x any) {
	t := x.(*tenantLRU)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *tenantHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}

// entry is a record and the time the store forgets it, which for a cache can
// be earlier than the record's own ExpiresAt.
type entry struct {
	rec      Record
	deadline time.Time
	size     int
}

func (e *entry) live(now time.Time) bool { return e.rec.Live(now) && now.Before(e.deadline) }

// recordSize is what a record counts against the byte bound.
func recordSize(r *Record) int {
	return recordOverhead + len(r.Key.Tenant) + len(r.Key.Tool) + len(r.Key.Key) + len(r.Fingerprint) + len(r.Response)
}

// ErrRecordTooLarge is matched (errors.Is) by the error a MemoryStore
// returns for a completed record larger than its whole byte bound: keeping
// it would evict everything else and then itself, so it is refused instead
// of being reported stored. A caller stores something smaller in its place
// (the runtime stores a marker saying the call completed).
var ErrRecordTooLarge = errors.New("idempotency: record larger than the store's byte bound")

// RecordTooLargeError is the error for a record of Size bytes in a store
// bounded by Limit bytes.
type RecordTooLargeError struct{ Size, Limit int }

func (e *RecordTooLargeError) Error() string {
	return fmt.Sprintf("idempotency: a record of %d bytes exceeds the in-memory store's bound of %d bytes", e.Size, e.Limit)
}

func (e *RecordTooLargeError) Unwrap() error { return ErrRecordTooLarge }

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

// WithMaxBytes bounds the bytes of the records kept (values < 1 keep the
// default, DefaultMemoryMaxBytes).
func WithMaxBytes(n int) MemoryOption {
	return func(s *MemoryStore) {
		if n > 0 {
			s.maxBytes = n
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
	s := &MemoryStore{
		maxEntries: DefaultMemoryMaxEntries, maxBytes: DefaultMemoryMaxBytes,
		tenants: map[string]*tenantLRU{}, items: map[Key]*list.Element{},
	}
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
	return s.entries
}

// Bytes returns what the records held count against the byte bound.
func (s *MemoryStore) Bytes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
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

// touch makes el the most recently used record of its tenant.
func (s *MemoryStore) touch(el *list.Element) {
	s.tenants[el.Value.(*entry).rec.Key.Tenant].lru.MoveToFront(el)
}

// put stores e under its key as its tenant's most recently used entry
// (replacing el when not nil) and evicts beyond the bounds.
func (s *MemoryStore) put(el *list.Element, e *entry) {
	e.size = recordSize(&e.rec)
	if el != nil {
		t := s.tenants[e.rec.Key.Tenant]
		old := el.Value.(*entry).size
		t.bytes += e.size - old
		s.bytes += e.size - old
		el.Value = e
		t.lru.MoveToFront(el)
		heap.Fix(&s.bySize, t.index)
	} else {
		t := s.tenants[e.rec.Key.Tenant]
		if t == nil {
			t = &tenantLRU{lru: list.New()}
			s.tenants[e.rec.Key.Tenant] = t
			heap.Push(&s.bySize, t)
		}
		s.items[e.rec.Key] = t.lru.PushFront(e)
		t.bytes += e.size
		s.bytes += e.size
		s.entries++
		heap.Fix(&s.bySize, t.index)
	}
	// The record just written is never the one evicted: a write the store
	// reports done must be held (callers refuse a record larger than the
	// whole bound before it gets here).
	kept := s.items[e.rec.Key]
	for s.entries > s.maxEntries || s.bytes > s.maxBytes {
		t := s.largestTenant(kept)
		if t == nil {
			break
		}
		s.remove(t.lru.Back())
	}
}

// largestTenant is the tenant holding the most bytes (ties: the most
// records), leaving out a tenant whose only record is kept: then the
// largest of the others, one of the heap root's children.
func (s *MemoryStore) largestTenant(kept *list.Element) *tenantLRU {
	h := s.bySize
	if len(h) == 0 {
		return nil
	}
	if top := h[0]; top.lru.Len() != 1 || top.lru.Back() != kept {
		return top
	}
	switch {
	case len(h) == 1:
		return nil
	case len(h) == 2 || h.Less(1, 2):
		return h[1]
	}
	return h[2]
}

func (s *MemoryStore) remove(el *list.Element) {
	e := el.Value.(*entry)
	t := s.tenants[e.rec.Key.Tenant]
	t.lru.Remove(el)
	t.bytes -= e.size
	if t.lru.Len() == 0 {
		delete(s.tenants, e.rec.Key.Tenant)
		heap.Remove(&s.bySize, t.index)
	} else {
		heap.Fix(&s.bySize, t.index)
	}
	delete(s.items, e.rec.Key)
	s.bytes -= e.size
	s.entries--
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
		s.touch(el)
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
	if n := recordSize(&rec); n > s.maxBytes {
		return nil, &RecordTooLargeError{Size: n, Limit: s.maxBytes}
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
	s.touch(el)
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
	if recordSize(&cp) > s.maxBytes {
		// A cache skips what it cannot hold (the record is safe where it
		// came from) and forgets what it held for the key.
		if el, ok := s.items[cp.Key]; ok {
			s.remove(el)
		}
		return nil
	}
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
