package gen_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// idWarning is the warning of a CREATE tool whose id the agent may choose.
const idWarning = "bad.proto:15:3: tool do: the agent may supply the id id (overridable); the domain must check that it does not exist in the caller's tenant (answer ALREADY_EXISTS, never overwrite) and must look ids up in that tenant only, so another tenant's ids are neither overwritten nor revealed; or let the server alone choose it: remove overridable: true from its (mcpwrite.v1.field).generated option"

// lintIDsWarnings runs the plugin leniently on src and returns its warnings.
func lintIDsWarnings(t *testing.T, src string) string {
	t.Helper()
	p, err := protogen.Options{}.New(request(t, src, ""))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	if err := gen.Generate(p, gen.Config{Warn: &warn}); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return warn.String()
}

// A create whose id the agent may supply is how one tenant took over
// another's element: the domain stored the agent's id without checking it.
func TestCreateWithAgentSuppliedIDWarns(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{
			name: "overridable UUID id on a CREATE tool",
			src: service + `
message Req {
  string id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V7 overridable: true}];
  string name = 2;
}`,
			want: "protoc-gen-mcpwrite: warning: " + idWarning + "\n",
		},
		{
			name: "an overridable id in a nested message names its path",
			src: service + `
message Item {
  string item_id = 1 [(mcpwrite.v1.field).generated = {kind: ULID overridable: true}];
  string name = 2;
}
message Req {
  repeated Item items = 1 [(mcpwrite.v1.field).agent = {max_items: 10}];
}`,
			want: "protoc-gen-mcpwrite: warning: bad.proto:15:3: tool do: the agent may supply the id items[].item_id (overridable); the domain must check that it does not exist in the caller's tenant (answer ALREADY_EXISTS, never overwrite) and must look ids up in that tenant only, so another tenant's ids are neither overwritten nor revealed; or let the server alone choose it: remove overridable: true from its (mcpwrite.v1.field).generated option\n",
		},
		{
			name: "a server-only id does not warn",
			src: service + `
message Req {
  string id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V7}];
  string name = 2;
}`,
		},
		{
			name: "an overridable time is not an id",
			src: service + `
message Req {
  string at = 1 [(mcpwrite.v1.field).generated = {kind: NOW overridable: true}];
  string name = 2;
}`,
		},
		{
			name: "an update names an existing id: no warning",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: UPDATE}; }
}
message Resp { string id = 1; }
message Req {
  string id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V7 overridable: true}];
  string name = 2;
}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := lintIDsWarnings(t, tc.src); got != tc.want {
				t.Errorf("warnings:\n got: %q\nwant: %q", got, tc.want)
			}
		})
	}
}

func TestStrictTurnsTheAgentSuppliedIDWarningIntoAnError(t *testing.T) {
	src := service + `
message Req {
  string id = 1 [(mcpwrite.v1.field).generated = {kind: UUID_V7 overridable: true}];
  string name = 2;
}`
	got, files := generate(t, src, "strict=true")
	if got != idWarning || files != 0 {
		t.Errorf("strict: error %q and %d files; want %q and none", got, files, idWarning)
	}
}
