package gen_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// readReq is a read's request with a tenant from the context.
const readReq = `
message Req {
  string tenant_id = 1 [(mcpwrite.v1.field).derived = {context: TENANT_ID}];
  string id = 2;
}
message Resp { string id = 1; }
`

// readService is a service with one read whose options are opts.
func readService(opts string) string {
	return `
service S {
  rpc Get(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: READ ` + opts + `}; }
}
`
}

func TestReadMisuseIsReportedWithTheFix(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "READ with preview_unless",
			src:  readService(`preview_unless: "id"`) + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ writes nothing to preview; remove preview_unless "id"`,
		},
		{
			name: "READ with a confirmation_message",
			src:  readService(`confirmation_message: "Read {id}?"`) + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ is never confirmed (a read changes nothing); remove confirmation_message`,
		},
		{
			name: "READ with an elicit_fallback",
			src:  readService("elicit_fallback: REFUSE") + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ is never confirmed (a read changes nothing); remove elicit_fallback REFUSE`,
		},
		{
			name: "READ with a confirmation",
			src:  readService("confirmation: ELICIT") + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ is never confirmed (a read changes nothing); remove confirmation ELICIT`,
		},
		{
			name: "READ with DIRECT confirmation spelled out",
			src:  readService("confirmation: DIRECT") + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ is never confirmed (a read changes nothing); remove confirmation DIRECT`,
		},
		{
			name: "READ with a write classification",
			src:  readService("classification: DESTRUCTIVE_DELETE") + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ is classified READ_ONLY; remove classification DESTRUCTIVE_DELETE`,
		},
		{
			name: "READ_ONLY on a write",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: UPDATE classification: READ_ONLY}; }
}
` + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Do: classification READ_ONLY is only for kind READ; set kind: READ, or a write classification (SAFE_CREATE, SAFE_UPDATE, DESTRUCTIVE_UPDATE, DESTRUCTIVE_DELETE)`,
		},
		{
			name: "READ_ONLY on a method whose kind comes from its name",
			src: `
service S {
  rpc CreateThing(Req) returns (Resp) { option (mcpwrite.v1.tool) = {classification: READ_ONLY}; }
}
` + readReq,
			want: `bad.proto:10:3: method bad.v1.S.CreateThing: classification READ_ONLY is only for kind READ; set kind: READ, or a write classification (SAFE_CREATE, SAFE_UPDATE, DESTRUCTIVE_UPDATE, DESTRUCTIVE_DELETE)`,
		},
		{
			name: "READ that says it is not read-only",
			src:  readService("read_only_hint: false") + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ is read-only, not destructive and idempotent; remove read_only_hint: false`,
		},
		{
			name: "READ that says it is destructive",
			src:  readService("destructive_hint: true") + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ is read-only, not destructive and idempotent; remove destructive_hint: true`,
		},
		{
			name: "READ that says it is not idempotent",
			src:  readService("idempotent_hint: false") + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ is read-only, not destructive and idempotent; remove idempotent_hint: false`,
		},
		{
			name: "READ with retry_on_conflict",
			src:  readService("retry_on_conflict: true") + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: kind READ has no write to retry on conflict; remove retry_on_conflict and max_conflict_retries`,
		},
		{
			name: "READ with a REQUEST_SCOPED id",
			src: readService("") + `
message Req {
  string id = 1 [(mcpwrite.v1.field).generated = {kind: REQUEST_SCOPED}];
  string name = 2;
}
message Resp { string id = 1; }
`,
			want: `bad.proto:14:3: message bad.v1.Req: field id: REQUEST_SCOPED is derived from client_request_id, which read tool get (method bad.v1.S.Get) does not take; use UUID_V7, or make the method a write`,
		},
		{
			name: "READ with a REQUEST_SCOPED id in a nested message",
			src: readService("") + `
message Req {
  string name = 1;
  Filter filter = 2;
}
message Filter {
  string trace = 1 [(mcpwrite.v1.field).generated = {kind: REQUEST_SCOPED}];
  string text = 2;
}
message Resp { string id = 1; }
`,
			want: `bad.proto:18:3: message bad.v1.Filter: field trace: REQUEST_SCOPED is derived from client_request_id, which read tool get (method bad.v1.S.Get) does not take; use UUID_V7, or make the method a write`,
		},
		{
			name: "READ example sending client_request_id",
			src:  readService(`examples: [{input: "{\"id\":\"b1\",\"client_request_id\":\"k1\"}"}]`) + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: example 1: "client_request_id" is not an input field of get; use its input fields (id)`,
		},
		{
			name: "READ example sending dry_run",
			src:  readService(`examples: [{input: "{\"dry_run\":true}"}]`) + readReq,
			want: `bad.proto:10:3: method bad.v1.S.Get: example 1: "dry_run" is not an input field of get; use its input fields (id)`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, files := generate(t, c.src, "")
			if got != c.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, c.want)
			}
			if files != 0 {
				t.Errorf("emitted %d files next to an error; want none", files)
			}
		})
	}
}

// A write example may carry the write's control arguments; the same
// arguments make a read's example fail (above).
func TestWriteExampleMayCarryControlArguments(t *testing.T) {
	src := `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE examples: [{input: "{\"id\":\"b1\",\"client_request_id\":\"k1\",\"dry_run\":true}"}]}; }
}
` + readReq
	got, files := generate(t, src, "")
	if got != "" || files != 2 {
		t.Errorf("got error %q and %d files; want no error and 2 files", got, files)
	}
}

// A service of reads only has nothing to validate and nothing to propose:
// its document names the schema tool and no validate, apply or discard
// tool, whatever its default_confirmation.
func TestServiceOfReadsOnlyHasNoValidateOrProposalTools(t *testing.T) {
	src := `
service S {
  option (mcpwrite.v1.service) = {default_confirmation: PROPOSAL};
  rpc Get(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: READ}; }
}
` + readReq
	resp, err := plugintest.Run(request(t, src, ""))
	if err != nil || resp.GetError() != "" {
		t.Fatalf("run: %v %s", err, resp.GetError())
	}
	var doc schemadoc.Document
	for _, f := range resp.File {
		if strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
			if err := json.Unmarshal([]byte(f.GetContent()), &doc); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(doc.Services) != 1 {
		t.Fatalf("document %+v", doc)
	}
	s := doc.Services[0]
	got := []string{s.ValidateTool, s.SchemaTool, s.ApplyTool, s.DiscardTool, s.Tools[0].Kind, s.Tools[0].Classification, s.Tools[0].Confirmation}
	want := []string{"", "get_write_schema", "", "", "READ", "READ_ONLY", "DIRECT"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("validate, schema, apply, discard, kind, classification, confirmation = %q, want %q", got, want)
	}
}
