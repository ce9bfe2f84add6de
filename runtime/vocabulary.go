package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// defaultVocabularyTTL is how long a tenant's vocabulary values are reused
// before the resolver is asked again, unless Invalidate drops them sooner.
const defaultVocabularyTTL = time.Minute

// maxCachedTenants bounds a vocabulary's cache: past it, storing a tenant's
// values first drops every expired entry.
const maxCachedTenants = 4096

// VocabularyValue is one value of a live vocabulary, as a resolver answers
// it for a tenant.
type VocabularyValue struct {
	// Value is the canonical value, the one the request carries.
	Value string `json:"value"`
	// Aliases are other names the agent may send for it; the decoder
	// stores Value instead. Optional.
	Aliases []string `json:"aliases,omitempty"`
	// Description says what the value means, for agents. Optional.
	Description string `json:"description,omitempty"`
}

// Vocabulary is a live vocabulary: the values an (mcpwrite.v1.field).agent
// vocabulary field accepts, answered per tenant by a resolver while the
// server runs. Pass it to Register with WithVocabulary; one Vocabulary may
// serve several services.
//
// Cache policy: a tenant's values are kept for the TTL (one minute
// unless VocabularyOptions.TTL says otherwise) from the moment the resolver answered
// them; the first call after that asks again. Call Invalidate(tenant) right
// after registering, renaming or removing a value of that tenant, so its
// next call sees it at once; InvalidateAll drops every tenant's values. A
// failed resolver call is never cached. A resolver answer that started
// before an Invalidate is used for its own call but not kept.
type Vocabulary struct {
	name  string
	fn    func(ctx context.Context, tenant string) ([]VocabularyValue, error)
	ttl   time.Duration
	clock func() time.Time

	// perPrincipal: the values depend on the acting principal too
	// (VocabularyOptions.PerPrincipal); the cache is keyed by tenant and principal.
	perPrincipal bool

	mu sync.Mutex
	// tenants holds each tenant's values by principal ("" unless
	// perPrincipal).
	tenants map[string]map[string]vocabEntry
	// epoch counts invalidations; an answer is kept only when no
	// invalidation happened while it was being computed.
	epoch uint64
}

type vocabEntry struct {
	set     *vocabSet
	expires time.Time
}

// VocabularyOptions tune NewVocabulary; zero fields keep their defaults.
type VocabularyOptions struct {
	// TTL is how long a tenant's values are reused (default one minute).
	// Negative keeps nothing: every call asks the resolver.
	TTL time.Duration
	// PerPrincipal says the values depend on the acting principal as well
	// as the tenant (a user's own types beside the tenant's): the resolver
	// reads the principal from ctx (RequestContextFrom), and the cache keeps
	// each principal's values apart. Invalidate(tenant) still drops every
	// principal's values of the tenant.
	PerPrincipal bool
	// Clock replaces time.Now for the cache's expiry, so tests can move
	// time.
	Clock func() time.Time
}

// NewVocabulary returns the live vocabulary name (as the proto annotation
// spells it, e.g. "entity_type") whose values fn answers per tenant (""
// when the call has no request context). fn's ctx is the call's context,
// with its RequestContext. An error of fn is reported as a resolver's error
// is: a gRPC status or *ErrorEntry the domain wrote reaches the agent,
// anything else is INTERNAL. Of opts, the non-zero fields apply, later
// ones over earlier ones.
func NewVocabulary(name string, fn func(ctx context.Context, tenant string) ([]VocabularyValue, error), opts ...VocabularyOptions) *Vocabulary {
	v := &Vocabulary{name: name, fn: fn, ttl: defaultVocabularyTTL, clock: time.Now, tenants: map[string]map[string]vocabEntry{}}
	for _, o := range opts {
		switch {
		case o.TTL < 0:
			v.ttl = 0
		case o.TTL > 0:
			v.ttl = o.TTL
		}
		if o.PerPrincipal {
			v.perPrincipal = true
		}
		if o.Clock != nil {
			v.clock = o.Clock
		}
	}
	return v
}

// Invalidate drops the cached values of tenant (of every principal): its
// next call asks the resolver. Call it after registering a value for the
// tenant.
func (v *Vocabulary) Invalidate(tenant string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.tenants, tenant)
	v.epoch++
}

// InvalidateAll drops the cached values of every tenant.
func (v *Vocabulary) InvalidateAll() {
	v.mu.Lock()
	defer v.mu.Unlock()
	clear(v.tenants)
	v.epoch++
}

