package runtime

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// defaultProposalTTL is how long a proposal can be applied after it was made:
// long enough for a person to read it, short enough that the world it was
// checked against is still recognisable.
const defaultProposalTTL = 15 * time.Minute

// defaultElicitationTimeout is how long a user has to answer a confirmation:
// the idempotency claim is held this long (plus the normal lease) while an
// in-call confirmation waits, and a round-trip confirmation expires after it.
const defaultElicitationTimeout = 5 * time.Minute

// minSigningKeyLength is the shortest key WithSecrets accepts, in bytes
// (the HMAC-SHA256 block of security).
const minSigningKeyLength = 32

// Option configures Register. The options that configure NewPreparer as
// well are PreparerOptions.
type Option interface{ apply(*config) }

// PreparerOption configures NewPreparer as well as Register: the options
// that change what decode, validate and enrich do (WithLimits, WithClock,
// WithRand, WithSecrets, WithVocabulary, WithoutRequestCheck, WithLogger).
// An option only a tool call uses (an observer, a policy, idempotency,
// proposals, previews, an error hook) is an Option only, so passing it to
// NewPreparer does not compile rather than being ignored.
type PreparerOption interface {
	Option
	preparerOption()
}

// option is an Option that only Register uses.
type option func(*config)

func (o option) apply(c *config) { o(c) }

// sharedOption is an Option that NewPreparer uses too.
type sharedOption func(*config)

func (o sharedOption) apply(c *config) { o(c) }
func (sharedOption) preparerOption()   {}

type config struct {
	// noRequestCheck: WithoutRequestCheck.
	noRequestCheck bool
	limits         impl.Limits
	clock          func() time.Time
	rand           io.Reader
	idem           idempotency.Store
	idemSet        bool
	idemTTL        time.Duration
	idemLease      time.Duration
	// claimInHandler: IdempotencyOptions.ClaimInHandler.
	claimInHandler bool
	// maxStoredResponse bounds the result bytes kept for one replay.
	maxStoredResponse int
	proposals         proposal.Store
	proposalTTL       time.Duration
	policy            func(ctx context.Context, pc PolicyCall) Confirmation
	rcFunc            func(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool)
	rcSet             bool // WithRequestContextFunc was given (perhaps nil)
	errorHook         func(ctx context.Context, tool string, req proto.Message, e *impl.ErrorEntry)
	logger            *slog.Logger
	// elicitTimeout bounds a confirmation: in-call waits and round-trip state.
	elicitTimeout time.Duration
	// elicitQuotas bound the in-call confirmations waiting (quota_answers.go).
	elicitQuotas elicitationQuotas
	// signingKey signs confirmation state that travels through the client;
	// signingKeyErr is set when the configured key is unusable.
	signingKey    []byte
	signingKeyErr error
	lossPreview   func(ctx context.Context, tool string, req proto.Message) (string, error)
	statePreview  func(ctx context.Context, tool string, req proto.Message) (state EntityState, ok bool, err error)
	observer      Observer
	domainCheck   func(ctx context.Context, tool string, req proto.Message) (preview map[string]any, err error)
	// idSecret keys request-scoped IDs (nil: the process's random secret);
	// idSecretErr is set when the configured secret is unusable.
	idSecret    []byte
	idSecretErr error
	// vocabs are the live vocabularies by name (WithVocabulary); vocabErr
	// is set when an option was unusable.
	vocabs   map[string]*Vocabulary
	vocabErr error
	// namePrefix and nameSuffix wrap every tool name (WithToolNames).
	namePrefix, nameSuffix string
	// compact: tools/list carries the compact surface (WithCompactList).
	compact bool

	// opWait and opPoll bound the operations tool's waits
	// (WithOperationWait); zero for the defaults.
	opWait, opPoll time.Duration
}

// defaultMaxStoredResponse is the largest result kept for a replay.
const defaultMaxStoredResponse = 1 << 20

