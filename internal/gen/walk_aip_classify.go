package gen

import (
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// A method without a kind in its tool option is classified from what its
// proto already says, and fails closed (docs/existing-apis.md):
//
//  1. Reads: idempotency_level = NO_SIDE_EFFECTS, a google.api.http get
//     binding, an IAM read request (iamReads), or an AIP-136 custom
//     method bound to post whose verb reads (readVerbs: Query*, Lint*,
//     Check*, BatchGet*...) and whose proto says nothing contrary
//     (readContrary: a write word in its name, a long-running operation,
//     a request field only a write takes, a comment that says it changes
//     something). With the service's infer_reads_from_names, Get*, List*,
//     Search* and BatchGet* are reads by name alone.
//  2. The kind of a write: a delete binding, or Delete* taking a name:
//     DELETE; Create* taking a resource (and its parent): CREATE; Update*
//     taking a resource and an update_mask: UPDATE; Create* bound to post
//     or put: CREATE; another patch or put binding: UPDATE; otherwise the
//     method name's verb (kindFromName).
//  3. The classification of a write: destructive on any destructive
//     evidence (destructiveEvidence: its verb, its comment, its request);
//     else safe only on positive evidence, an AIP-133 standard Create (or
//     a Create* taking the resource itself) or an AIP-134 standard Update limited to the fields of its
//     update_mask; else destructive by default. idempotency_level
//     IDEMPOTENT says a retry is safe, not that the write is: it is
//     recorded, and makes idempotentHint true.
//
// A tool option's kind or classification overrides what was decided;
// decided_by records the evidence either way.

// iamReads are the google.iam.v1 requests of reads that AIP APIs bind to
// post (AIP-211 mixins): their type says they change nothing.
var iamReads = map[protoreflect.FullName]bool{
	"google.iam.v1.GetIamPolicyRequest":       true,
	"google.iam.v1.TestIamPermissionsRequest": true,
}

// signal is what decided a tool's kind and classification.
type signal struct {
	kind           toolKind
	classification toolClass
	why            string
}

// httpVerb returns a method's google.api.http verb (get, post, put, patch,
// delete, or a custom verb) and path; "" when it has no binding.
func httpVerb(m *protogen.Method) (verb, path string) {
	rule := ext[*annotations.HttpRule](m.Desc.Options(), annotations.E_Http)
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return "get", p.Get
	case *annotations.HttpRule_Post:
		return "post", p.Post
	case *annotations.HttpRule_Put:
		return "put", p.Put
	case *annotations.HttpRule_Patch:
		return "patch", p.Patch
	case *annotations.HttpRule_Delete:
		return "delete", p.Delete
	case *annotations.HttpRule_Custom:
		return strings.ToLower(p.Custom.GetKind()), p.Custom.GetPath()
	}
	return "", ""
}

// idempotencyLevel returns a method's idempotency_level.
func idempotencyLevel(m *protogen.Method) descriptorpb.MethodOptions_IdempotencyLevel {
	opts, _ := m.Desc.Options().(*descriptorpb.MethodOptions)
	return opts.GetIdempotencyLevel()
}

// classify decides the kind and classification of a method whose tool
// option sets no kind, from its proto-native signals.
func classify(sm *serviceModel, m *protogen.Method) signal {
	if s, ok := classifyRead(sm, m); ok {
		return s
	}
	s := writeKind(m)
	words := naming.Words(string(m.Desc.Name()))
	if idempotencyLevel(m) == descriptorpb.MethodOptions_IDEMPOTENT {
		s.why += "; idempotency_level IDEMPOTENT (safe to retry, not evidence of a safe write)"
	}
	destructive := classDestructiveUpdate
	if s.kind == kindDelete {
		destructive = classDestructiveDelete
	}
	switch e := destructiveEvidence(m, words); {
	case e != "":
		s.classification = destructive
		s.why += "; destructive: " + e
	case s.kind == kindDelete:
		s.classification = destructive
		s.why += "; destructive: a delete"
	case s.classification != classUnset:
		// Positive evidence of a safe write: a standard Create or Update.
	default:
		s.classification = destructive
		s.why += "; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE})"
	}
	return s
}

// classifyRead decides whether a method is a read, and on what evidence.
func classifyRead(sm *serviceModel, m *protogen.Method) (signal, bool) {
	verb, path := httpVerb(m)
	name := string(m.Desc.Name())
	words := naming.Words(name)
	read := func(why string) (signal, bool) {
		return signal{kind: kindRead, classification: classReadOnly, why: why}, true
	}
	// A get binding on a method whose verb destroys or mints a credential,
	// or that starts a long-running operation, is not taken as a read
	// (RestoreDatasetVersion and GenerateAccessToken are bound to get).
	getWrites := destructiveVerbEvidence(words) != "" || m.Output.Desc.FullName() == "google.longrunning.Operation"
	switch {
	case idempotencyLevel(m) == descriptorpb.MethodOptions_NO_SIDE_EFFECTS:
		return read("idempotency_level NO_SIDE_EFFECTS")
	case verb == "get" && !getWrites:
		return read("google.api.http get: " + path)
	case iamReads[m.Input.Desc.FullName()]:
		return read("request " + string(m.Input.Desc.FullName()) + " (an IAM read bound to post)")
	}
	if rv := readVerb(words, readVerbs); rv != "" && verb == "post" && readContrary(m, words) == "" {
		return read("read verb " + naming.Pascal(strings.Fields(rv)) + "* bound to post: " + path)
	}
	if serviceRules(sm).GetInferReadsFromNames() && readVerb(words, nameReadVerbs) != "" {
		return read("method name " + name + " (infer_reads_from_names)")
	}
	return signal{}, false
}

