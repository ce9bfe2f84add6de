package runtime

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

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
//
// req is the request of the MCP library serving the call: a go-sdk
// *mcp.CallToolRequest on a server runtime/gosdk registers on (as
// mcphttp.RequestContextFromCall takes), or the library-neutral request
// StaticRequestContext reads on any server. A function of another library's
// request is refused when the service is registered, naming both types.
func WithRequestContextFunc[R any](fn func(ctx context.Context, req R) (RequestContext, bool)) Option {
	return option(func(c *config) {
		c.rcFunc, c.rcType, c.rcSet = nil, nil, true
		if fn == nil {
			return
		}
		c.rcType = reflect.TypeFor[R]()
		c.rcFunc = func(ctx context.Context, req *toolcall.Request) (RequestContext, bool) {
			if r, ok := any(req).(R); ok {
				return fn(ctx, r)
			}
			native, _ := req.Native.(R)
			return fn(ctx, native)
		}
	})
}

// neutralRequest is the type of the library-neutral request, which a
// WithRequestContextFunc function may take on any server.
var neutralRequest = reflect.TypeFor[*toolcall.Request]()

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

// WithBackendTimeout sets the deadline of the calls one adapter forwards,
// so each backend service has its own (default DefaultBackendTimeout;
// non-positive keeps the default).
func WithBackendTimeout(d time.Duration) AdapterOption { return impl.WithForwardTimeout(d) }

// WithCompactList lists the service's write and read tools compactly, for
// services with many methods: each tool's name, a one-line description and
// the hints that differ from the protocol's defaults, with an open object
// as input schema, no output schema and no _meta; the list's _meta carries
// one schema hash of all its compact tools (on a go-sdk server through a
// tools/list middleware Register adds once). The schema tool
// (get_write_schema) describes a tool in full on demand, with the tool's
// own schema hash; a change of the list's hash says that a cached
// description may be stale. Calls are unchanged: the server checks every
// argument as it does with the full list, and a wrong call gets the same
// errors and did-you-mean answers. validate_write and get_write_schema take the
// operation as a string rather than an enum of every tool, so their size
// does not grow with the service either. Strict-mode function calling
// (OpenAI strict, Anthropic strict tool use) cannot apply to a compact
// tool: its arguments are not in the list (docs/compact.md).
func WithCompactList() Option { return option(func(c *config) { c.compact = true }) }

// WithPreviews sets the domain's answers about a write before it happens
// (see Previews). A nil field keeps what an earlier WithPreviews set.
func WithPreviews(p Previews) Option {
	return option(func(c *config) {
		if p.Check != nil {
			c.domainCheck = p.Check
		}
		if p.Loss != nil {
			c.lossPreview = p.Loss
		}
		if p.State != nil {
			c.statePreview = p.State
		}
	})
}

// WithToolNames puts prefix before and suffix after the name of every tool
// the service registers, its service tools (validate, schema, apply,
// discard, discovery, vocabulary) included, so one service can be
// registered more than once on a server (two databases, two regions):
// WithToolNames("eu_", "") serves eu_create_task, eu_validate_write, ...
// Every name a tool answers with (next steps, validate_write's and
// get_write_schema's operations, proposals' apply_with) is the prefixed
// one, and so is what is keyed or derived by tool name: idempotency keys,
// REQUEST_SCOPED ids and TOOL_NAME fields. Register refuses a prefix or
// suffix outside [A-Za-z0-9_-], and a name longer than 64 characters.
func WithToolNames(prefix, suffix string) Option {
	return option(func(c *config) { c.namePrefix, c.nameSuffix = prefix, suffix })
}

// WithObserver reports every tool call to o (see runtime/otelmcp).
func WithObserver(o Observer) Option {
	return option(func(c *config) { c.observer = o })
}

// WithOperationWait bounds the operations tool's waits: a call waits at
// most max (its wait argument may ask less, never more) and asks the
// handler for the operation every poll while it waits. Zero keeps a
// default (DefaultOperationWait, DefaultOperationPoll).
func WithOperationWait(max, poll time.Duration) Option {
	return option(func(c *config) { c.opWait, c.opPoll = max, poll })
}

// WithElicitationQuotas bounds the in-call confirmations (elicitation/create
// while the call waits, holding its idempotency claim) that one tenant and
// one principal may have waiting at once in a registered service (defaults
// 100 per tenant, 10 per principal; a value <= 0 keeps its default). A call
// past a quota is answered a retryable RESOURCE_EXHAUSTED naming the quota,
// before it claims its client_request_id.
func WithElicitationQuotas(perTenant, perPrincipal int) Option {
	return option(func(c *config) {
		if perTenant > 0 {
			c.elicitQuotas.perTenant = perTenant
		}
		if perPrincipal > 0 {
			c.elicitQuotas.perPrincipal = perPrincipal
		}
	})
}

// WithoutRequestCheck turns off the request check the generated code
// enables for protos that import buf/validate/validate.proto (for a domain
// that runs protovalidate itself and wants its own envelope).
func WithoutRequestCheck() PreparerOption {
	return sharedOption(func(c *config) { c.noRequestCheck = true })
}

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

// WithProfileLabels labels the CPU a write call spends with the phase it
// is in (pprof label "mcpwrite.phase": front, prepare, claim, handler,
// answer), so a standard CPU profile splits the call's time by phase
// (go tool pprof -tagfocus mcpwrite.phase=answer ...). The handler phase
// includes what the handler calls (its database driver). The labels the
// goroutine had are restored when the call returns. Off by default; when
// off, a call pays one branch per phase.
func WithProfileLabels() Option { return option(func(c *config) { c.profileLabels = true }) }
