package runtime_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

// runtimeSignatures is the exported API of package runtime, declaration by
// declaration (apisurface.Signatures): every function and method
// signature, every exported struct field and interface method, every
// constant's value.
var runtimeSignatures = []string{
	"AdapterOption = impl.ForwardOption func(*Forwarder)",
	"CallEnd struct",
	"CallEnd.Cause error",
	"CallEnd.Confirmation string",
	"CallEnd.Duration time.Duration",
	"CallEnd.ErrorCode string",
	"CallEnd.ErrorTraceID string",
	"CallEnd.Outcome string",
	"CallEnd.Proposal string",
	"CallEnd.Read bool",
	"CallEnd.Replay bool",
	"CallEnd.Tool string",
	"CallStart struct",
	"CallStart.HasRequestContext bool",
	"CallStart.RequestContext RequestContext",
	"CallStart.Tool string",
	"CodeAlreadyExists const = \"ALREADY_EXISTS\"",
	"CodeConfirmationCancelled const = \"CONFIRMATION_CANCELLED\"",
	"CodeConfirmationDeclined const = \"CONFIRMATION_DECLINED\"",
	"CodeConfirmationRequired const = \"CONFIRMATION_REQUIRED\"",
	"CodeConflict const = \"CONFLICT\"",
	"CodeConstraintViolation const = \"CONSTRAINT_VIOLATION\"",
	"CodeDeadlineExceeded const = \"DEADLINE_EXCEEDED\"",
	"CodeIdempotencyInProgress const = \"IDEMPOTENCY_IN_PROGRESS\"",
	"CodeIdempotencyKeyReused const = \"IDEMPOTENCY_KEY_REUSED\"",
	"CodeInternal const = \"INTERNAL\"",
	"CodeInvalidEnumValue const = \"INVALID_ENUM_VALUE\"",
	"CodeInvalidIdempotencyKey const = \"INVALID_IDEMPOTENCY_KEY\"",
	"CodeInvalidJSON const = \"INVALID_JSON\"",
	"CodeInvalidRelationship const = \"INVALID_RELATIONSHIP\"",
	"CodeInvalidType const = \"INVALID_TYPE\"",
	"CodeMissingRequired const = \"MISSING_REQUIRED_FIELD\"",
	"CodeNeedsDisambiguation const = \"NEEDS_DISAMBIGUATION\"",
	"CodeNotFound const = \"NOT_FOUND\"",
	"CodePayloadTooLarge const = \"PAYLOAD_TOO_LARGE\"",
	"CodePermissionDenied const = \"PERMISSION_DENIED\"",
	"CodeProposalExpired const = \"PROPOSAL_EXPIRED\"",
	"CodeProposalNotFound const = \"PROPOSAL_NOT_FOUND\"",
	"CodeProposalStale const = \"PROPOSAL_STALE\"",
	"CodeResourceExhausted const = \"RESOURCE_EXHAUSTED\"",
	"CodeTooManyErrors const = \"TOO_MANY_ERRORS\"",
	"CodeUnauthenticated const = \"UNAUTHENTICATED\"",
	"CodeUnavailable const = \"UNAVAILABLE\"",
	"CodeUnknownField const = \"UNKNOWN_FIELD\"",
	"CodeUnknownOperation const = \"UNKNOWN_OPERATION\"",
	"CodeValidation const = \"VALIDATION_ERROR\"",
	"ConfirmDirect const Confirmation = \"DIRECT\"",
	"ConfirmElicit const Confirmation = \"ELICIT\"",
	"ConfirmProposal const Confirmation = \"PROPOSAL\"",
	"Confirmation string",
	"ContentHash func(parts ...string) string",
	"DefaultBackendTimeout const = impl.DefaultBackendTimeout",
	"DefaultOperationPoll const = time.Second",
	"DefaultOperationWait const = 60 * time.Second",
	"EntityState struct",
	"EntityState.Digest string",
	"EntityState.Fields map[string]any",
	"EntityState.ID string",
	"EntityState.Summary string",
	"EntityState.Target string",
	"EntityState.Type string",
	"ErrorEntry struct",
	"ErrorEntry.Code string",
	"ErrorEntry.Details map[string]any",
	"(*ErrorEntry).Error func() string",
	"ErrorEntry.Field string",
	"ErrorEntry.Message string",
	"ErrorEntry.Rejected string",
	"ErrorEntry.Suggestions *Suggestions",
	"ErrorEntry.TraceID string",
	"Errors []*ErrorEntry",
	"Errors.Error func() string",
	"Excerpt func(s string) string",
	"IdempotencyOptions struct",
	"IdempotencyOptions.ClaimInHandler bool",
	"IdempotencyOptions.Disable bool",
	"IdempotencyOptions.Lease time.Duration",
	"IdempotencyOptions.MaxStoredResponse int",
	"IdempotencyOptions.Store idempotency.Store",
	"IdempotencyOptions.TTL time.Duration",
	"IsAtLeastVersion0_1_0 const = true",
	"IsAtLeastVersion0_2_0 const = true",
	"IsAtLeastVersion0_3_0 const = true",
	"Limits struct",
	"Limits.MaxArrayLen int",
	"Limits.MaxBytes int",
	"Limits.MaxDepth int",
	"Limits.MaxObjectKeys int",
	"Limits.MaxStringBytes int",
	"Limits.WithDefaults func() Limits",
	"MarshalRecordJSON func(m proto.Message) ([]byte, error)",
	"NewPreparer func(svc *mcpwriteimpl.Service, opts ...PreparerOption) (*Preparer, error)",
	"NewVocabulary func(name string, fn func(ctx context.Context, tenant string) ([]VocabularyValue, error), opts ...VocabularyOptions) *Vocabulary",
	"Observer interface",
	"Observer.CallEnded func(ctx context.Context, call CallEnd)",
	"Observer.CallStarted func(ctx context.Context, call CallStart) context.Context",
	"Option interface (has unexported methods)",
	"Outcome struct (has unexported fields)",
	"Outcome.ApplyToken time.Time",
	"Outcome.ClaimInTx bool",
	"Outcome.Fingerprint string",
	"Outcome.Key idempotency.Key",
	"Outcome.Lease time.Duration",
	"Outcome.Now time.Time",
	"Outcome.ProposalID string",
	"(*Outcome).Recorded func()",
	"(*Outcome).Render func(resp proto.Message) ([]byte, error)",
	"Outcome.StateDigest string",
	"Outcome.TTL time.Duration",
	"OutcomeFrom func(ctx context.Context) (*Outcome, bool)",
	"PolicyCall struct",
	"PolicyCall.Classification string",
	"PolicyCall.Confirmation Confirmation",
	"PolicyCall.Kind string",
	"PolicyCall.RequestContext RequestContext",
	"PolicyCall.Tool string",
	"Preparer struct (has unexported fields)",
	"(*Preparer).Decode func(tool string, args []byte) (proto.Message, Errors)",
	"(*Preparer).Prepare func(ctx context.Context, tool string, args []byte, rc RequestContext) (proto.Message, Errors)",
	"PreparerOption interface (has unexported methods)",
	"PreparerOption.Option embedded",
	"Previews struct",
	"Previews.Check func(ctx context.Context, tool string, req proto.Message) (preview map[string]any, err error)",
	"Previews.Loss func(ctx context.Context, tool string, req proto.Message) (string, error)",
	"Previews.State func(ctx context.Context, tool string, req proto.Message) (state EntityState, ok bool, err error)",
	"Reference struct",
	"Reference.Known []Referent",
	"Reference.Matches []Referent",
	"Referent struct",
	"Referent.ID string",
	"Referent.Name string",
	"Referent.Type string",
	"RequestContext struct",
	"RequestContext.CausationID string",
	"RequestContext.CorrelationID string",
	"RequestContext.PrincipalID string",
	"RequestContext.SessionID string",
	"RequestContext.TenantID string",
	"RequestContext.TraceParent string",
	"RequestContextFrom func(ctx context.Context) (RequestContext, bool)",
	"StaticRequestContext func(rc RequestContext) func(context.Context, *toolcall.Request) (RequestContext, bool)",
	"Suggestions struct",
	"Suggestions.DidYouMean []string",
	"Suggestions.Extra map[string]any",
	"Suggestions.Hint string",
	"Suggestions.ValidValues []string",
	"Version const = \"0.3.0\"",
	"Vocabulary struct (has unexported fields)",
	"(*Vocabulary).Invalidate func(tenant string)",
	"(*Vocabulary).InvalidateAll func()",
	"(*Vocabulary).Values func(ctx context.Context, tenant string) ([]VocabularyValue, error)",
	"VocabularyOptions struct",
	"VocabularyOptions.Clock func() time.Time",
	"VocabularyOptions.PerPrincipal bool",
	"VocabularyOptions.TTL time.Duration",
	"VocabularyValue struct",
	"VocabularyValue.Aliases []string",
	"VocabularyValue.Description string",
	"VocabularyValue.Value string",
	"WithBackendTimeout func(d time.Duration) AdapterOption",
	"WithClock func(now func() time.Time) PreparerOption",
	"WithCompactList func() Option",
	"WithElicitationQuotas func(perTenant, perPrincipal int) Option",
	"WithElicitationTimeout func(d time.Duration) Option",
	"WithErrorHook func(fn func(ctx context.Context, tool string, req proto.Message, e *ErrorEntry)) Option",
	"WithIdempotency func(o IdempotencyOptions) Option",
	"WithLimits func(l Limits) PreparerOption",
	"WithLogger func(l *slog.Logger) PreparerOption",
	"WithObserver func(o Observer) Option",
	"WithOperationWait func(max, poll time.Duration) Option",
	"WithPolicy func(fn func(ctx context.Context, pc PolicyCall) Confirmation) Option",
	"WithPreviews func(p Previews) Option",
	"WithProfileLabels func() Option",
	"WithProposals func(s proposal.Store, ttl time.Duration) Option",
	"WithRand func(r io.Reader) PreparerOption",
	"WithRequestContext func(ctx context.Context, rc RequestContext) context.Context",
	"WithRequestContextFunc func[R any](fn func(ctx context.Context, req R) (RequestContext, bool)) Option",
	"WithSecrets func(idSecret, signingKey []byte) PreparerOption",
	"WithToolNames func(prefix, suffix string) Option",
	"WithVocabulary func(v *Vocabulary) PreparerOption",
	"WithoutRequestCheck func() PreparerOption",
}