func newConfig(opts []Option) *config {
	c := &config{
		clock: time.Now,
		rand:  rand.Reader,
		elicitQuotas: elicitationQuotas{
			perTenant: defaultMaxElicitationsPerTenant, perPrincipal: defaultMaxElicitationsPerPrincipal,
		},
		idemTTL:   idempotency.DefaultCacheTTL,
		idemLease: idempotency.DefaultLease,

		maxStoredResponse: defaultMaxStoredResponse,
		proposalTTL:       defaultProposalTTL,

		elicitTimeout: defaultElicitationTimeout,
	}
	for _, o := range opts {
		if o != nil {
			o.apply(c)
		}
	}
	if c.signingKey == nil && c.signingKeyErr == nil {
		// A fresh key per registry: state signed by one process verifies in
		// that process only. Never from c.rand, which tests make predictable.
		c.signingKey = make([]byte, minSigningKeyLength)
		if _, err := rand.Read(c.signingKey); err != nil {
			c.signingKeyErr = fmt.Errorf("generate signing key: %w", err)
		}
	}
	c.limits = c.limits.WithDefaults()
	if c.rand != rand.Reader { // crypto/rand is safe for concurrent use
		c.rand = &lockedReader{r: c.rand}
	}
	if !c.idemSet {
		c.idem = idempotency.NewMemoryStore()
	}
	if c.proposals == nil {
		c.proposals = proposal.NewMemoryStore(proposal.WithClock(c.clock))
	}
	if c.logger == nil {
		c.logger = slog.Default() // stderr unless the program set another default
	}
	return c
}

// WithLimits bounds what the strict decoder accepts (payload size, depth,
// string and array lengths); zero fields keep their defaults.
func WithLimits(l Limits) PreparerOption {
	return sharedOption(func(c *config) { c.limits = impl.Limits(l) })
}

// WithClock replaces time.Now for generated timestamps, idempotency windows and
// proposal expiry, so tests and replays are deterministic.
func WithClock(now func() time.Time) PreparerOption {
	return sharedOption(func(c *config) {
		if now != nil {
			c.clock = now
		}
	})
}

// WithRand replaces crypto/rand as the source of generated IDs and trace IDs,
// so tests can pin them.
func WithRand(r io.Reader) PreparerOption {
	return sharedOption(func(c *config) {
		if r != nil {
			c.rand = r
		}
	})
}

// IdempotencyOptions configure client_request_id handling (WithIdempotency).
type IdempotencyOptions struct {
	// Store is where claims and results are kept (default: a private
	// in-memory store). Pass a shared store (Redis, PostgreSQL, layered)
	// when the server runs on more than one instance.
	Store idempotency.Store
	// Disable turns idempotency off: calls are not claimed and results not
	// kept.
	Disable bool
	// TTL is how long a completed result replays (default 24 h).
	TTL time.Duration
	// Lease is how long a claimed client_request_id stays "in progress"
	// (default idempotency.DefaultLease, 30 s): a retry meanwhile is
	// answered IDEMPOTENCY_IN_PROGRESS, and a claim whose call crashed is
	// taken over by the first retry after it. Make it longer than the
	// slowest handler.
	Lease time.Duration
	// MaxStoredResponse bounds the result bytes kept for a replay (default
	// 1 MiB). A larger result is answered in full but stored as an error
	// that says the call completed and its result was too large to keep,
	// so a retry never runs the call again.
	MaxStoredResponse int
	// ClaimInHandler lets the handler claim the key of a write that needs
	// no confirmation inside its own transaction (Outcome.ClaimInTx), so
	// the claim, the write and the recorded outcome commit together: one
	// commit per keyed write, and a crash before it leaves no claim behind.
	// Set it for handlers that do (the handler claims through the
	// authoritative store before writing). A business error rolls the
	// claim back; the runtime then claims the key to record the error. A
	// handler that answers a keyed write without recording it is logged
	// once and its tool's keys are claimed by the runtime from then on.
	ClaimInHandler bool
}

// WithIdempotency configures client_request_id handling. Zero fields keep
// what an earlier WithIdempotency, or the default, set.
func WithIdempotency(o IdempotencyOptions) Option {
	return option(func(c *config) {
		switch {
		case o.Disable:
			c.idem, c.idemSet = nil, true
		case o.Store != nil:
			c.idem, c.idemSet = o.Store, true
		}
		if o.TTL > 0 {
			c.idemTTL = o.TTL
		}
		if o.Lease > 0 {
			c.idemLease = o.Lease
		}
		if o.MaxStoredResponse > 0 {
			c.maxStoredResponse = o.MaxStoredResponse
		}
		if o.ClaimInHandler {
			c.claimInHandler = true
		}
	})
}

// WithProposals sets where proposals wait for apply_proposal (default: a
// private in-memory store; use a shared store when the server runs on more
// than one instance) and how long one can be applied (default 15 min). A
// nil store or a zero ttl keeps what an earlier WithProposals, or the
// default, set.
func WithProposals(s proposal.Store, ttl time.Duration) Option {
	return option(func(c *config) {
		if s != nil {
			c.proposals = s
		}
		if ttl > 0 {
			c.proposalTTL = ttl
		}
	})
}

