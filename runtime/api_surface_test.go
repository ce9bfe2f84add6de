package runtime_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/apisurface"
)

// maxRuntimeAPI bounds the exported names of package runtime: it is what
// users call, and what only generated code needs lives in mcpwriteimpl.
// 63: ToolAdder (Register serves go-sdk servers and the adapters of other
// MCP libraries), WithToolNames (one service registered twice) and
// WithCompactList (services with hundreds of methods); 64:
// WithElicitationQuotas (in-call confirmations bounded per tenant and
// principal).
// 65: PreparerOption types the options NewPreparer applies, so one it
// would ignore (WithObserver, WithPolicy, ...) does not compile there.
// ContentHash and Excerpt (a domain derives the ID a content_hash field
// gets, and quotes an agent's value in its own error messages) took the
// place of five error codes.
// 68: the deadline of every forwarded call and the bounded wait of
// get_operation, each an option with its documented defaults
// (WithBackendTimeout, DefaultBackendTimeout; WithOperationWait,
// DefaultOperationWait, DefaultOperationPoll).
// 71: the envelope types are defined in package runtime (go doc shows
// their fields), so their methods, callable through the aliases before,
// are listed: ErrorEntry.Error, Errors.Error, Limits.WithDefaults.
// 72: MarshalRecordJSON (a domain stores the request and response of a
// write beside it, an outbox row, as protojson writes them, in one pass).
// 73: IsAtLeastVersion0_2_0, the compile-time check of code the 0.2.0
// plugin generates (the 0.1.0 one stays for code generated before).
// 71: Register and ToolAdder left for runtime/gosdk (go-sdk) and
// runtime/mcpgo (mcp-go): package runtime links no MCP library.
// 72: IsAtLeastVersion0_3_0, the compile-time check of code the 0.3.0
// plugin generates.
// 73: WithProfileLabels (a CPU profile splits a write call's time by
// phase, pprof labels).
//
// The error codes (Code*) are counted apart: they are the answer
// envelope's vocabulary, which a domain returns and a client or test
// matches, so package runtime re-exports every one of them
// (TestRuntimeExportsEveryErrorCode) and no user needs the impl package
// for a code; the envelope bounds them, not this number.
const maxRuntimeAPI = 73

// runtimeAPI is the exported API of package runtime, sorted.
var runtimeAPI = []string{
	"AdapterOption",
	"CallEnd",
	"CallStart",
	"CodeAlreadyExists",
	"CodeConfirmationCancelled",
	"CodeConfirmationDeclined",
	"CodeConfirmationRequired",
	"CodeConflict",
	"CodeConstraintViolation",
	"CodeDeadlineExceeded",
	"CodeIdempotencyInProgress",
	"CodeIdempotencyKeyReused",
	"CodeInternal",
	"CodeInvalidEnumValue",
	"CodeInvalidIdempotencyKey",
	"CodeInvalidJSON",
	"CodeInvalidRelationship",
	"CodeInvalidType",
	"CodeMissingRequired",
	"CodeNeedsDisambiguation",
	"CodeNotFound",
	"CodePayloadTooLarge",
	"CodePermissionDenied",
	"CodeProposalExpired",
	"CodeProposalNotFound",
	"CodeProposalStale",
	"CodeResourceExhausted",
	"CodeTooManyErrors",
	"CodeUnauthenticated",
	"CodeUnavailable",
	"CodeUnknownField",
	"CodeUnknownOperation",
	"CodeValidation",
	"ConfirmDirect",
	"ConfirmElicit",
	"ConfirmProposal",
	"Confirmation",
	"ContentHash",
	"DefaultBackendTimeout",
	"DefaultOperationPoll",
	"DefaultOperationWait",
	"EntityState",
	"ErrorEntry",
	"ErrorEntry.Error",
	"Errors",
	"Errors.Error",
	"Excerpt",
	"IdempotencyOptions",
	"IsAtLeastVersion0_1_0",
	"IsAtLeastVersion0_2_0",
	"IsAtLeastVersion0_3_0",
	"Limits",
	"Limits.WithDefaults",
	"MarshalRecordJSON",
	"NewPreparer",
	"NewVocabulary",
	"Observer",
	"Option",
	"Outcome",
	"Outcome.Recorded",
	"Outcome.Render",
	"OutcomeFrom",
	"PolicyCall",
	"Preparer",
	"Preparer.Decode",
	"Preparer.Prepare",
	"PreparerOption",
	"Previews",
	"Reference",
	"Referent",
	"RequestContext",
	"RequestContextFrom",
	"StaticRequestContext",
	"Suggestions",
	"Version",
	"Vocabulary",
	"Vocabulary.Invalidate",
	"Vocabulary.InvalidateAll",
	"Vocabulary.Values",
	"VocabularyOptions",
	"VocabularyValue",
	"WithBackendTimeout",
	"WithClock",
	"WithCompactList",
	"WithElicitationQuotas",
	"WithElicitationTimeout",
	"WithErrorHook",
	"WithIdempotency",
	"WithLimits",
	"WithLogger",
	"WithObserver",
	"WithOperationWait",
	"WithPolicy",
	"WithPreviews",
	"WithProfileLabels",
	"WithProposals",
	"WithRand",
	"WithRequestContext",
	"WithRequestContextFunc",
	"WithSecrets",
	"WithToolNames",
	"WithVocabulary",
	"WithoutRequestCheck",
}

