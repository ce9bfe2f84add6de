package runtime_test

import (
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

// runtimeSignatures is the exported API of package runtime, declaration by
// declaration (apisurface.Signatures): every function and method
// signature, every exported struct field and interface method, every
// constant's value.
var runtimeSignatures = []string{
	"CallEnd struct",
	"CallEnd.Confirmation string",
	"CallEnd.Duration time.Duration",
	"CallEnd.ErrorCode string",
	"CallEnd.Outcome string",
	"CallEnd.Proposal string",
	"CallEnd.Read bool",
	"CallEnd.Replay bool",
	"CallEnd.Tool string",
	"CallStart struct",
	"CallStart.HasRequestContext bool",
	"CallStart.RequestContext RequestContext",
	"CallStart.Tool string",
	"CodeAlreadyExists const = mcpwriteimpl.CodeAlreadyExists",
	"CodeInvalidEnumValue const = mcpwriteimpl.CodeInvalidEnumValue",
	"CodeNotFound const = mcpwriteimpl.CodeNotFound",
	"CodeUnknownField const = mcpwriteimpl.CodeUnknownField",
	"CodeValidation const = mcpwriteimpl.CodeValidation",
	"ConfirmDirect const Confirmation = \"DIRECT\"",
	"ConfirmElicit const Confirmation = \"ELICIT\"",
	"ConfirmProposal const Confirmation = \"PROPOSAL\"",
	"Confirmation string",
	"EntityState struct",
	"EntityState.Digest string",
	"EntityState.Fields map[string]any",
	"EntityState.ID string",
	"EntityState.Summary string",
	"EntityState.Target string",
	"EntityState.Type string",
	"ErrorEntry = mcpwriteimpl.ErrorEntry",
	"Errors = mcpwriteimpl.Errors",
	"IdempotencyOptions struct",
	"IdempotencyOptions.ClaimInHandler bool",
	"IdempotencyOptions.Disable bool",
	"IdempotencyOptions.Lease time.Duration",
	"IdempotencyOptions.MaxStoredResponse int",
	"IdempotencyOptions.Store idempotency.Store",
	"IdempotencyOptions.TTL time.Duration",
	"IsAtLeastVersion0_1_0 const = true",
	"Limits = mcpwriteimpl.Limits",
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
	"Reference = mcpwriteimpl.Reference",
	"Referent = mcpwriteimpl.Referent",
	"Register func(s *mcp.Server, svc *mcpwriteimpl.Service, opts ...Option) error",
	"RequestContext struct",
	"RequestContext.CausationID string",
	"RequestContext.CorrelationID string",
	"RequestContext.PrincipalID string",
	"RequestContext.SessionID string",
	"RequestContext.TenantID string",
	"RequestContext.TraceParent string",
	"RequestContextFrom func(ctx context.Context) (RequestContext, bool)",
	"StaticRequestContext func(rc RequestContext) func(context.Context, *mcp.CallToolRequest) (RequestContext, bool)",
	"Suggestions = mcpwriteimpl.Suggestions",
	"Version const = \"0.1.0\"",
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
	"WithClock func(now func() time.Time) PreparerOption",
	"WithElicitationTimeout func(d time.Duration) Option",
	"WithErrorHook func(fn func(ctx context.Context, tool string, req proto.Message, e *ErrorEntry)) Option",
	"WithIdempotency func(o IdempotencyOptions) Option",
	"WithLimits func(l Limits) PreparerOption",
	"WithLogger func(l *slog.Logger) PreparerOption",
	"WithObserver func(o Observer) Option",
	"WithPolicy func(fn func(ctx context.Context, pc PolicyCall) Confirmation) Option",
	"WithPreviews func(p Previews) Option",
	"WithProposals func(s proposal.Store, ttl time.Duration) Option",
	"WithRand func(r io.Reader) PreparerOption",
	"WithRequestContext func(ctx context.Context, rc RequestContext) context.Context",
	"WithRequestContextFunc func(fn func(ctx context.Context, req *mcp.CallToolRequest) (RequestContext, bool)) Option",
	"WithSecrets func(idSecret, signingKey []byte) PreparerOption",
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
