package runtime

// Bottom layer: the types a registered service is made of (registry, the
// answers it builds with, its serviceTools, boundTool, toolSpec and the small
// value types their fields hold), with no behaviour of their own beyond
// schemaHash. Their methods live by what they do: see docs/architecture.md,
// the runtime's files as layers.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Meta keys every write tool carries in its tools/list _meta, so clients and
// gateways can apply their own governance without parsing descriptions.
const (
	metaClassification = "mcpwrite/classification"
	metaConfirmation   = "mcpwrite/confirmation"
	metaKind           = "mcpwrite/kind"
	// MetaSchemaHash identifies a write tool's whole surface (schemas,
	// fills, confirmation): it changes exactly when the tool changes, so an
	// agent or a host can cache what getWriteSchema answered by it.
	metaSchemaHash = "mcpwrite/schema_hash"
	// MetaSchemaVersion identifies the whole service's schema document
	// (schemadoc.Service.SchemaVersion, written by the generator): every
	// tool of the service carries the same value, get_write_schema answers
	// it, and it changes exactly when the generated document does.
	metaSchemaVersion = "mcpwrite/schema_version"
)

// registry is one registered service: its document, bindings and options.
type registry struct {
	cfg *config
	svc *schemadoc.Service
	// version is the service's schema version (MetaSchemaVersion).
	version string
	tools   map[string]*boundTool
	order   []string // tool names (writes and reads), document order
	// writes are the write tools' names, document order: what validate
	// checks and what a proposal can come from.
	writes []string
	// checker is the request check, built once here (Service.NewChecker).
	checker impl.RequestChecker
	// waits counts the in-call confirmations waiting (answer.go, call.holdElicitation in pipeline.go).
	waits waits
	// ans builds the service's answers (answer.go).
	ans *answers
	// ops gets long-running operations for the operations tool
	// (operations_tool.go); nil when the handler cannot.
	ops impl.GetOperation
}

// answers builds every answer of one service, error and success, from
// what the service declares: its document, options, enum alias tables and
// answer shape. It holds no per-call state; a registry makes one and every
// handler and stage of the service asks it for their answers.
type answers struct {
	cfg *config
	svc *schemadoc.Service
	// shape is the service's answer shape (answer_shape.go), made once (the
	// zero shape without a service document).
	shape answerShape
	// tools are the service's tools (the registry's map), which next steps
	// name.
	tools map[string]*boundTool
	// ops gets long-running operations (operations_tool.go); nil when the
	// handler cannot.
	ops impl.GetOperation
}

// serviceTools are the tools a service has beside its own writes and reads:
// validate_write, get_write_schema, discovery, apply and discard of
// proposals, the vocabulary and the operations tools. They answer from the
// registry's tools, stores and options, and hold nothing of their own.
type serviceTools struct{ r *registry }

// boundTool joins a tool's document entry with its generated code: a
// write tool, or a read tool (read set).
type boundTool struct {
	bind *impl.Tool
	doc  *schemadoc.Tool
	// noTxClaim: the handler answered a keyed write without recording it
	// in its transaction, so it does not claim keys there
	// (IdempotencyOptions.ClaimInHandler); the runtime claims them.
	noTxClaim atomic.Bool
	// optionalDescription: the input schema has an optional "description"
	// property, whose absence earns a MISSING_DESCRIPTION warning.
	optionalDescription bool
	// nested indexes the input's nested properties by name (nestedPaths).
	nested map[string][]string
	// fillShapes are where each of doc.ServerFills can appear in the
	// arguments, a segment per field, "*" for a map key (fillShapes).
	fillShapes [][]string
	// hash is the tool's schema hash (MetaSchemaHash).
	hash string
	// read: a read tool (kind READ), which changes nothing and is never
	// keyed, confirmed or proposed.
	read bool
	// names are the control arguments in the service's field naming.
	names controlNames
	// steps are the next-step sentences answers carry (answers.stepsOf),
	// made once every tool is bound.
	steps []string
}

// schemaHash is "sha256:" and the first 8 bytes, in hex, of the tool's
// document entry.
func schemaHash(d *schemadoc.Tool) string {
	b, err := json.Marshal(d)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// toolSpec is one tool ready for AddTool.
type toolSpec struct {
	tool    *toolcall.Tool
	handler toolcall.Handler
}

// waits counts the in-call confirmations waiting, by tenant and principal.
type waits struct {
	mu       sync.Mutex
	byTenant map[string]int
	byOwner  map[[2]string]int
}

// answerShape is how a service writes its answers: with protojson field
// names (jsonNames, field_naming: JSON_NAME) or proto names, and which
// fields without presence are written at their zero value: all of them
// (zeroValues, emit_zero_values), the listed ones (zeroFields,
// emit_zero_value), or none, as protojson does by default.
type answerShape struct {
	jsonNames  bool
	zeroValues bool
	zeroFields map[protoreflect.FullName]bool
	// lowerEnums: the service spells enum values in lower snake case
	// (enum_output LOWER_SNAKE), so answers write a classification as
	// safe_create.
	lowerEnums bool
	// enums are the service's enum alias tables, which answers and what a
	// confirmation shows spell enum values with.
	enums map[string]*impl.EnumTable
}

// controlNames are the names of the control arguments (the idempotency key,
// the dry-run switch, a proposal's id) in the service's field naming:
// client_request_id, dry_run and proposal_id for proto names,
// clientRequestId, dryRun and proposalId under field_naming: JSON_NAME.
// The other spelling of each is accepted as an alias, so callers written
// for either keep working; both spellings in one call is an error. The
// agent's summary argument ("summary") is one word in both namings.
type controlNames struct {
	clientRequestID, dryRun, proposalID string
}

// argSpec is one argument of a service tool.
type argSpec struct {
	name string
	// alias is another accepted spelling of name ("" for none); both at
	// once is an error.
	alias    string
	kind     impl.Kind
	required bool
	// text: the argument may also be a string holding JSON text of kind
	// (what the schema asks for, so strict clients can send free-form values).
	text bool
}

// annotations spells out all four hints: the protocol defaults (destructive
// and open world when absent) are the opposite of what most writes are.
func annotations(title string, h schemadoc.Hints) *toolcall.Annotations {
	return &toolcall.Annotations{
		Title:           title,
		ReadOnlyHint:    h.ReadOnly,
		DestructiveHint: &h.Destructive,
		IdempotentHint:  h.Idempotent,
		OpenWorldHint:   &h.OpenWorld,
	}
}

// kindRead is the document kind of a read tool (ToolRules kind READ).
const kindRead = "READ"
