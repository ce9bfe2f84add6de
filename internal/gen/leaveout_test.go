package gen_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// adoptedService is a service adopted with expose: ALL whose methods
// include one whose request the plugin cannot express (an Any without
// candidates), one documented as internal and one inbound webhook.
const adoptedService = `
import "google/api/httpbody.proto";
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  // Creates a thing.
  rpc CreateThing(CreateThingRequest) returns (Thing);
  // Reports a status.
  rpc ReportStatus(ReportStatusRequest) returns (Thing)%s;
  // This is an internal API called by workers. You should never need to
  // call this API directly.
  rpc SyncProgress(SyncProgressRequest) returns (Thing)%s;
  // Called when the API receives a webhook request for a trigger.
  rpc ReceiveTriggerWebhook(ReceiveTriggerWebhookRequest) returns (Thing);
}
message Thing { string name = 1; }
message CreateThingRequest { Thing thing = 1; }
message ReportStatusRequest { string name = 1; Detail detail = 2; }
message Detail { google.protobuf.Any payload = 1; }
message SyncProgressRequest { string name = 1; double progress = 2; }
message ReceiveTriggerWebhookRequest { string trigger = 1; google.api.HttpBody body = 2; }
`

// generateWarn runs the plugin on src and returns the error, the warnings
// and the tool names of the generated document.
func generateWarn(t *testing.T, src string) (string, string, []string) {
	t.Helper()
	p, err := protogen.Options{}.New(request(t, src, ""))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	if err := gen.Generate(p, gen.Config{Warn: &warn}); err != nil {
		return err.Error(), warn.String(), nil
	}
	var tools []string
	for _, f := range gen.Response(p).File {
		if !strings.HasSuffix(f.GetName(), ".json") {
			continue
		}
		var d struct {
			Services []struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"services"`
		}
		if err := json.Unmarshal([]byte(f.GetContent()), &d); err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Services {
			for _, tl := range s.Tools {
				tools = append(tools, tl.Name)
			}
		}
	}
	return "", warn.String(), tools
}

func TestExposeAllLeavesOutWhatCannotBeAToolAndGeneratesTheRest(t *testing.T) {
	errText, warn, tools := generateWarn(t, strings.Replace(strings.Replace(adoptedService, "%s", "", 1), "%s", "", 1))
	if errText != "" {
		t.Fatalf("generation failed: %s", errText)
	}
	want := `protoc-gen-mcpwrite: warning: bad.proto:15:3: method bad.v1.S.ReportStatus left out: bad.proto:25:18: tool report_status: detail.payload: google.protobuf.Any cannot be agent-supplied without a candidate type (its comment names none, and package bad.v1 declares no other message to pack) (declared in bad.proto, message bad.v1.Detail); name the types bad.v1.Detail.payload takes in its comment (e.g. type.googleapis.com/bad.v1.Message), or mark the field hidden or derived with a resolver; to leave it out without this warning add option (mcpwrite.v1.tool) = {omit: true}; to the method
protoc-gen-mcpwrite: warning: bad.proto:18:3: method bad.v1.S.SyncProgress left out: it is documented as internal, not for API users; to make it a tool add option (mcpwrite.v1.tool) = {omit: false}; to the method, or option (mcpwrite.v1.tool) = {omit: true}; to leave it out without this warning
protoc-gen-mcpwrite: warning: bad.proto:20:3: method bad.v1.S.ReceiveTriggerWebhook left out: it is an inbound webhook (its request carries the raw HTTP body in body, google.api.HttpBody); to make it a tool add option (mcpwrite.v1.tool) = {omit: false}; to the method, or option (mcpwrite.v1.tool) = {omit: true}; to leave it out without this warning
`
	if warn != want {
		t.Errorf("warnings:\n got: %s\nwant: %s", warn, want)
	}
	if got := strings.Join(tools, ","); got != "create_thing" {
		t.Errorf("tools: %s, want create_thing", got)
	}
}

// A method with a tool option is the author's choice: omit: true leaves it
// out silently, omit: false includes a method expose: ALL leaves out by
// default, and a tool option on a method that cannot be expressed is an
// error naming the fix, not a warning.
func TestToolOptionDecidesWhatExposeAllLeavesOut(t *testing.T) {
	src := func(report, sync string) string {
		return strings.Replace(strings.Replace(adoptedService, "%s", report, 1), "%s", sync, 1)
	}
	errText, warn, tools := generateWarn(t, src(` { option (mcpwrite.v1.tool) = {omit: true}; }`, ` { option (mcpwrite.v1.tool) = {omit: false}; }`))
	if errText != "" {
		t.Fatalf("generation failed: %s", errText)
	}
	wantWarn := "protoc-gen-mcpwrite: warning: bad.proto:20:3: method bad.v1.S.ReceiveTriggerWebhook left out: it is an inbound webhook (its request carries the raw HTTP body in body, google.api.HttpBody); to make it a tool add option (mcpwrite.v1.tool) = {omit: false}; to the method, or option (mcpwrite.v1.tool) = {omit: true}; to leave it out without this warning\n"
	if warn != wantWarn {
		t.Errorf("warnings:\n got: %s\nwant: %s", warn, wantWarn)
	}
	if got := strings.Join(tools, ","); got != "create_thing,sync_progress" {
		t.Errorf("tools: %s, want create_thing,sync_progress", got)
	}

	errText, _, _ = generateWarn(t, src(` { option (mcpwrite.v1.tool) = {kind: ACTION}; }`, ""))
	wantErr := "bad.proto:25:18: tool report_status: detail.payload: google.protobuf.Any cannot be agent-supplied without a candidate type (its comment names none, and package bad.v1 declares no other message to pack) (declared in bad.proto, message bad.v1.Detail); name the types bad.v1.Detail.payload takes in its comment (e.g. type.googleapis.com/bad.v1.Message), or mark the field hidden or derived with a resolver"
	if errText != wantErr {
		t.Errorf("error:\n got: %s\nwant: %s", errText, wantErr)
	}
}

// strict=true turns portability findings into errors, not a left-out
// method: the rest of the service is generated and the warning stays one.
func TestStrictKeepsLeftOutMethodsWarnings(t *testing.T) {
	src := strings.Replace(strings.Replace(adoptedService, "%s", "", 1), "%s", " { option (mcpwrite.v1.tool) = {omit: true}; }", 1)
	p, err := protogen.Options{}.New(request(t, src, "strict=true"))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	if err := gen.Generate(p, gen.Config{Strict: true, Warn: &warn}); err != nil {
		t.Fatalf("strict run failed: %v", err)
	}
	want := "protoc-gen-mcpwrite: warning: bad.proto:15:3: method bad.v1.S.ReportStatus left out: bad.proto:25:18: tool report_status: detail.payload: google.protobuf.Any cannot be agent-supplied without a candidate type (its comment names none, and package bad.v1 declares no other message to pack) (declared in bad.proto, message bad.v1.Detail); name the types bad.v1.Detail.payload takes in its comment (e.g. type.googleapis.com/bad.v1.Message), or mark the field hidden or derived with a resolver; to leave it out without this warning add option (mcpwrite.v1.tool) = {omit: true}; to the method\n" +
		"protoc-gen-mcpwrite: warning: bad.proto:20:3: method bad.v1.S.ReceiveTriggerWebhook left out: it is an inbound webhook (its request carries the raw HTTP body in body, google.api.HttpBody); to make it a tool add option (mcpwrite.v1.tool) = {omit: false}; to the method, or option (mcpwrite.v1.tool) = {omit: true}; to leave it out without this warning\n"
	if warn.String() != want {
		t.Errorf("warnings:\n got: %s\nwant: %s", warn.String(), want)
	}
	if n := len(gen.Response(p).File); n != 2 {
		t.Errorf("emitted %d files; want the .mcpwrite.go and .mcpwrite.json", n)
	}
}
