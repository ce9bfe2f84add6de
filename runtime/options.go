package runtime

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// DefaultProposalTTL is how long a proposal can be applied after it was made:
// long enough for a person to read it, short enough that the world it was
// checked against is still recognisable.
const defaultProposalTTL = 15 * time.Minute

// DefaultElicitationTimeout is how long a user has to answer a confirmation:
// the idempotency claim is held this long (plus the normal lease) while an
// in-call confirmation waits, and a round-trip confirmation expires after it.
const defaultElicitationTimeout = 5 * time.Minute

// MinSigningKeyLength is the shortest key WithSigningKey accepts, in bytes
// (the HMAC-SHA256 block of security).
const minSigningKeyLength = 32

// LossPreviewFunc names, in a short phrase, what a write would remove or
// overwrite ("element OrderService and 2 relationships"), for the user who
// confirms it. req is the complete, enriched request. Return "" when nothing
// is lost; an error the domain wrote for agents (NotFound, FailedPrecondition,
// *ErrorEntry) answers the call instead of a confirmation.
type LossPreviewFunc func(ctx context.Context, tool string, req proto.Message) (string, error)

// Option configures Register.
type Option func(*config)

type config struct {
	// noRequestCheck: WithoutRequestCheck.
	noRequestCheck bool
	limits         Limits
	clock          func() time.Time
	rand           io.Reader
	idem           idempotency.Store
	idemSet        bool
	idemTTL        time.Duration
	idemLease      time.Duration
	// maxStoredResponse bounds the result bytes kept for one replay.
	maxStoredResponse int
	proposals         proposal.Store
	proposalTTL       time.Duration
	policy            func(ctx context.Context, pc PolicyCall) Confirmation
	rcFunc            func(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool)
	rcSet             bool // WithRequestContextFunc was given (perhaps nil)
	errorHook         func(ctx context.Context, tool string, req proto.Message, e *ErrorEntry)
	logger            *slog.Logger
	// elicitTimeout bounds a confirmation: in-call waits and round-trip state.
	elicitTimeout time.Duration
	// signingKey signs confirmation state that travels through the client;
	// signingKeyErr is set when the configured key is unusable.
	signingKey    []byte
	signingKeyErr error
	lossPreview   LossPreviewFunc
	statePreview  StatePreviewFunc
	observer      Observer
	domainCheck   DomainCheckFunc
	// idSecret keys request-scoped IDs (nil: the process's random secret);
	// idSecretErr is set when the configured secret is unusable.
	idSecret    []byte
	idSecretErr error
	// vocabs are the live vocabularies by name (WithVocabulary); vocabErr
	// is set when an option was unusable.
	vocabs   map[string]*Vocabulary
	vocabErr error
}

// DefaultMaxStoredResponse is the largest result kept for a replay.
const defaultMaxStoredResponse = 1 << 20

func newConfig(opts []Option) *config {
	c := &config{
		clock:     time.Now,
		rand:      rand.Reader,
		idemTTL:   idempotency.DefaultCacheTTL,
		idemLease: idempotency.DefaultLease,

		maxStoredResponse: defaultMaxStoredResponse,
		proposalTTL:       defaultProposalTTL,

		elicitTimeout: defaultElicitationTimeout,
	}
	for _, o := range opts {
		if o != nil {
			o(c)
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
func WithLimits(l Limits) Option { return func(c *config) { c.limits = l } }

// WithClock replaces time.Now for generated timestamps, idempotency windows and
// proposal expiry, so tests and replays are deterministic.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithRand replaces crypto/rand as the source of generated IDs and trace IDs,
// so tests can pin them.
func WithRand(r io.Reader) Option {
	return func(c *config) {
		if r != nil {
			c.rand = r
		}
	}
}

// WithIdempotencyStore sets where client_request_id claims and results are
// kept (default: a private in-memory store). Pass a shared store (Redis,
// PostgreSQL, layered) when the server runs on more than one instance; nil
// turns idempotency off.
func WithIdempotencyStore(s idempotency.Store) Option {
	return func(c *config) { c.idem, c.idemSet = s, true }
}

// WithIdempotencyTTL sets how long a completed result replays (default 24 h).
func WithIdempotencyTTL(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.idemTTL = d
		}
	}
}

// WithIdempotencyLease sets how long a claimed client_request_id stays "in
// progress" (default idempotency.DefaultLease, 30 s): a retry meanwhile is
// answered IDEMPOTENCY_IN_PROGRESS, and a claim whose call crashed is taken
// over by the first retry after it. Make it longer than the slowest handler.
func WithIdempotencyLease(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.idemLease = d
		}
	}
}

