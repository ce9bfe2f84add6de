package runtime_test

import (
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
const maxRuntimeAPI = 65

// runtimeAPI is the exported API of package runtime, sorted.
var runtimeAPI = []string{
	"CallEnd",
	"CallStart",
	"CodeAlreadyExists",
	"CodeInvalidEnumValue",
	"CodeNotFound",
	"CodeUnknownField",
	"CodeValidation",
	"ConfirmDirect",
	"ConfirmElicit",
	"ConfirmProposal",
	"Confirmation",
	"EntityState",
	"ErrorEntry",
	"Errors",
	"IdempotencyOptions",
	"IsAtLeastVersion0_1_0",
	"Limits",
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
	"Register",
	"RequestContext",
	"RequestContextFrom",
	"StaticRequestContext",
	"Suggestions",
	"ToolAdder",
	"Version",
	"Vocabulary",
	"Vocabulary.Invalidate",
	"Vocabulary.InvalidateAll",
	"Vocabulary.Values",
	"VocabularyOptions",
	"VocabularyValue",
	"WithClock",
	"WithCompactList",
	"WithElicitationQuotas",
	"WithElicitationTimeout",
	"WithErrorHook",
	"WithIdempotency",
	"WithLimits",
	"WithLogger",
	"WithObserver",
	"WithPolicy",
	"WithPreviews",
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
	if len(runtimeAPI) > maxRuntimeAPI {
		t.Errorf("runtimeAPI lists %d names, at most %d are allowed", len(runtimeAPI), maxRuntimeAPI)
	}
	if strings.Join(got, "\n") != strings.Join(runtimeAPI, "\n") {
		t.Errorf("package runtime exports %d names, runtimeAPI lists %d:\n%sUpdate runtimeAPI in runtime/api_surface_test.go to the new list (sorted) if the change is intended.", len(got), len(runtimeAPI), apisurface.Diff(got, runtimeAPI))
	}
}
