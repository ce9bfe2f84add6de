package realworld

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// TestOneMethodNeverBlocksAService adopts two services that generated
// nothing while one method stopped them: Spanner's DatabaseAdmin (an
// internal method whose request carries a google.rpc.Status) and Cloud
// Build (an inbound webhook taking a google.api.HttpBody). Each method is
// left out with a warning naming it and the option that includes it; every
// other method is a tool.
func TestOneMethodNeverBlocksAService(t *testing.T) {
	skipWithoutCorpus(t)
	for _, c := range []struct {
		file  string
		tools int
		warn  string
	}{
		{"google/spanner/admin/database/v1/spanner_database_admin.proto", 26,
			"protoc-gen-mcpwrite: warning: google/spanner/admin/database/v1/spanner_database_admin.proto:495:3: method google.spanner.admin.database.v1.DatabaseAdmin.InternalUpdateGraphOperation left out: it is documented as internal, not for API users; to make it a tool add option (mcpwrite.v1.tool) = {omit: false}; to the method, or option (mcpwrite.v1.tool) = {omit: true}; to leave it out without this warning\n"},
		{"google/devtools/cloudbuild/v1/cloudbuild.proto", 18,
			"protoc-gen-mcpwrite: warning: google/devtools/cloudbuild/v1/cloudbuild.proto:389:3: method google.devtools.cloudbuild.v1.CloudBuild.ReceiveTriggerWebhook left out: it is an inbound webhook (its request carries the raw HTTP body in body, google.api.HttpBody); to make it a tool add option (mcpwrite.v1.tool) = {omit: false}; to the method, or option (mcpwrite.v1.tool) = {omit: true}; to leave it out without this warning\n"},
	} {
		p, err := protogen.Options{}.New(request(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		var warn bytes.Buffer
		if err := gen.Generate(p, gen.Config{Warn: &warn}); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		var left []string
		for _, l := range strings.SplitAfter(warn.String(), "\n") {
			if strings.Contains(l, " left out: ") {
				left = append(left, l)
			}
		}
		if got := strings.Join(left, ""); got != c.warn {
			t.Errorf("%s: warnings:\n got: %s\nwant: %s", c.file, got, c.warn)
		}
		tools := -1
		for _, f := range gen.Response(p).File {
			if strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
				var d doc
				if err := json.Unmarshal([]byte(f.GetContent()), &d); err != nil {
					t.Fatal(err)
				}
				tools = len(d.Services[0].Tools)
			}
		}
		if tools != c.tools {
			t.Errorf("%s: %d tools, want %d", c.file, tools, c.tools)
		}
	}
}
