package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
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

// WithVocabulary serves the live vocabulary v to the tools whose fields
// take its values ((mcpwrite.v1.field).agent.vocabulary with v's name).
// Register fails when a tool needs a vocabulary no option serves, or when
// two options serve the same name.
func WithVocabulary(v *Vocabulary) PreparerOption {
	return sharedOption(func(c *config) {
		switch {
		case v == nil:
			c.vocabErr = errors.New("WithVocabulary(nil)")
		case v.fn == nil:
			c.vocabErr = fmt.Errorf("WithVocabulary: vocabulary %q has a nil resolver", v.name)
		case c.vocabs[v.name] != nil && c.vocabs[v.name] != v:
			c.vocabErr = fmt.Errorf("WithVocabulary: two vocabularies are named %q", v.name)
		default:
			if c.vocabs == nil {
				c.vocabs = map[string]*Vocabulary{}
			}
			c.vocabs[v.name] = v
		}
	})
}

// checkVocabularies fails when a tool takes values of a vocabulary that no
// WithVocabulary serves.
func (r *registry) checkVocabularies() error {
	if r.cfg.vocabErr != nil {
		return r.cfg.vocabErr
	}
	for _, name := range r.order {
		for _, f := range r.tools[name].doc.Vocabularies {
			if r.cfg.vocabs[f.Vocabulary] == nil {
				return fmt.Errorf("tool %q: field %q takes values of the vocabulary %q, which no option serves; pass runtime.WithVocabulary(runtime.NewVocabulary(%q, fn)) to Register",
					name, f.Field, f.Vocabulary, f.Vocabulary)
			}
		}
	}
	return nil
}

// listedBy names the tool that lists vocabulary name: its discovery tool,
// else the schema tool.
func (r *registry) listedBy(name string) string {
	for _, t := range r.svc.VocabularyTools {
		if t.Vocabulary == name {
			return t.Tool
		}
	}
	return r.svc.SchemaTool
}

// callVocabularies are the vocabularies of one call: each is loaded for
// the call's tenant at most once.
type callVocabularies struct {
	r      *registry
	ctx    context.Context
	tenant string
	sets   map[string]*vocabSet
	// failure is the first resolver error, answered instead of the
	// decoder's problems.
	failure error
}

// newCallVocabularies binds the registry's vocabularies to a call.
// Without vocabularies it is nil: Register refused any tool that needs one.
func (r *registry) newCallVocabularies(ctx context.Context, rc RequestContext) *callVocabularies {
	if len(r.cfg.vocabs) == 0 {
		return nil
	}
	return &callVocabularies{r: r, ctx: ctx, tenant: rc.TenantID}
}

func (cv *callVocabularies) set(name string) (*vocabSet, error) {
	if s, ok := cv.sets[name]; ok {
		return s, nil
	}
	v := cv.r.cfg.vocabs[name]
	if v == nil {
		return nil, fmt.Errorf("no vocabulary %q is served (runtime.WithVocabulary)", name)
	}
	s, err := v.load(cv.ctx, cv.tenant)
	if err != nil {
		return nil, err
	}
	if cv.sets == nil {
		cv.sets = map[string]*vocabSet{}
	}
	cv.sets[name] = s
	return s, nil
}

// LookupVocabulary implements mcpwriteimpl.VocabularyLookup for
// Decoder.Vocabulary: a value or one of its aliases (exactly, else ignoring
// case and separators) is returned as the canonical value. Anything else is
// INVALID_ENUM_VALUE with did_you_mean over the tenant's values and the
// values as valid_values. A vocabulary that cannot be read is kept as the
// call's failure, answered instead of the decoder's problems.
func (cv *callVocabularies) LookupVocabulary(d *mcpwriteimpl.Decoder, key, name, s string) (string, *ErrorEntry, bool) {
	set, err := cv.set(name)
	if err != nil {
		if cv.failure == nil {
			cv.failure = (&mcpwriteimpl.Call{}).ResolverError(d.Path(key), err)
		}
		return "", nil, false
	}
	if c, ok := set.lookup(s); ok {
		return c, nil, true
	}
	field := key
	if field == "" {
		field = d.Path("")
	}
	sg := &Suggestions{
		ValidValues: mcpwriteimpl.BoundList(set.listed),
		Hint:        fmt.Sprintf("the %s values of this tenant; %s lists them", name, cv.r.listedBy(name)),
	}
	if len(set.listed) > mcpwriteimpl.MaxListed {
		sg.Hint += fmt.Sprintf(" (showing %d of %d values)", mcpwriteimpl.MaxListed, len(set.listed))
	}
	if len(set.listed) == 0 {
		sg.Hint = fmt.Sprintf("this tenant has no %s values yet", name)
	}
	sg.DidYouMean = set.names.Closest(s, mcpwriteimpl.MaxDidYouMean)
	msg := fmt.Sprintf("invalid value %s for %s", mcpwriteimpl.Excerpt(s), field)
	if len(sg.DidYouMean) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", sg.DidYouMean[0])
	}
	return "", &ErrorEntry{Code: mcpwriteimpl.CodeInvalidEnumValue, Message: msg, Suggestions: sg}, false
}