// Values returns tenant's values (and, with VocabularyOptions.PerPrincipal, those
// of the principal ctx carries), from the cache while they are fresh, in
// the resolver's order with duplicates and empty values left out.
func (v *Vocabulary) Values(ctx context.Context, tenant string) ([]VocabularyValue, error) {
	s, err := v.load(ctx, tenant)
	if err != nil {
		return nil, err
	}
	out := make([]VocabularyValue, len(s.values))
	copy(out, s.values)
	return out, nil
}

// load answers tenant's lookup index, from the cache or the resolver.
func (v *Vocabulary) load(ctx context.Context, tenant string) (*vocabSet, error) {
	principal := ""
	if rc, ok := RequestContextFrom(ctx); ok && v.perPrincipal && rc.TenantID == tenant {
		principal = rc.PrincipalID
	}
	v.mu.Lock()
	now := v.clock()
	if e, ok := v.tenants[tenant][principal]; ok && now.Before(e.expires) {
		v.mu.Unlock()
		return e.set, nil
	}
	epoch := v.epoch
	v.mu.Unlock()
	if v.fn == nil {
		return nil, fmt.Errorf("vocabulary %q has no resolver", v.name)
	}
	vals, err := v.fn(ctx, tenant)
	if err != nil {
		return nil, err
	}
	s := newVocabSet(vals)
	if v.ttl > 0 {
		v.mu.Lock()
		if v.epoch == epoch {
			if len(v.tenants) >= maxCachedTenants {
				v.sweep(now)
			}
			if v.tenants[tenant] == nil {
				v.tenants[tenant] = map[string]vocabEntry{}
			}
			v.tenants[tenant][principal] = vocabEntry{set: s, expires: v.clock().Add(v.ttl)}
		}
		v.mu.Unlock()
	}
	return s, nil
}

// sweep drops every expired entry; v.mu is held.
func (v *Vocabulary) sweep(now time.Time) {
	for t, byPrincipal := range v.tenants {
		for p, e := range byPrincipal {
			if !now.Before(e.expires) {
				delete(byPrincipal, p)
			}
		}
		if len(byPrincipal) == 0 {
			delete(v.tenants, t)
		}
	}
}

// vocabSet is the lookup index of one tenant's values.
type vocabSet struct {
	values []VocabularyValue
	listed []string       // canonical values, resolver order
	exact  map[string]int // value, then alias -> index
	index  map[string]int // normalised value, then alias -> index
	names  *suggest.Index // did-you-mean over the values (aliases match too)
}

// newVocabSet indexes vals. Matching is exact on values, then on aliases,
// then case- and separator-insensitive (suggest.Normalize) in the same
// order; on a collision the earlier rule and the earlier value win.
func newVocabSet(vals []VocabularyValue) *vocabSet {
	s := &vocabSet{exact: map[string]int{}, index: map[string]int{}}
	for _, v := range vals {
		if _, dup := s.exact[v.Value]; dup || v.Value == "" {
			continue
		}
		s.exact[v.Value] = len(s.values)
		s.values = append(s.values, VocabularyValue{Value: v.Value, Aliases: append([]string(nil), v.Aliases...), Description: v.Description})
		s.listed = append(s.listed, v.Value)
	}
	put := func(m map[string]int, k string, i int) {
		if _, taken := m[k]; !taken && k != "" {
			m[k] = i
		}
	}
	cands := make([]suggest.Candidate, len(s.values))
	for i, v := range s.values {
		for _, a := range v.Aliases {
			put(s.exact, a, i)
		}
		cands[i] = suggest.Candidate{Name: v.Value, Also: v.Aliases}
	}
	for i, v := range s.values {
		put(s.index, suggest.Normalize(v.Value), i)
	}
	for i, v := range s.values {
		for _, a := range v.Aliases {
			put(s.index, suggest.Normalize(a), i)
		}
	}
	s.names = suggest.NewIndex(cands)
	return s
}

// lookup returns the canonical value text stands for.
func (s *vocabSet) lookup(text string) (string, bool) {
	if i, ok := s.exact[text]; ok {
		return s.values[i].Value, true
	}
	if len(text) > suggest.MaxInputLen {
		return "", false
	}
	if i, ok := s.index[suggest.Normalize(text)]; ok {
		return s.values[i].Value, true
	}
	return "", false
}