// WithPolicy decides the confirmation of each call, e.g. letting admins commit
// destructive writes directly or forcing proposals for one tenant. Returning
// "" keeps the tool's default.
func WithPolicy(fn func(ctx context.Context, pc PolicyCall) Confirmation) Option {
	return option(func(c *config) { c.policy = fn })
}

// WithRequestContextFunc derives the request context (tenant, principal,
// correlation, ...) of a call, e.g. from the request's _meta or the session.
// When set it replaces the default lookup, RequestContextFrom(ctx); it may call
// that itself. Returning false means the call has no request context.
func WithRequestContextFunc(fn func(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool)) Option {
	return option(func(c *config) { c.rcFunc, c.rcSet = fn, true })
}

// WithErrorHook lets the domain enrich every error entry before it is sent
// (add suggestions, hints, similar entities). req is the decoded request, or
// nil when the call failed before a request existed.
func WithErrorHook(fn func(ctx context.Context, tool string, req proto.Message, e *ErrorEntry)) Option {
	return option(func(c *config) { c.errorHook = userErrorHook(fn) })
}

// WithLogger receives internal errors and panics with their trace_id, since
// the agent only ever sees the trace_id, and every failure the caller is not
// told in full (an outcome that could not be recorded, a store that failed).
// Default: slog.Default(), which writes to stderr unless the program set
// another default logger; pass slog.New(slog.DiscardHandler) to drop them.
func WithLogger(l *slog.Logger) PreparerOption { return sharedOption(func(c *config) { c.logger = l }) }

// WithElicitationTimeout sets how long a user has to confirm a write
// (default 5 min). An in-call confirmation still unanswered then is treated as
// declined; a round-trip confirmation answered later is refused as expired.
// The idempotency claim of a call waiting for confirmation is held for this
// long plus the normal lease, so a retry meanwhile waits instead of writing
// twice.
func WithElicitationTimeout(d time.Duration) Option {
	return option(func(c *config) {
		if d > 0 {
			c.elicitTimeout = d
		}
	})
}

// WithSecrets sets the secrets every instance of a server must share; nil
// keeps the default of either.
//
// idSecret keys REQUEST_SCOPED IDs: each is an HMAC-SHA256 of tenant,
// principal, tool and client_request_id (the scope of the call's key) under
// this secret, so no one without it can compute another tenant's IDs, and
// two principals of a tenant who use the same key get IDs of their own. Give every instance of a server, and every restart
// of it, the same secret of at least 32 random bytes when a retry may reach
// another process after the idempotency records were lost: by default each
// process makes its own random secret, and a retry that reaches a different
// process gets a different ID.
//
// signingKey is the HMAC-SHA256 key that signs the confirmation state a
// client carries between the rounds of an input-request round trip
// (protocol 2026-07-28). Give every instance of a server the same secret
// key of at least 32 random bytes when a retried call may reach another
// instance; by default each registry makes its own random key.
//
// Both are checked by one rule (impl.CheckSecret, the same as the
// example servers' runtime/secret): white space only, under 32 bytes,
// fewer than 8 distinct byte values or a short repeated pattern makes
// Register fail with the reason, rather than key or sign with a guessable
// secret.
func WithSecrets(idSecret, signingKey []byte) PreparerOption {
	return sharedOption(func(c *config) {
		if idSecret != nil {
			if err := impl.CheckSecret(idSecret); err != nil {
				c.idSecret, c.idSecretErr = nil, fmt.Errorf("ID secret refused: %w", err)
			} else {
				c.idSecret, c.idSecretErr = append([]byte(nil), idSecret...), nil
			}
		}
		if signingKey != nil {
			if err := impl.CheckSecret(signingKey); err != nil {
				c.signingKey, c.signingKeyErr = nil, fmt.Errorf("signing key refused: %w", err)
			} else {
				c.signingKey, c.signingKeyErr = append([]byte(nil), signingKey...), nil
			}
		}
	})
}

// lockedReader serialises a caller-supplied random source, which the
// concurrent handlers share.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// Default quotas of in-call confirmations waiting at once, per registered
// service. Each wait holds its idempotency claim for the elicitation
// timeout, so without a bound one caller could hold many.
const (
	defaultMaxElicitationsPerTenant    = 100
	defaultMaxElicitationsPerPrincipal = 10
)

// elicitationQuotas bound the in-call confirmations of one tenant and of
// one principal waiting at once.
type elicitationQuotas struct {
	perTenant, perPrincipal int
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