// lookup is cv as the decoder's VocabularyLookup: nil when cv is.
func (cv *callVocabularies) lookup() mcpwriteimpl.VocabularyLookup {
	if cv == nil {
		return nil
	}
	return cv
}

// vocabularyListing is what get_write_schema adds for a tool with
// vocabulary fields: each field with its vocabulary's values for the
// caller's tenant.
func (r *registry) vocabularyListing(ctx context.Context, fields []schemadoc.VocabularyField, tenant string) ([]object, error) {
	out := make([]object, 0, len(fields))
	for _, f := range fields {
		v := r.cfg.vocabs[f.Vocabulary]
		if v == nil {
			return nil, fmt.Errorf("no vocabulary %q is served (runtime.WithVocabulary)", f.Vocabulary)
		}
		s, err := v.load(ctx, tenant)
		if err != nil {
			return nil, (&mcpwriteimpl.Call{}).ResolverError(f.Field, err)
		}
		out = append(out, object{{"field", f.Field}, {"vocabulary", f.Vocabulary}, {"values", listValues(s)}})
	}
	return out, nil
}

// listValues renders a tenant's values for the agent.
func listValues(s *vocabSet) []object {
	out := make([]object, 0, len(s.values))
	for _, v := range s.values {
		o := object{{"value", v.Value}}
		if len(v.Aliases) > 0 {
			o = append(o, member{"aliases", v.Aliases})
		}
		if v.Description != "" {
			o = append(o, member{"description", v.Description})
		}
		out = append(out, o)
	}
	return out
}

// vocabularyToolSpecs are the read-only tools listing a live vocabulary's
// values for the caller's tenant.
func (r *registry) vocabularyToolSpecs() []toolSpec {
	var specs []toolSpec
	for _, t := range r.svc.VocabularyTools {
		specs = append(specs, toolSpec{&mcp.Tool{
			Name:        t.Tool,
			Description: t.Description,
			InputSchema: schemaJSON(objectSchema(nil)),
			OutputSchema: resultSchemaJSON(objectSchema(props{
				{"vocabulary", typeString},
				{"values", arraySchema(objectSchema(props{
					{"value", typeString}, {"aliases", arraySchema(typeString)}, {"description", typeString},
				}, "value"))},
			}, "vocabulary", "values")),
			Annotations: annotations("", schemadoc.Hints{ReadOnly: true, Idempotent: true}),
		}, r.vocabularyHandler(t)})
	}
	return specs
}

// vocabularyHandler lists one vocabulary's values for the caller's tenant.
func (r *registry) vocabularyHandler(t schemadoc.VocabularyTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, es := r.readArgs(arguments(req)); len(es) > 0 {
			return r.errorResult(ctx, t.Tool, nil, es), nil
		}
		rc, _ := r.requestContext(ctx, req)
		ctx = WithRequestContext(ctx, rc)
		v := r.cfg.vocabs[t.Vocabulary]
		if v == nil {
			es, _ := r.classify(ctx, t.Tool, fmt.Errorf("no vocabulary %q is served (runtime.WithVocabulary)", t.Vocabulary))
			return r.errorResult(ctx, t.Tool, nil, es), nil
		}
		s, err := v.load(ctx, rc.TenantID)
		if err != nil {
			es, _ := r.classify(ctx, t.Tool, (&mcpwriteimpl.Call{}).ResolverError("", err))
			return r.errorResult(ctx, t.Tool, nil, es), nil
		}
		o := object{{"vocabulary", t.Vocabulary}, {"values", listValues(s)}}
		return toolResult(r.render(ctx, t.Tool, o), false), nil
	}
}
