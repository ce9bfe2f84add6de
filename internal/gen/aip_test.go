package gen_test

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// runWarn runs the plugin on src with cfg and returns what it wrote to
// Warn and the error it reported.
func runWarn(t *testing.T, src string, cfg gen.Config) (string, string) {
	t.Helper()
	p, err := protogen.Options{}.New(request(t, src, ""))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	cfg.Warn = &warn
	msg := ""
	if err := gen.Generate(p, cfg); err != nil {
		msg = err.Error()
	}
	return warn.String(), msg
}

// A subtree the API documents "Output only." but never annotated (an
// attempt's status, holding google.protobuf.Any) is dropped with a warning
// instead of failing the build.
func TestCommentOutputOnlySubtreeIsDroppedWithAWarning(t *testing.T) {
	src := `
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  rpc CreateTask(CreateTaskRequest) returns (Task);
}
message Status { google.protobuf.Any details = 1; }
message Attempt { Status status = 1; }
message Task {
  string name = 1;
  // Output only. The last attempt.
  Attempt last_attempt = 2;
}
message CreateTaskRequest {
  string parent = 1;
  Task task = 2;
}`
	want := `protoc-gen-mcpwrite: warning: bad.proto:15:1: message bad.v1.Task: last_attempt documented "Output only." without google.api.field_behavior; the agent does not set them (annotate them OUTPUT_ONLY to make it explicit: [(google.api.field_behavior) = OUTPUT_ONLY])` + "\n"
	// strict=true turns portability warnings into errors, not this one.
	for _, strict := range []bool{false, true} {
		warn, msg := runWarn(t, src, gen.Config{Strict: strict})
		if msg != "" {
			t.Fatalf("strict=%t: Generate: %s", strict, msg)
		}
		if warn != want {
			t.Errorf("strict=%t: warnings:\n got: %q\nwant: %q", strict, warn, want)
		}
	}
}

// Without that comment the refusal names the tool, the path from the
// request, where the field is declared and the fix in the user's message:
// an error for a method with a tool option, a warning that leaves the
// method out for one only expose: ALL exposes.
func TestRefusalNamesToolPathAndOwnedFix(t *testing.T) {
	src := `
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  rpc CreateTask(CreateTaskRequest) returns (Task)%s;
}
message Attempt { google.protobuf.Any details = 1; }
message Task {
  string name = 1;
  Attempt last_attempt = 2;
}
message CreateTaskRequest {
  string parent = 1;
  Task task = 2;
}`
	_, msg := runWarn(t, strings.Replace(src, "%s", " { option (mcpwrite.v1.tool) = {kind: CREATE}; }", 1), gen.Config{})
	want := "bad.proto:13:19: tool create_task: task.last_attempt.details: google.protobuf.Any cannot be agent-supplied without a candidate type (its comment names none, and package bad.v1 declares no other message to pack) (declared in bad.proto, message bad.v1.Attempt); name the types bad.v1.Attempt.details takes in its comment (e.g. type.googleapis.com/bad.v1.Message), or mark the field hidden or derived with a resolver"
	if msg != want {
		t.Errorf("error:\n got: %s\nwant: %s", msg, want)
	}
	warn, msg := runWarn(t, strings.Replace(src, "%s", "", 1), gen.Config{})
	wantWarn := "protoc-gen-mcpwrite: warning: bad.proto:11:3: method bad.v1.S.CreateTask left out: " + want +
		"; to leave it out without this warning add option (mcpwrite.v1.tool) = {omit: true}; to the method\n"
	if msg != "" || warn != wantWarn {
		t.Errorf("expose: ALL: error %q, warnings:\n got: %s\nwant: %s", msg, warn, wantWarn)
	}
}

// vendor_notes says which signal decided each tool, the tool option when
// it set the kind.
func TestVendorNotesNameTheDecidingSignal(t *testing.T) {
	src := `
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  rpc ListTasks(Req) returns (Resp) { option idempotency_level = NO_SIDE_EFFECTS; }
  rpc PurgeTasks(Req) returns (Resp);
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Req { string name = 1; }
message Resp { string id = 1; }`
	warn, msg := runWarn(t, src, gen.Config{VendorNotes: true})
	if msg != "" {
		t.Fatalf("Generate: %s", msg)
	}
	want := "protoc-gen-mcpwrite: note: bad.proto:11:3: method bad.v1.S.ListTasks: tool list_tasks: READ READ_ONLY from idempotency_level NO_SIDE_EFFECTS; to decide otherwise, set kind and classification in the method's (mcpwrite.v1.tool) option\n" +
		"protoc-gen-mcpwrite: note: bad.proto:12:3: method bad.v1.S.PurgeTasks: tool purge_tasks: DELETE DESTRUCTIVE_DELETE from method name PurgeTasks; destructive: destructive verb Purge*; to decide otherwise, set kind and classification in the method's (mcpwrite.v1.tool) option\n" +
		"protoc-gen-mcpwrite: note: bad.proto:13:3: method bad.v1.S.Do: tool do: CREATE SAFE_CREATE from kind CREATE from the tool option; classification SAFE_CREATE, the default of kind CREATE; to decide otherwise, set kind and classification in the method's (mcpwrite.v1.tool) option\n"
	var got string
	for _, l := range strings.SplitAfter(warn, "\n") {
		if !strings.Contains(l, "-strict: ") { // the vendor notes proper
			got += l
		}
	}
	if got != want {
		t.Errorf("notes:\n got: %q\nwant: %q", got, want)
	}
}

// The update tool's resource model is named BookForUpdate in generated
// code; a message of that name in the same Go package is refused.
func TestUpdateVariantNameClashIsRefused(t *testing.T) {
	src := `
import "google/protobuf/field_mask.proto";
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  rpc UpdateBook(UpdateBookRequest) returns (Book);
}
message Book { string name = 1; string title = 2; }
message BookForUpdate { string x = 1; }
message UpdateBookRequest {
  Book book = 1;
  google.protobuf.FieldMask update_mask = 2;
}`
	// expose: ALL leaves the method out, naming the clash and its fixes.
	warn, msg := runWarn(t, src, gen.Config{})
	want := "protoc-gen-mcpwrite: warning: bad.proto:12:3: method bad.v1.S.UpdateBook left out: bad.proto:17:3: message bad.v1.UpdateBookRequest: field book: the update tool's model of Book would share generated names with message bad.v1.BookForUpdate; rename BookForUpdate, or set the tool's kind with (mcpwrite.v1.tool); to leave it out without this warning add option (mcpwrite.v1.tool) = {omit: true}; to the method\n"
	if msg != "" || warn != want {
		t.Errorf("error %q, warnings:\n got: %s\nwant: %s", msg, warn, want)
	}
}

// A method its proto makes a read, with a tool option only a write takes,
// is refused naming the signal and both fixes.
func TestReadSignalWithWriteOptionIsRefused(t *testing.T) {
	src := `
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  rpc TouchTask(Req) returns (Resp) {
    option idempotency_level = NO_SIDE_EFFECTS;
    option (mcpwrite.v1.tool) = {confirmation: PROPOSAL};
  }
}
message Req { string name = 1; }
message Resp { string id = 1; }`
	_, msg := runWarn(t, src, gen.Config{})
	want := "bad.proto:11:3: method bad.v1.S.TouchTask: idempotency_level NO_SIDE_EFFECTS makes it a read (kind READ), but its tool option sets confirmation, which only a write takes; set kind (CREATE, UPDATE, DELETE or ACTION) to keep it a write, or remove confirmation"
	if msg != want {
		t.Errorf("error:\n got: %s\nwant: %s", msg, want)
	}
}
