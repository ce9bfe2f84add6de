// Package schemadoc defines the getWriteSchema document: the generated
// <file>.mcpwrite.json that protoc-gen-mcpwrite writes beside the generated Go
// code and that the runtime serves from get_write_schema and uses to register
// tools. It has no dependencies so the plugin can share it.
package schemadoc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// Document is one generated <file>.mcpwrite.json.
type Document struct {
	// Source is the proto file path, e.g. "archimate/v1/archimate.proto".
	Source   string    `json:"source"`
	Services []Service `json:"services"`
}

// Service lists one proto service's tools.
type Service struct {
	// Name is the fully-qualified service name.
	Name string `json:"name"`
	// SchemaVersion identifies everything below (Version): the generator
	// writes it, so it changes exactly when the generated entry does. Every
	// tool of the service carries it in tools/list _meta and get_write_schema
	// answers it, so an agent or host can cache what it learned by it.
	SchemaVersion string `json:"schema_version,omitempty"`
	// Service tool names; empty when the service omits that tool.
	ValidateTool string `json:"validate_tool,omitempty"`
	SchemaTool   string `json:"schema_tool,omitempty"`
	ApplyTool    string `json:"apply_tool,omitempty"`
	DiscardTool  string `json:"discard_tool,omitempty"`
	// OperationsTool is the read tool that gets or waits on a long-running
	// operation by name (docs/operations.md); set when a tool returns
	// google.longrunning.Operation. The runtime registers it only when the
	// handler can get operations.
	OperationsTool string `json:"operations_tool,omitempty"`
	// FieldNaming is "JSON_NAME" when agents see protojson field names
	// (parentId) in arguments, answers, error paths and this document;
	// "" for proto names (parent_id).
	FieldNaming string `json:"field_naming,omitempty"`
	// ZeroValues: answers write every response field without presence at
	// its zero value (ServiceRules emit_zero_values); false leaves zero
	// values out, as protojson does.
	ZeroValues bool `json:"zero_values,omitempty"`
	// ZeroValueFields are the response fields (full proto names) answers
	// write at their zero value when ZeroValues is false (FieldRules
	// emit_zero_value).
	ZeroValueFields []string `json:"zero_value_fields,omitempty"`
	// EnumOutput is how answers spell enum values (ServiceRules
	// enum_output: ALIAS, PROTO_NAME, UPPER_SNAKE, LOWER_SNAKE); "" when
	// the service sets none. The runtime spells each tool's Classification
	// in answers by it: LOWER_SNAKE writes safe_create.
	EnumOutput string `json:"enum_output,omitempty"`
	// Tools are the exposed methods in declaration order.
	Tools []Tool `json:"tools"`
	// Discovery lists the read-only enum discovery tools.
	Discovery []Discovery `json:"discovery,omitempty"`
	// VocabularyTools lists the read-only tools that list a live
	// vocabulary's values for the caller's tenant.
	VocabularyTools []VocabularyTool `json:"vocabulary_tools,omitempty"`
	// Resources lists the read tools also served as MCP resource templates
	// (ServiceRules resources, docs/resources.md).
	Resources []Resource `json:"resources,omitempty"`
}

// Version is the schema version of a service entry: "sha256:" and the first
// 8 bytes, in hex, of the entry's JSON with SchemaVersion left empty.
func Version(s Service) string {
	s.SchemaVersion = ""
	b, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	return VersionOf(b)
}