// The exported declarations of package runtime are exactly runtimeSignatures:
// a changed signature or a new exported field is as deliberate as a new
// name. Update runtimeSignatures in runtime/api_signatures_test.go in the same change.
func TestRuntimeAPISignatures(t *testing.T) {
	got, err := apisurface.Signatures(".")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(runtimeSignatures, "\n") {
		t.Errorf("package runtime declares:\n%sUpdate runtimeSignatures in runtime/api_signatures_test.go to the new list if the change is intended.", apisurface.Diff(got, runtimeSignatures))
	}
}

// internalQualifier matches a name of a package under runtime/internal as
// a declaration of package runtime would spell it.
var internalQualifier = regexp.MustCompile(`\b(impl|callmeta|compactlist|perserver|toolcall|sdkbind|served)\.[A-Z]`)

// signaturesNamingInternals are the declarations allowed to name an
// internal type, each for its reason: AdapterOption is an option function
// generated client adapters pass on to mcpwriteimpl.NewForwarder as they
// are, so it is the decoder's type; an option has no fields to show.
var signaturesNamingInternals = map[string]bool{
	"AdapterOption = impl.ForwardOption func(*Forwarder)": true,
	// The library-neutral request: a user passes the function on to
	// WithRequestContextFunc, on a server of any MCP library, and never
	// names or reads the request.
	"StaticRequestContext func(rc RequestContext) func(context.Context, *toolcall.Request) (RequestContext, bool)": true,
}

// No exported signature, field or type of package runtime names a type of
// runtime/internal (users cannot import it, and go doc shows such a type
// without its fields); a constant may take its value from there.
func TestRuntimeSignaturesNameNoInternalType(t *testing.T) {
	got, err := apisurface.Signatures(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if strings.Contains(s, " const = ") || signaturesNamingInternals[s] {
			continue
		}
		if internalQualifier.MatchString(s) {
			t.Errorf("%s names a type of runtime/internal: define it in package runtime (envelope_types.go) or name it through mcpwriteimpl", s)
		}
	}
}
