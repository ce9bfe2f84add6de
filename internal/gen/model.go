// Package gen turns annotated proto files into MCP write tools. Its files
// are named by stage, bottom first, and use names of their own stage and
// the stages below only (stages_test.go): model (model.go, its own enums,
// queries, names and literals), which holds typed values only; walk
// (walk.go over walk_builder.go, walk_fields.go, walk_resolve.go, ...),
// the one stage that reads the annotations, checks every one and converts
// it into the model; doc (the rule and limit words the later stages
// print); schema (the JSON schemas and the getWriteSchema document,
// schema_document.go); emit (the Go registration code as jennifer code
// rendered into protogen's generated file, emit.go over emit_emitter.go);
// lint (checks over what was generated); and gen.go, which runs them.
package gen

import (
	"encoding/json"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// fieldMode is who supplies a request field.
type fieldMode int

const (
	modeAgent fieldMode = iota + 1
	modeEnumAlias
	modeDerived
	modeGenerated
	modeHidden
)

// fileModel is one proto file with at least one exposed method.
type fileModel struct {
	proto    *protogen.File
	pkgName  string // Go package name of the generated code, e.g. archimatev1mcpwrite
	goPath   string // output path of the .mcpwrite.go file
	jsonPath string // output path of the .mcpwrite.json file
	jsonBase string // base name of the .mcpwrite.json file (go:embed)
	services []*serviceModel
	// messages and enums reached from agent input, in first-use order
	messages  []*messageModel
	enums     []*enumTable
	resolvers []*resolverModel
	// commentOutputOnly are the fields taken as OUTPUT_ONLY from their
	// "Output only." comment (walk_aip_identity.go), warned about.
	commentOutputOnly []*protogen.Field
	// warns are the walk's warnings, each starting with its position.
	warns []string
	// firstTable is the first alias table made for each enum: responses
	// render an enum the way inputs spell it.
	firstTable map[protoreflect.FullName]*enumTable
}

// serviceModel is one service with at least one exposed method.
type serviceModel struct {
	proto  *protogen.Service
	naming toolNaming
	// defaultConfirmation and defaultElicitFallback stand in for a
	// write's unset ones (confirmUnset, fallbackUnset: none).
	defaultConfirmation   confirmMode
	defaultElicitFallback fallbackMode
	// emitZeroValues: answers write every response field at its zero value
	// (emit_zero_values).
	emitZeroValues bool
	// jsonNames: agents see protojson field names (field_naming: JSON_NAME).
	jsonNames bool
	tools     []*toolModel
	resolvers []*resolverModel
	discovery []*discoveryModel
	// vocabTools list live vocabularies (agent.vocabulary discovery_tool).
	vocabTools []*vocabToolModel
	// vocabNames are the live vocabularies the tools take, first use first.
	vocabNames []string
	// outputEnums are the alias tables responses render enums with, by enum.
	outputEnums map[protoreflect.FullName]*enumTable
	// zeroFields are the response fields answers write at their zero value
	// (walk_zero_values.go).
	zeroFields   map[protoreflect.FullName]bool
	validateTool string
	schemaTool   string
	applyTool    string
	discardTool  string
	// operationsTool follows long-running operations (walk_operations.go); ""
	// when no tool is long-running.
	operationsTool string
	// resources are the read tools also served as MCP resource templates
	// (walk_resources.go).
	resources []schemadoc.Resource
}

// toolModel is one exposed method.
type toolModel struct {
	// textFields are the optional message fields the input-schema budget
	// gives as JSON text (schema_budget.go); nil when within it.
	textFields map[*fieldModel]bool
	// briefMask: the budget leaves the update_mask's path list to
	// get_write_schema.
	briefMask bool
	// inputSchema is the input schema as the document gives it (agent
	// descriptions applied) and inputLong its long descriptions, kept by
	// the budget's measure when it collapses nothing, so the document does
	// not build and write the same schema again; nil otherwise.
	inputSchema    json.RawMessage
	inputLong      map[string]string
	svc            *serviceModel
	method         *protogen.Method
	name           string
	title          string
	description    string
	kind           toolKind
	classification toolClass
	// decidedBy names the signal that decided kind and classification when
	// the tool option sets no kind (walk_aip_classify.go); "" otherwise.
	decidedBy    string
	confirmation confirmMode
	// elicitFallback: what an elicitation the client cannot show becomes.
	elicitFallback fallbackMode
	// confirmationMessage: the template of the question the user is asked.
	confirmationMessage string
	// previewUnless: the bool request field that must be true to write
	// (nil: the call writes without it).
	previewUnless *fieldModel
	readOnly      bool
	destructive   bool
	idempotent    bool
	openWorld     bool
	result        string
	nextSteps     []string
	retry         uint32
	input         *messageModel
	pairCheck     *pairCheckModel
	// examples are the tool's documented examples, checked against its
	// input fields.
	examples []schemadoc.Example
	// operation is set when the method returns google.longrunning.Operation
	// (walk_operations.go).
	operation *operationModel
}

// messageModel is a request message or a message nested in one.
type messageModel struct {
	proto *protogen.Message
	// variant is "" or the standard method whose resource this model is
	// (walk_aip_identity.go): its Go names carry it.
	variant string
	// owned are the fields the server owns, which the agent is told so
	// when it sends one (walk_aip_identity.go).
	owned []ownedField
	// mask: the request of an Update tool whose update_mask is checked
	// against its resource (walk_aip_update.go); nil otherwise.
	mask   *maskCheck
	fields []*fieldModel
	// agentFacing: at least one field (transitively) is agent-supplied.
	agentFacing bool
	// serverFilled: at least one field (transitively) is filled by the server.
	serverFilled bool
	// hasResolvers: a resolver fills some field (transitively).
	hasResolvers bool
	// hasReferences: some agent.reference field (transitively).
	hasReferences bool
	// requiredOneofs: oneofs whose members the agent must set exactly one
	// of ((mcpwrite.v1.oneof).required); every member is agent-facing.
	requiredOneofs map[*protogen.Oneof]bool
	// msgOneofs are the message's (buf.validate.message).oneof rules.
	msgOneofs []msgOneof
	// recursive: the message contains itself, directly or through other
	// messages; the input schema spells out a bounded number of its levels.
	recursive bool
	// itemKey is the field marked agent.item_key: the item's own
	// idempotency key when the message is the item of a repeated field.
	itemKey *fieldModel
	// asItem: some repeated field has the message as its items.
	asItem bool
	// asMapValue: some map field has the message as its values.
	asMapValue bool
	// jsonNames: the file's services name fields (and control arguments)
	// as protojson does.
	jsonNames bool
}

// fieldModel is one field with its resolved rules.
type fieldModel struct {
	proto     *protogen.Field
	msg       *messageModel // the message this field belongs to
	mode      fieldMode
	agentName string // name in the input schema
	required  bool
	desc      string
	// implicitAgent: agent-supplied for want of an annotation (none, or
	// hidden = false), not by an explicit agent annotation.
	implicitAgent bool
	enumTable     *enumTable
	// pv are the buf.validate rules without an mcpwrite counterpart
	// (agent-supplied and enum alias fields), nil when there are none.
	pv *pvRules
	// Resolved once from the field's annotations (held by the walk, see
	// fieldRules), for the emitters, the schema builders and the checks
	// over the model, which never read an annotation:
	// value are an agent field's value rules (modeAgent), nil otherwise.
	value *valueConstraints
	// enumDefault is an enum_alias field's default, nil when none.
	enumDefault *enumDefault
	// fill is how the server fills the field (modeDerived, modeGenerated).
	fill *fillModel
	// ruleDocs are the field's buf.validate rules as getWriteSchema lists
	// them.
	ruleDocs []ruleDoc
	// recursionDepth is an agent field's recursion_depth, nil when unset.
	recursionDepth *int
	// overridable: a server field the agent may supply.
	overridable bool
	// override: the numeric buf.validate rules of an overridable field,
	// mapped as an agent field's for its schema; nil when none.
	override *pvRules
	// child is the message model of a non-well-known message field.
	child *messageModel
	// textOK: a tool's schema budget gives this message field as JSON
	// text, so its decoder takes the object or JSON text of it.
	textOK bool
	// anyTypes are the candidates of a google.protobuf.Any field
	// (walk_fields_any.go), nil for any other field.
	anyTypes []anyType
	// fromEnum is the sibling enum field of a derived.from_enum field.
	fromEnum *fieldModel
	// implies maps source enum value numbers to target value Go identifiers.
	implies []impliedValue
	// hashFrom are the sibling fields a CONTENT_HASH reads.
	hashFrom []*fieldModel
	// resolver fills this field (modeDerived).
	resolver *resolverModel
	// requiredWhen makes the field required when a sibling holds one of
	// some values (modeAgent).
	requiredWhen *requiredWhenModel
	// vocab: the field takes a value of a live vocabulary (modeAgent).
	vocab *vocabModel
}

type impliedValue struct {
	source *protogen.EnumValue
	target *protogen.EnumValue
}

// resolverModel is a named server-side resolver (Resolve<Name> on the Handler).
type resolverModel struct {
	name     string // snake_case from the annotation
	method   string // ResolveActiveModel
	goType   string // rendered Go type, for the two-types check
	firstUse string // where it was first used, for error messages
	field    *protogen.Field
	// reference: the resolver turns an agent's id-or-name into an id
	// (agent.reference); kind names what it references.
	reference bool
	kind      string
}

// enumTable is one agent-facing alias table.
type enumTable struct {
	enum    *protogen.Enum
	varName string
	style   aliasStyle
	extra   map[string]string
	hint    string
	values  []aliasValue
}

// aliasValue is one offered enum value.
type aliasValue struct {
	value    *protogen.EnumValue
	alias    string
	synonyms []string
	desc     string
}

// discoveryModel is one read-only enum discovery tool.
type discoveryModel struct {
	tool    string
	table   *enumTable
	groupBy *protogen.Enum
	pairs   *pairRule
	desc    string
}

// msgOneof is one (buf.validate.message).oneof rule: at most one of its
// fields is set, exactly one when required.
type msgOneof struct {
	fields   []string // proto names, as written
	required bool
	// agentKeys are the fields' agent names when the agent can set every
	// one of them, so the decoder checks the rule; nil leaves it to the
	// protovalidate step.
	agentKeys []string
}

// valueConstraints are an agent field's value rules (AgentSupplied, with the
// buf.validate rules that map onto them folded in), resolved once: the
// decoder checks them and the input schema states them. Length, pattern and
// range rules apply to each item of a list and each value of a map.
type valueConstraints struct {
	minLength, maxLength *uint32
	pattern              *string
	minimum, maximum     *float64
	minItems, maxItems   *uint32
	// deflt is the value an omitted field takes, nil when none;
	// defaultText is the default as written, trimmed.
	deflt       *literal
	defaultText string
	// examples are the field's example values, decoded.
	examples []any
}

// enumDefault is the value an omitted enum_alias field takes.
type enumDefault struct {
	text  string // as written: an alias or synonym
	value *protogen.EnumValue
}

// fillKind is where the server takes a field's value from.
type fillKind int

const (
	fillGenerated fillKind = iota + 1
	fillFromEnum
	fillContext
	fillResolver
	fillConstant
)

// generatedKind is what a generated field holds.
type generatedKind int

const (
	genUUIDv4 generatedKind = iota + 1
	genUUIDv7
	genULID
	genNow
	genContentHash
	genRequestScoped
)

// fillModel is a resolved derived or generated rule.
type fillModel struct {
	source fillKind
	// generated: the kind, an optional prefix and, for a content hash, the
	// fields it hashes as written.
	gen      generatedKind
	prefix   *string
	hashFrom []string
	// fromEnum: the sibling enum field's name as written.
	fromEnum string
	// context: the runtime identifier of the key (ContextTenantID) and how
	// the schema document says it is filled (schemadoc.ContextFillHow).
	contextIdent, contextHow string
	// resolver: the resolver's name.
	resolver string
	// constant: the literal and its text as written.
	constant     literal
	constantText string
}

// Tool facts resolved from the annotation enums, for the schema builders.

// pairRule is an enum's valid (source, target) pairs: which values of the
// enum named by pairs_of each of its values may connect.
type pairRule struct {
	types *enumTable // the relationship enum
	ends  *enumTable // the pairs_of enum
	pairs []pairValue
}

type pairValue struct {
	typ, source, target *protogen.EnumValue
}

// pairCheckModel is a tool's pair_check: the request fields it reads.
type pairCheckModel struct {
	typ, source, target *protogen.Field
	rule                *pairRule
	varName             string
}

// ownedField is a field the server owns, with why, for the agent.
type ownedField struct {
	name string // agent-facing name
	why  string
}

// maskCheck is what the decoder of an Update request checks.
type maskCheck struct {
	mask     *fieldModel // the update_mask field
	resource *fieldModel // the resource field (its model is variantUpdate)
	identity string      // proto name of the resource's identity field
	// owned: the resource's fields (full names, at any depth a mask path
	// reaches) that the project's own annotations give the server, with
	// why; a mask naming one is refused like an OUTPUT_ONLY field.
	owned map[string]string
	// jsonNames: the service names fields as protojson does.
	jsonNames bool
}

// requiredWhenModel is a resolved (mcpwrite.v1.field).agent.required_when:
// the field is required when the sibling `when` holds one of values.
type requiredWhenModel struct {
	when   *fieldModel
	values []condValue
}

// condValue is one value of a condition.
type condValue struct {
	lit  literal // compared with the sibling's getter
	json any     // the JSON value, for getWriteSchema
	text string  // how descriptions name it: the alias, else the JSON literal
}

// vocabModel links an agent.vocabulary field to the live vocabulary whose
// values it takes.
type vocabModel struct {
	name string
	// discoveryTool lists the vocabulary's values ("" for none).
	discoveryTool string
	// listedBy names the tools the field's description points to, with
	// the verb: "list_entity_types and get_write_schema list" (the
	// discovery tool and the schema tool of the first service using it).
	listedBy string
}

// vocabToolModel is one read-only tool listing a live vocabulary.
type vocabToolModel struct {
	tool       string
	vocabulary string
	desc       string
}

// literal is a Go expression for a JSON literal from an annotation: either
// plain code or an identifier the generated file must import.
type literal struct {
	code  string
	ident *protogen.GoIdent
	// jsonValue is the decoded literal, for schema defaults and examples.
	jsonValue any
}

// operationModel is what the operation a long-running method starts
// eventually holds (walk_operations.go).
type operationModel struct {
	// response and metadata are full message names; "" when unknown.
	response, metadata string
}

// anyType is one candidate of an Any field: its type URL and the model of
// its message, decoded by its own generated decoder.
type anyType struct {
	url   string
	model *messageModel
}