// writeKind decides the kind of a write, and marks a standard Create or
// Update safe: the positive evidence a safe write needs.
func writeKind(m *protogen.Method) signal {
	verb, path := httpVerb(m)
	name := string(m.Desc.Name())
	words := naming.Words(name)
	var s signal
	switch {
	case verb == "delete":
		s = signal{kind: kindDelete, why: "google.api.http delete: " + path}
	case hasPrefixWord(words, "delete") && stringField(m.Input, "name") != nil:
		s = signal{kind: kindDelete, why: "AIP-135 Delete shape (Delete* with name)"}
	case hasPrefixWord(words, "create") && createResource(m) != nil:
		s = signal{kind: kindCreate, classification: classSafeCreate, why: "AIP-133 Create shape (Create* with parent and resource)"}
	case hasPrefixWord(words, "create") && (verb == "post" || verb == "put") && isResource(m.Input, strings.TrimPrefix(name, "Create")):
		s = signal{kind: kindCreate, classification: classSafeCreate, why: "Create* taking the resource itself, bound to " + verb + ": " + path}
	case hasPrefixWord(words, "create") && (verb == "post" || verb == "put"):
		s = signal{kind: kindCreate, why: "google.api.http " + verb + " on Create*: " + path}
	case hasPrefixWord(words, "update") && updateResource(m) != nil:
		s = signal{kind: kindUpdate, classification: classSafeUpdate, why: "AIP-134 Update shape (Update* with resource and update_mask: changes only the named fields)"}
	case verb == "patch" || verb == "put":
		s = signal{kind: kindUpdate, why: "google.api.http " + verb + ": " + path}
	case verb != "":
		s = signal{kind: kindFromName(name), why: "custom method " + name + " bound to " + verb + ": " + path}
	default:
		s = signal{kind: kindFromName(name), why: "method name " + name}
	}
	return s
}

func hasPrefixWord(words []string, w string) bool { return len(words) > 0 && words[0] == w }

// stringField returns m's singular string field called name, or nil.
func stringField(m *protogen.Message, name protoreflect.Name) *protogen.Field {
	for _, f := range m.Fields {
		if f.Desc.Name() == name && f.Desc.Kind() == protoreflect.StringKind && !f.Desc.IsList() {
			return f
		}
	}
	return nil
}

// resourceField returns the request field that carries the resource of a
// standard method named verb+Noun: a singular message field whose type is
// a resource.
func resourceField(m *protogen.Method, verb string) *protogen.Field {
	noun := strings.TrimPrefix(string(m.Desc.Name()), verb)
	for _, f := range m.Input.Fields {
		if f.Message == nil || f.Desc.IsList() || f.Desc.IsMap() || isWKT(f) {
			continue
		}
		if isResource(f.Message, noun) {
			return f
		}
	}
	return nil
}

// createResource is the resource field of an AIP-133 Create: a resource
// field, beside a string parent when the request has one.
func createResource(m *protogen.Method) *protogen.Field {
	rf := resourceField(m, "Create")
	if rf == nil {
		return nil
	}
	for _, f := range m.Input.Fields {
		if f.Desc.Name() == "parent" && stringField(m.Input, "parent") == nil {
			return nil
		}
	}
	return rf
}

// updateResource is the resource field of an AIP-134 Update: a resource
// field beside a google.protobuf.FieldMask update_mask.
func updateResource(m *protogen.Method) *protogen.Field {
	if updateMaskField(m.Input) == nil {
		return nil
	}
	return resourceField(m, "Update")
}

// updateMaskField returns m's update_mask field when it is a FieldMask.
func updateMaskField(m *protogen.Message) *protogen.Field {
	for _, f := range m.Fields {
		if f.Desc.Name() == "update_mask" && f.Message != nil && f.Message.Desc.FullName() == "google.protobuf.FieldMask" && !f.Desc.IsList() {
			return f
		}
	}
	return nil
}

// classifyTool sets the kind of t, whose tool option sets none, and its
// classification unless the option sets one, and records the signal. A
// method its proto makes a read whose tool option sets what only a write
// takes is refused with both fixes.
func (b *builder) classifyTool(t *toolModel) bool {
	s := classify(t.svc, t.method)
	if s.kind == kindRead {
		if opt := writeOnlyOption(toolRules(t)); opt != "" {
			b.probs.methodf(t.method, "%s makes it a read (kind READ), but its tool option sets %s, which only a write takes; set kind (CREATE, UPDATE, DELETE or ACTION) to keep it a write, or remove %s", s.why, opt, opt)
			return false
		}
	}
	t.kind = s.kind
	t.decidedBy = s.why
	if t.classification == classUnset {
		t.classification = s.classification
	} else {
		t.decidedBy += "; classification " + t.classification.String() + " from the tool option"
	}
	return true
}

// writeOnlyOption names the first option of tr only a write takes, or "".
func writeOnlyOption(tr *mcpwritev1.ToolRules) string {
	switch {
	case tr == nil:
		return ""
	case tr.Classification != nil && tr.GetClassification() != mcpwritev1.ToolRules_READ_ONLY:
		return "classification " + tr.GetClassification().String()
	case tr.Confirmation != nil:
		return "confirmation"
	case tr.ConfirmationMessage != nil:
		return "confirmation_message"
	case tr.PreviewUnless != nil:
		return "preview_unless"
	case tr.ElicitFallback != nil:
		return "elicit_fallback"
	case tr.RetryOnConflict != nil || tr.MaxConflictRetries != nil:
		return "retry_on_conflict"
	}
	return ""
}
