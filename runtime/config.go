package runtime

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// The settings the options (options.go) write, one config per registered
// service or Preparer.

// defaultProposalTTL is how long a proposal can be applied after it was made:
// long enough for a person to read it, short enough that the world it was
// checked against is still recognisable.
const defaultProposalTTL = 15 * time.Minute

// defaultElicitationTimeout is how long a user has to answer a confirmation:
// the idempotency claim is held this long (plus the normal lease) while an
// in-call confirmation waits, and a round-trip confirmation expires after it.
const defaultElicitationTimeout = 5 * time.Minute

type config struct {
	// profileLabels: WithProfileLabels.
	profileLabels bool
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
	rcFunc            func(ctx context.Context, req *toolcall.Request) (RequestContext, bool)
	rcSet             bool // WithRequestContextFunc was given (perhaps nil)
	// rcType is the request type rcFunc's function takes (nil: none).
	rcType    reflect.Type
	errorHook func(ctx context.Context, tool string, req proto.Message, e *impl.ErrorEntry)
	logger    *slog.Logger
	// elicitTimeout bounds a confirmation: in-call waits and round-trip state.
	elicitTimeout time.Duration
	// elicitQuotas bound the in-call confirmations waiting (answer.go, call.holdElicitation in pipeline.go).
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
