package gen

import (
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// Evidence read from a method that its tool option does not classify
// (docs/existing-apis.md, "How expose: ALL classifies a method"). Each
// function returns the evidence as the text decided_by records, or "".

// destructiveVerbs are the verbs of methods that destroy, overwrite,
// interrupt or disable something, or mint a credential: a method whose
// verb (its first word after a batch/bulk modifier) is one of them is
// destructive whatever else its proto says.
var destructiveVerbs = map[string]bool{
	"delete": true, "remove": true, "purge": true, "destroy": true, "drop": true, "truncate": true,
	"expunge": true, "erase": true, "wipe": true, "shred": true, "clear": true,
	"cancel": true, "stop": true, "abort": true, "kill": true, "terminate": true, "interrupt": true,
	"disable": true, "suspend": true, "deactivate": true, "revoke": true, "evict": true, "detach": true,
	"reset": true, "rollback": true, "revert": true, "restore": true, "undelete": true,
	"import": true, "overwrite": true, "replace": true, "undeploy": true, "decommission": true,
	"sign": true, "rotate": true, "failover": true, "switchover": true, "promote": true, "demote": true,
}

// verbModifiers are leading words that qualify a method's verb
// (BatchDeleteDocuments, BulkDeleteFeeds, AsyncCancel...).
var verbModifiers = map[string]bool{"batch": true, "bulk": true, "async": true, "raw": true, "asymmetric": true, "mac": true, "force": true, "mass": true}

// credentialNouns make a Generate* method one that mints a credential or
// a signed URL (GenerateAccessToken, GenerateUploadUrl).
var credentialNouns = map[string]bool{"token": true, "credential": true, "credentials": true, "key": true, "secret": true, "password": true, "url": true, "uri": true, "certificate": true, "signed": true, "jwt": true, "otp": true}

// methodVerb is the verb of a method's name: its first word after any
// modifiers ("delete" for BatchDeleteDocuments), and the words after it.
func methodVerb(words []string) (string, []string) {
	for i, w := range words {
		if !verbModifiers[w] || i == len(words)-1 {
			return w, words[i+1:]
		}
	}
	return "", nil
}

// destructiveVerbEvidence is the destructive verb of a method's name:
// its verb, a Set*Policy, a *Sign method, or a Generate* that mints a
// credential.
func destructiveVerbEvidence(words []string) string {
	verb, rest := methodVerb(words)
	switch {
	case destructiveVerbs[verb]:
		return "destructive verb " + naming.Pascal([]string{verb}) + "*"
	case verb == "set" && len(rest) > 0 && rest[len(rest)-1] == "policy":
		return "destructive verb Set*Policy (replaces the whole policy)"
	case len(words) > 0 && words[len(words)-1] == "sign":
		return "destructive verb *Sign (mints a signature)"
	case verb == "generate" || verb == "mint" || verb == "issue":
		for _, w := range rest {
			if credentialNouns[w] {
				return "destructive verb " + naming.Pascal([]string{verb}) + "*" + naming.Pascal([]string{w}) + " (mints a credential)"
			}
		}
	}
	return ""
}

// destructiveCommentRE finds what a method's comment says it destroys or
// overwrites.
var destructiveCommentRE = lazyRegexp(`(?i)\b(permanently|cannot be undone|can ?not be undone|can't be undone|irreversibl[ey]|irrevocabl[ey]|overwrit(?:es|ten|e)|deletes|drops|destroys|purges|erases|wipes|truncates|revokes)\b`)

// destructiveCommentEvidence quotes the first destructive word of a
// method's leading comment.
func destructiveCommentEvidence(m *protogen.Method) string {
	if w := destructiveCommentRE().FindString(m.Comments.Leading.String()); w != "" {
		return `comment says "` + strings.ToLower(w) + `"`
	}
	return ""
}

// destructiveRequestEvidence names what a write's request carries that
// makes it destructive: statements (DDL or SQL), force, or a bulk
// selector (a filter) without an etag that pins what it selects.
func destructiveRequestEvidence(in *protogen.Message) string {
	var filter, etag string
	for _, f := range in.Fields {
		name := string(f.Desc.Name())
		switch {
		case f.Desc.Kind() == protoreflect.StringKind && statementFields[name]:
			return "request field " + name + " (statements can drop or overwrite data)"
		case name == "force" && f.Desc.Kind() == protoreflect.BoolKind:
			return "request field force"
		case name == "filter" && f.Desc.Kind() == protoreflect.StringKind:
			filter = name
		case name == "etag":
			etag = name
		}
	}
	// A resource's own filter (a subscription's) selects nothing to change.
	if filter != "" && etag == "" && !isResource(in, "") {
		return "request field " + filter + " (a bulk selector without etag)"
	}
	return ""
}

// isResource reports whether m is a resource: it carries google.api.resource,
// or its name is the method's noun (Book for CreateBook).
func isResource(m *protogen.Message, noun string) bool {
	if ext[*annotations.ResourceDescriptor](m.Desc.Options(), annotations.E_Resource) != nil {
		return true
	}
	return string(m.Desc.Name()) == noun
}

// statementFields are request fields that carry statements a server
// executes.
var statementFields = map[string]bool{"statements": true, "statement": true, "ddl": true, "ddl_statements": true, "sql": true, "dml": true, "extra_statements": true}

// destructiveEvidence is the first destructive signal of a write: its
// verb, its comment, its request.
func destructiveEvidence(m *protogen.Method, words []string) string {
	if e := destructiveVerbEvidence(words); e != "" {
		return e
	}
	if e := destructiveCommentEvidence(m); e != "" {
		return e
	}
	return destructiveRequestEvidence(m.Input)
}

// readVerbs are the verbs of AIP-136 custom methods that read: bound to
// post (or another verb an API chose), they still change nothing unless
// their proto says otherwise (readContrary). Generate* is not among them:
// a generated URL or token is a credential; nor is Verify*: verifying a
// channel or a domain marks it verified.
var readVerbs = map[string]bool{
	"get": true, "list": true, "search": true, "query": true, "lint": true, "check": true,
	"validate": true, "test": true, "compute": true, "preview": true, "estimate": true,
	"lookup": true, "describe": true, "explain": true, "find": true,
	"count": true, "analyze": true, "retrieve": true, "batch get": true,
}

// nameReadVerbs are the verbs infer_reads_from_names accepts from a
// method without an HTTP binding.
var nameReadVerbs = map[string]bool{"get": true, "list": true, "search": true, "batch get": true}

// readVerb returns the read verb a method name starts with, or "".
func readVerb(words []string, verbs map[string]bool) string {
	if len(words) > 1 && verbs[words[0]+" "+words[1]] {
		return words[0] + " " + words[1]
	}
	if len(words) > 0 && verbs[words[0]] {
		return words[0]
	}
	return ""
}

// writeWords in a read-verb name make it a write (CheckAndMutateRow,
// ValidateAndCommit, TestAndSet); so do credential nouns and "code"
// (RetrieveCredentials, GetNotificationChannelVerificationCode): a
// credential handed out is not a read to run unconfirmed.
var writeWords = map[string]bool{
	"and": true, "or": true, "then": true, "mutate": true, "write": true, "commit": true, "apply": true,
	"execute": true, "run": true, "start": true, "export": true, "import": true, "create": true,
	"update": true, "delete": true, "set": true, "insert": true, "remove": true, "modify": true,
	"put": true, "patch": true, "save": true, "publish": true, "send": true, "acknowledge": true, "ack": true,
}

// stateChangeRE finds what a read-verb method's comment says it changes.
var stateChangeRE = lazyRegexp(`(?i)\b(creates?|updates?|deletes?|modif(?:y|ies)|writes?|stores?|saves?|persists?|overwrit(?:es|e)|mutates?|removes?|starts?|triggers?|sends?|publish(?:es)?|acknowledges?|consumes?|commits?|applies|changes the|sets the|permanently|cannot be undone|irreversibl[ey]|drops?|purges?|exports?|imports?|generates? a signed|signs?)\b`)

// writeRequestFields in a read-verb method's request say it writes: an
// idempotency key, a validate-only switch, a mask, an output destination.
var writeRequestFields = map[string]bool{
	"request_id": true, "validate_only": true, "update_mask": true, "allow_missing": true, "force": true,
	"etag": true, "output_config": true, "destination": true, "output_uri": true, "output_uri_prefix": true,
	"gcs_destination": true, "bigquery_destination": true, "output_location": true,
}

// readContrary names what contradicts a read verb: a write word in the
// name, a long-running operation, a request field only a write takes,
// statements, or a comment that says the method changes something.
func readContrary(m *protogen.Method, words []string) string {
	for _, w := range words[1:] {
		if writeWords[w] || credentialNouns[w] || w == "code" {
			return "name word " + w
		}
	}
	if m.Output.Desc.FullName() == "google.longrunning.Operation" {
		return "returns google.longrunning.Operation"
	}
	for _, f := range m.Input.Fields {
		name := string(f.Desc.Name())
		if writeRequestFields[name] || strings.HasSuffix(name, "_destination") || statementFields[name] {
			return "request field " + name
		}
	}
	if w := stateChangeRE().FindString(m.Comments.Leading.String()); w != "" {
		return `comment says "` + strings.ToLower(w) + `"`
	}
	return ""
}