// VersionOf is Version of the service entry whose JSON, as json.Marshal
// writes it with SchemaVersion left empty, is entry: for a writer that
// has the entry's bytes already (the plugin encodes each entry once).
func VersionOf(entry []byte) string {
	sum := sha256.Sum256(entry)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// Tool is everything an agent (and the runtime) needs to know about one tool.
type Tool struct {
	Name           string `json:"name"`
	Method         string `json:"method"` // fully-qualified proto method
	Title          string `json:"title,omitempty"`
	Description    string `json:"description"`
	Kind           string `json:"kind"`           // CREATE, UPDATE, DELETE, ACTION
	Classification string `json:"classification"` // SAFE_CREATE, ...
	Confirmation   string `json:"confirmation"`   // DIRECT, PROPOSAL, ELICIT
	// DecidedBy names the evidence that decided Kind and Classification:
	// the proto signal when the tool option sets no kind (an
	// idempotency_level, a google.api.http binding, an AIP standard-method
	// shape, an irreversible verb, or the method name), or the tool option
	// ("kind DELETE from the tool option; ...").
	DecidedBy string `json:"decided_by,omitempty"`
	// ElicitFallback is "REFUSE" when a confirmation the client cannot show
	// refuses the call instead of storing a proposal (the default, "").
	ElicitFallback string `json:"elicit_fallback,omitempty"`
	// ConfirmationMessage is the template of the question the user is asked
	// ({proto.path}, {#list}, {preview.key}); "" for the default text.
	ConfirmationMessage string `json:"confirmation_message,omitempty"`
	// PreviewUnless names the bool argument that must be true to write;
	// without it the call answers a preview. nil: the call writes.
	PreviewUnless *PreviewUnless `json:"preview_unless,omitempty"`
	// AgentSummary names the optional argument in which the agent may
	// describe the change in its own words (AgentSummaryArgument, at most
	// AgentSummaryMaxLength characters); a proposal shows it beside the
	// server's summary. It steers the proposal, never the request. "" when
	// the tool cannot propose or has its own field of that name.
	AgentSummary    string          `json:"agent_summary,omitempty"`
	Hints           Hints           `json:"hints"`
	Result          string          `json:"result,omitempty"` // response field with the canonical entity
	NextSteps       []string        `json:"next_steps,omitempty"`
	RetryOnConflict uint32          `json:"retry_on_conflict,omitempty"`
	InputSchema     json.RawMessage `json:"input_schema"`
	// FullInputSchema is the complete input schema when InputSchema, over
	// the plugin's schema_budget, gives optional subtrees as JSON text;
	// get_write_schema answers it. Absent otherwise.
	FullInputSchema json.RawMessage `json:"full_input_schema,omitempty"`
	// LongDescriptions holds the full text of each schema description cut
	// to its first sentences for agents, by schema path
	// ("input.task.http_request.headers", "output.name").
	LongDescriptions map[string]string `json:"long_descriptions,omitempty"`
	OutputSchema     json.RawMessage   `json:"output_schema"`
	Examples         []Example         `json:"examples,omitempty"`
	RequiredFields   []string          `json:"required_fields"`
	OptionalFields   []string          `json:"optional_fields"`
	ServerFills      []ServerFill      `json:"server_fills,omitempty"`
	// RequiredWhen lists the optional fields that become required when
	// another field holds one of some values.
	RequiredWhen []RequiredWhen `json:"required_when,omitempty"`
	// References lists the fields the agent may fill with an id or a name.
	References []Reference `json:"references,omitempty"`
	// Rules are the buf.validate rules of the request, per field.
	Rules []FieldRules `json:"rules,omitempty"`
	// Vocabularies lists the fields whose values come from a live
	// vocabulary; get_write_schema adds the caller's values.
	Vocabularies []VocabularyField `json:"vocabularies,omitempty"`
	// Operation is set when the method returns google.longrunning.Operation:
	// what the operation eventually holds.
	Operation *Operation `json:"operation,omitempty"`
}

// Operation is what a long-running operation a tool starts eventually holds,
// from the method's google.longrunning.operation_info.
type Operation struct {
	// ResponseType is the full name of the message the done operation's
	// response holds ("google.protobuf.Empty" for none); "" when unknown.
	ResponseType string `json:"response_type"`
	// MetadataType is the full name of the operation's metadata message;
	// "" when unknown.
	MetadataType string `json:"metadata_type"`
	// Unknown says why a type is unknown; "" when both are known.
	Unknown string `json:"unknown,omitempty"`
}

// VocabularyField is a field that takes a value of a live vocabulary.
type VocabularyField struct {
	// Field is the dotted agent path, e.g. "entity_type" or "tags[]".
	Field string `json:"field"`
	// Vocabulary is the vocabulary's name, e.g. "entity_type".
	Vocabulary string `json:"vocabulary"`
}

// VocabularyTool is a read-only tool listing one live vocabulary.
type VocabularyTool struct {
	Tool        string `json:"tool"`
	Vocabulary  string `json:"vocabulary"`
	Description string `json:"description"`
}

// The argument a write tool that can become a proposal takes for the
// agent's own summary of the change, and its longest accepted length in
// characters (Unicode code points).
const (
	AgentSummaryArgument  = "summary"
	AgentSummaryMaxLength = 200
)

// PreviewUnless is the bool field a call must set to write.
type PreviewUnless struct {
	// Field is the request field's proto name, Argument its agent name.
	Field    string `json:"field"`
	Argument string `json:"argument"`
}

// Reference is a field the agent fills with an entity's id or unique name;
// the server resolves it to the id before the write.
type Reference struct {
	// Field is the dotted agent path, e.g. "source_id".
	Field string `json:"field"`
	// Kind is what the field names, e.g. "element".
	Kind string `json:"kind"`
}

// RequiredWhen is one conditional requirement: Field must be sent when When
// holds any of Equals.
type RequiredWhen struct {
	// Field and When are dotted agent paths, e.g. "parent_id" and "operation".
	Field string `json:"field"`
	When  string `json:"when"`
	// Equals are JSON values; enum values by their agent-facing alias.
	Equals []any `json:"equals"`
	// Rule states it for people: `parent_id is required when operation is "extract"`.
	Rule string `json:"rule"`
}

// Hints are the four MCP tool annotation hints, always explicit.
type Hints struct {
	ReadOnly    bool `json:"read_only"`
	Destructive bool `json:"destructive"`
	Idempotent  bool `json:"idempotent"`
	OpenWorld   bool `json:"open_world"`
}

// Example is one documented, schema-valid input.
type Example struct {
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input"`
}

// ContextFillHow is a ServerFill's How for a field filled from the request
// context's key ("TENANT_ID": "tenant id from the request context"). The
// generator writes it and the runtime reads it back (a preview leaves out
// the tenant and principal fills), so both use this one spelling.
func ContextFillHow(key string) string {
	return strings.ToLower(strings.ReplaceAll(key, "_", " ")) + " from the request context"
}

// ServerFill says how the server provides one request field.
type ServerFill struct {
	// Field is the dotted path with the names agents see, e.g.
	// "meta.tenant_id" (or "meta.tenantId" under field_naming JSON_NAME).
	Field string `json:"field"`
	// ProtoField is the dotted proto path when it differs from Field.
	ProtoField string `json:"proto_field,omitempty"`
	// Source is one of generated, derived, context, resolver, constant, enum_alias.
	Source string `json:"source"`
	// How, for people: "UUID v7", "from type (layer implied by the element type)",
	// "tenant from the request context", "resolver active_model".
	How string `json:"how"`
	// Overridable fields may be supplied by the agent.
	Overridable bool `json:"overridable,omitempty"`
}

// ProtoPath is the fill's dotted proto path.
func (f ServerFill) ProtoPath() string {
	if f.ProtoField != "" {
		return f.ProtoField
	}
	return f.Field
}

// Discovery is one read-only tool listing an enum's agent-facing values.
type Discovery struct {
	Tool        string `json:"tool"`
	Enum        string `json:"enum"`
	Description string `json:"description"`
	GroupBy     string `json:"group_by,omitempty"`
	// PairsOf is the enum whose aliases ValidPairs name.
	PairsOf string           `json:"pairs_of,omitempty"`
	Values  []DiscoveryValue `json:"values"`
}

// DiscoveryValue is one offered enum value.
type DiscoveryValue struct {
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	Group       string `json:"group,omitempty"`
	// ValidPairs are the (source, target) combinations the value may connect.
	ValidPairs []Pair `json:"valid_pairs,omitempty"`
}

// Pair is one allowed (source, target) combination, by aliases.
type Pair struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// FieldRules are the buf.validate rules of one request field, or of a
// request message itself (message CEL and oneof rules).
type FieldRules struct {
	// Field is the agent-facing path; empty for a field the server fills.
	// For a message's own rules it names the message field ("" for the
	// request).
	Field string `json:"field,omitempty"`
	// ProtoField is the dotted proto path.
	ProtoField string `json:"proto_field,omitempty"`
	// FilledBy is "agent", "server" or "message" (the message's own rules).
	FilledBy string `json:"filled_by"`
	Rules    []Rule `json:"rules"`
}

// Rule is one buf.validate rule.
type Rule struct {
	// Rule names it, e.g. string.max_len, repeated.items.string.min_len, cel.
	Rule string `json:"rule"`
	// Value is the rule's value as written (a CEL rule's expression).
	Value string `json:"value,omitempty"`
	// ID and Message are a CEL rule's id and message.
	ID      string `json:"id,omitempty"`
	Message string `json:"message,omitempty"`
	// CheckedBy is "decoder" (schema keywords and the strict decoder, which
	// answer the agent before anything runs) or "protovalidate" (the
	// complete request, after the server filled its fields).
	CheckedBy string `json:"checked_by"`
}
