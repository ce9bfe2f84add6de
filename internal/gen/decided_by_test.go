package gen_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// decidedByOf generates src and returns "tool kind classification:
// decided_by" for every tool of its schema document, the decided_by that
// get_write_schema answers.
func decidedByOf(t *testing.T, src string) string {
	t.Helper()
	resp, err := plugintest.Run(request(t, src, ""))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil {
		t.Fatalf("generate: %s", resp.GetError())
	}
	var lines []string
	for _, f := range resp.File {
		if !strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
			continue
		}
		var doc struct {
			Services []struct {
				Tools []struct {
					Name           string `json:"name"`
					Kind           string `json:"kind"`
					Classification string `json:"classification"`
					DecidedBy      string `json:"decided_by"`
				} `json:"tools"`
			} `json:"services"`
		}
		if err := json.Unmarshal([]byte(f.GetContent()), &doc); err != nil {
			t.Fatal(err)
		}
		for _, s := range doc.Services {
			for _, tool := range s.Tools {
				lines = append(lines, tool.Name+" "+tool.Kind+" "+tool.Classification+": "+tool.DecidedBy)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// TestDecidedByNamesTheToolOption: get_write_schema's decided_by is never
// empty. A tool option that sets the kind is the evidence, with the
// classification it sets or the kind's default; one that sets only the
// classification follows the proto signal that decided the kind.
func TestDecidedByNamesTheToolOption(t *testing.T) {
	src := `
service S {
  rpc PurgeShelf(Req) returns (Req) { option (mcpwrite.v1.tool) = {kind: DELETE}; }
  rpc TidyShelf(Req) returns (Req) { option (mcpwrite.v1.tool) = {kind: UPDATE, classification: SAFE_UPDATE}; }
  rpc OpenShelf(Req) returns (Req) { option (mcpwrite.v1.tool) = {kind: ACTION}; }
  rpc Shelve(Req) returns (Req) { option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE}; }
}
message Req { string name = 1; }`
	want := `purge_shelf DELETE DESTRUCTIVE_DELETE: kind DELETE from the tool option; classification DESTRUCTIVE_DELETE, the default of kind DELETE
tidy_shelf UPDATE SAFE_UPDATE: kind UPDATE from the tool option; classification SAFE_UPDATE from the tool option
open_shelf ACTION SAFE_UPDATE: kind ACTION from the tool option; classification SAFE_UPDATE, the default of kind ACTION
shelve ACTION SAFE_UPDATE: method name Shelve; destructive by default: no evidence it is safe (declare it with option (mcpwrite.v1.tool) = {classification: SAFE_UPDATE}); classification SAFE_UPDATE from the tool option`
	if got := decidedByOf(t, src); got != want {
		t.Errorf("decided_by:\n got %s\nwant %s", got, want)
	}
}
