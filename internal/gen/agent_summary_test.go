package gen_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// A write whose confirmation can be a proposal declares the optional
// agent summary argument (described, bounded); a write that commits
// directly, one that refuses instead of proposing, a read, and a tool with
// its own field of that name do not.
func TestAgentSummaryIsDeclaredWhereAProposalCanBeMade(t *testing.T) {
	src := `
service S {
  rpc Propose(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE confirmation: PROPOSAL}; }
  rpc Ask(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: DELETE}; }
  rpc AskOrRefuse(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: DELETE elicit_fallback: REFUSE}; }
  rpc Direct(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: UPDATE}; }
  rpc Read(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: READ}; }
  rpc OwnSummary(Own) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE confirmation: PROPOSAL}; }
}
message Req { string id = 1; }
message Own { string summary = 1; }
message Resp { string id = 1; }
`
	resp, err := plugintest.Run(request(t, src, ""))
	if err != nil || resp.GetError() != "" {
		t.Fatalf("generate: %v %s", err, resp.GetError())
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
		t.Fatalf("document has %d services", len(doc.Services))
	}
	got := map[string]string{}
	for _, tool := range doc.Services[0].Tools {
		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &in); err != nil {
			t.Fatal(err)
		}
		var prop bytes.Buffer
		if p := in.Properties["summary"]; p != nil {
			if err := json.Compact(&prop, p); err != nil {
				t.Fatal(err)
			}
		}
		got[tool.Name] = tool.AgentSummary + " " + prop.String()
	}
	const declared = `summary {"type":"string","maxLength":200,"minLength":1,"description":"Optional: the change in your own words, one line for the user who confirms it (e.g. \"Merge the duplicate Ada L. into Ada Lovelace\"). Shown beside the server's summary when the write is proposed for confirmation; it changes nothing that is written."}`
	want := map[string]string{
		"propose":       declared,
		"ask":           declared,
		"ask_or_refuse": " ",
		"direct":        " ",
		"read":          " ",
		"own_summary":   ` {"type":"string"}`,
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: agent_summary and summary schema = %s\nwant %s", name, got[name], w)
		}
	}
}