// The exported API of package runtime is exactly runtimeAPI, at most
// maxRuntimeAPI names. A change to it is deliberate: a name only generated
// code needs belongs in runtime/mcpwriteimpl, and a new user-facing name
// goes into runtimeAPI (sorted) in the same change, within the bound
// (group rarely used knobs into one option instead of adding options).
func TestRuntimeAPISurface(t *testing.T) {
	got, err := apisurface.Exported(".")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(runtimeAPI) - len(errorCodes(runtimeAPI)); n > maxRuntimeAPI {
		t.Errorf("runtimeAPI lists %d names besides the error codes, at most %d are allowed", n, maxRuntimeAPI)
	}
	if strings.Join(got, "\n") != strings.Join(runtimeAPI, "\n") {
		t.Errorf("package runtime exports %d names, runtimeAPI lists %d:\n%sUpdate runtimeAPI in runtime/api_surface_test.go to the new list (sorted) if the change is intended.", len(got), len(runtimeAPI), apisurface.Diff(got, runtimeAPI))
	}
}

// errorCodes are the error codes (Code*) among names.
func errorCodes(names []string) []string {
	var codes []string
	for _, n := range names {
		if strings.HasPrefix(n, "Code") {
			codes = append(codes, n)
		}
	}
	return codes
}

// Package runtime re-exports every error code of the envelope
// (runtime/internal/impl), so a domain that returns or matches one names it
// runtime.CodeNotFound and so on; a code added to the envelope and not here
// fails.
func TestRuntimeExportsEveryErrorCode(t *testing.T) {
	got, err := apisurface.Exported(".")
	if err != nil {
		t.Fatal(err)
	}
	envelope, err := apisurface.Exported("internal/impl")
	if err != nil {
		t.Fatal(err)
	}
	want := errorCodes(envelope)
	if len(want) < 30 {
		t.Fatalf("the envelope has %d codes, want at least 30", len(want))
	}
	if strings.Join(errorCodes(got), "\n") != strings.Join(want, "\n") {
		t.Errorf("package runtime re-exports the error codes:\n%s", apisurface.Diff(errorCodes(got), want))
	}
	// The values too: runtime spells each code out (go doc shows it), the
	// decoder keeps its own constant, and the two are the same string.
	ours, err := apisurface.Signatures(".")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := apisurface.Signatures("internal/impl")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := codeLines(ours), codeLines(theirs); strings.Join(a, "\n") != strings.Join(b, "\n") || len(a) != len(want) {
		t.Errorf("the error codes' values differ from the envelope's:\n%s", apisurface.Diff(a, b))
	}
}

// codeLines are the signature lines of the error code constants.
func codeLines(sigs []string) []string {
	var out []string
	for _, s := range sigs {
		if strings.HasPrefix(s, "Code") && strings.Contains(s, " const = ") {
			out = append(out, s)
		}
	}
	return out
}

// docs/architecture.md states the bound of runtime's API, and the figure
// is maxRuntimeAPI.
func TestArchitectureStatesTheAPIBound(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("at most %d exported names besides the error codes", maxRuntimeAPI); !strings.Contains(string(b), want) {
		t.Errorf("docs/architecture.md does not say %q: state runtime's bound there", want)
	}
}