// WithMaxStoredResponse bounds the result bytes kept for a replay (default
// DefaultMaxStoredResponse, 1 MiB). A larger result is answered in full but
// stored as an error that says the call completed and its result was too
// large to keep, so a retry never runs the call again.
func WithMaxStoredResponse(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxStoredResponse = n
		}
	}
}

// WithProposalStore sets where proposals wait for apply_proposal (default: a
// private in-memory store). Use a shared store when the server runs on more
// than one instance.
func WithProposalStore(s proposal.Store) Option {
	return func(c *config) { c.proposals = s }
}

// WithProposalTTL sets how long a proposal can be applied (default 15 min).
func WithProposalTTL(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.proposalTTL = d
		}
	}
}

// WithPolicy decides the confirmation of each call, e.g. letting admins commit
// destructive writes directly or forcing proposals for one tenant. Returning
// "" keeps the tool's default.
func WithPolicy(fn func(ctx context.Context, pc PolicyCall) Confirmation) Option {
	return func(c *config) { c.policy = fn }
}

// WithRequestContextFunc derives the request context (tenant, principal,
// correlation, ...) of a call, e.g. from the request's _meta or the session.
// When set it replaces the default lookup, RequestContextFrom(ctx); it may call
// that itself. Returning false means the call has no request context.
func WithRequestContextFunc(fn func(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool)) Option {
	return func(c *config) { c.rcFunc, c.rcSet = fn, true }
}

// WithErrorHook lets the domain enrich every error entry before it is sent
// (add suggestions, hints, similar entities). req is the decoded request, or
// nil when the call failed before a request existed.
func WithErrorHook(fn func(ctx context.Context, tool string, req proto.Message, e *ErrorEntry)) Option {
	return func(c *config) { c.errorHook = fn }
}

// WithLogger receives internal errors and panics with their trace_id, since
// the agent only ever sees the trace_id, and every failure the caller is not
// told in full (an outcome that could not be recorded, a store that failed).
// Default: slog.Default(), which writes to stderr unless the program set
// another default logger; pass slog.New(slog.DiscardHandler) to drop them.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithElicitationTimeout sets how long a user has to confirm a write
// (default 5 min). An in-call confirmation still unanswered then is treated as
// declined; a round-trip confirmation answered later is refused as expired.
// The idempotency claim of a call waiting for confirmation is held for this
// long plus the normal lease, so a retry meanwhile waits instead of writing
// twice.
func WithElicitationTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.elicitTimeout = d
		}
	}
}

// WithSigningKey sets the HMAC-SHA256 key that signs the confirmation state a
// client carries between the rounds of an input-request round trip (protocol
// 2026-07-28). Give every instance of a server the same secret key of at
// least MinSigningKeyLength random bytes when a retried call may reach another
// instance; by default each registry makes its own random key. A shorter key
// makes every round-trip confirmation fail with INTERNAL (and a logged cause)
// rather than sign with a guessable key.
func WithSigningKey(key []byte) Option {
	return func(c *config) {
		if len(key) < minSigningKeyLength {
			c.signingKey, c.signingKeyErr = nil, fmt.Errorf("signing key has %d bytes, want at least %d", len(key), minSigningKeyLength)
			return
		}
		c.signingKey, c.signingKeyErr = append([]byte(nil), key...), nil
	}
}

// WithLossPreview names what an UPDATE, DELETE or destructive write would
// lose; the text appears in proposals ("will_lose") and in the confirmation
// message the user answers. A generated handler that implements
// PreviewLoss(ctx, tool, req) can be passed as h.PreviewLoss.
func WithLossPreview(fn LossPreviewFunc) Option {
	return func(c *config) { c.lossPreview = fn }
}

// WithIDSecret sets the secret that keys REQUEST_SCOPED IDs: each is an
// HMAC-SHA256 of tenant, tool and client_request_id under this secret, so
// no one without it can compute another tenant's IDs. Give every instance
// of a server, and every restart of it, the same secret of at least
// MinIDSecretLength random bytes when a retry may reach another process
// after the idempotency records were lost: by default each process makes
// its own random secret, and a retry that reaches a different process gets
// a different ID. Register fails on a shorter secret.
func WithIDSecret(secret []byte) Option {
	return func(c *config) {
		if len(secret) < mcpwriteimpl.MinIDSecretLength {
			c.idSecret, c.idSecretErr = nil, fmt.Errorf("ID secret has %d bytes, want at least %d", len(secret), mcpwriteimpl.MinIDSecretLength)
			return
		}
		c.idSecret, c.idSecretErr = append([]byte(nil), secret...), nil
	}
}
