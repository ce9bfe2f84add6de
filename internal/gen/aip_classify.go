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
// proto already says, in this order (docs/existing-apis.md):
//
//  1. idempotency_level = NO_SIDE_EFFECTS, a google.api.http get
//     binding, or an IAM read request (iamReads): READ.
//  2. The HTTP verb and the AIP standard-method shape: a delete binding,
//     or Delete* taking a name: DELETE; Create* taking a resource (and
//     its parent): CREATE; Update* taking a resource and an update_mask:
//     UPDATE; Create* bound to post or put: CREATE; another patch or put
//     binding: UPDATE.
//  3. Irreversible custom methods (irreversibleVerbs, Set*Policy):
//     destructive, so confirmed.
//  4. Only with the service's infer_reads_from_names: Get*, List*,
//     Search*, BatchGet* are reads.
//  5. Otherwise the method name's verb (kindFromName), as for any tool.
//
// A tool option's kind or classification overrides what a signal decided.

// irreversibleVerbs are the first words of custom methods that cannot be
// undone; Set...Policy methods (SetIamPolicy) replace a whole policy and
// are irreversible too.
var irreversibleVerbs = []string{"destroy", "purge", "expunge", "erase", "wipe", "shred", "truncate", "revoke", "drop"}

// iamReads are the google.iam.v1 requests of reads that AIP APIs bind to
// post (AIP-211 mixins): their type says they change nothing.
var iamReads = map[protoreflect.FullName]bool{
	"google.iam.v1.GetIamPolicyRequest":       true,
	"google.iam.v1.TestIamPermissionsRequest": true,
}

// readVerbs are the first words name-only read inference accepts.
var readVerbs = map[string]bool{"get": true, "list": true, "search": true, "batch get": true}

// signal is what decided a tool's kind and classification.
type signal struct {
	kind           mcpwritev1.ToolRules_Kind
	classification mcpwritev1.ToolRules_Classification // unspecified: the kind's default
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

// noSideEffects reports idempotency_level = NO_SIDE_EFFECTS.
func noSideEffects(m *protogen.Method) bool {
	opts, _ := m.Desc.Options().(*descriptorpb.MethodOptions)
	return opts.GetIdempotencyLevel() == descriptorpb.MethodOptions_NO_SIDE_EFFECTS
}

// classify decides the kind and classification of a method whose tool
// option sets no kind, from its proto-native signals.
func classify(sm *serviceModel, m *protogen.Method) signal {
	verb, path := httpVerb(m)
	name := string(m.Desc.Name())
	words := naming.Words(name)
	var s signal
	switch {
	case noSideEffects(m):
		s = signal{kind: mcpwritev1.ToolRules_READ, why: "idempotency_level NO_SIDE_EFFECTS"}
	case verb == "get":
		s = signal{kind: mcpwritev1.ToolRules_READ, why: "google.api.http get: " + path}
	case iamReads[m.Input.Desc.FullName()]:
		s = signal{kind: mcpwritev1.ToolRules_READ, why: "request " + string(m.Input.Desc.FullName()) + " (an IAM read bound to post)"}
	case verb == "delete":
		s = signal{kind: mcpwritev1.ToolRules_DELETE, why: "google.api.http delete: " + path}
	case hasPrefixWord(words, "delete") && stringField(m.Input, "name") != nil:
		s = signal{kind: mcpwritev1.ToolRules_DELETE, why: "AIP-135 Delete shape (Delete* with name)"}
	case hasPrefixWord(words, "create") && createResource(m) != nil:
		s = signal{kind: mcpwritev1.ToolRules_CREATE, why: "AIP-133 Create shape (Create* with parent and resource)"}
	case hasPrefixWord(words, "create") && (verb == "post" || verb == "put"):
		s = signal{kind: mcpwritev1.ToolRules_CREATE, why: "google.api.http " + verb + " on Create*: " + path}
	case hasPrefixWord(words, "update") && updateResource(m) != nil:
		s = signal{kind: mcpwritev1.ToolRules_UPDATE, why: "AIP-134 Update shape (Update* with resource and update_mask)"}
	case verb == "patch" || verb == "put":
		s = signal{kind: mcpwritev1.ToolRules_UPDATE, why: "google.api.http " + verb + ": " + path}
	case serviceRules(sm).GetInferReadsFromNames() && len(words) > 0 && (readVerbs[words[0]] || len(words) > 1 && readVerbs[words[0]+" "+words[1]]):
		s = signal{kind: mcpwritev1.ToolRules_READ, why: "method name " + name + " (infer_reads_from_names)"}
	default:
		s = signal{kind: kindFromName(name), why: "method name " + name}
	}
	if s.kind != mcpwritev1.ToolRules_READ {
		if v := irreversible(words); v != "" {
			s.classification = mcpwritev1.ToolRules_DESTRUCTIVE_UPDATE
			if s.kind == mcpwritev1.ToolRules_DELETE {
				s.classification = mcpwritev1.ToolRules_DESTRUCTIVE_DELETE
			}
			s.why += "; irreversible " + v
		}
	}
	return s
}

// irreversible names the irreversible verb a method name starts with
// ("Destroy*", "Set*Policy"), or "".
func irreversible(words []string) string {
	if len(words) == 0 {
		return ""
	}
	for _, v := range irreversibleVerbs {
		if words[0] == v {
			return naming.Pascal([]string{v}) + "*"
		}
	}
	if words[0] == "set" && len(words) > 1 && words[len(words)-1] == "policy" {
		return "Set*Policy"
	}
	return ""
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

// isResource reports whether m is a resource: it carries google.api.resource,
// or its name is the method's noun (Book for CreateBook).
func isResource(m *protogen.Message, noun string) bool {
	if ext[*annotations.ResourceDescriptor](m.Desc.Options(), annotations.E_Resource) != nil {
		return true
	}
	return string(m.Desc.Name()) == noun
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
	if s.kind == mcpwritev1.ToolRules_READ {
		if opt := writeOnlyOption(toolRules(t)); opt != "" {
			b.probs.methodf(t.method, "%s makes it a read (kind READ), but its tool option sets %s, which only a write takes; set kind (CREATE, UPDATE, DELETE or ACTION) to keep it a write, or remove %s", s.why, opt, opt)
			return false
		}
	}
	t.kind = s.kind
	t.decidedBy = s.why
	if t.classification == mcpwritev1.ToolRules_CLASSIFICATION_UNSPECIFIED {
		t.classification = s.classification
	} else {
		t.decidedBy += "; classification from the tool option"
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
