package realworld

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

var update = flag.Bool("update", false, "rewrite testdata/report.txt from this run")

// corpus are the adopted files: nine public Google Cloud APIs written to
// the AIPs (standard methods, field_behavior, resources, update masks,
// long-running operations).
var corpus = []string{
	"google/cloud/secretmanager/v1/service.proto",
	"google/cloud/kms/v1/service.proto",
	"google/cloud/tasks/v2/cloudtasks.proto",
	"google/cloud/scheduler/v1/cloudscheduler.proto",
	"google/cloud/workflows/v1/workflows.proto",
	"google/pubsub/v1/pubsub.proto",
	"google/cloud/resourcemanager/v3/projects.proto",
	"google/cloud/run/v2/service.proto",
	"google/cloud/redis/v1/cloud_redis.proto",
}

// doc is what the checks read of a generated .mcpwrite.json.
type doc struct {
	Services []struct {
		Name  string `json:"name"`
		Tools []struct {
			Name           string          `json:"name"`
			Method         string          `json:"method"`
			Kind           string          `json:"kind"`
			Classification string          `json:"classification"`
			Confirmation   string          `json:"confirmation"`
			DecidedBy      string          `json:"decided_by"`
			InputSchema    json.RawMessage `json:"input_schema"`
			OutputSchema   json.RawMessage `json:"output_schema"`
		} `json:"tools"`
	} `json:"services"`
}

func skipWithoutCorpus(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(protosDir); err != nil {
		t.Skipf("corpus not installed (%v); run make realworld-deps", err)
	}
}

// generate adopts and generates file and returns its document.
func generate(t *testing.T, file string) []byte {
	t.Helper()
	resp, err := plugintest.Run(request(t, file))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil {
		t.Fatalf("%s: generation failed:\n%s", file, resp.GetError())
	}
	for _, f := range resp.File {
		if strings.HasSuffix(f.GetName(), ".mcpwrite.json") {
			return []byte(f.GetContent())
		}
	}
	t.Fatalf("%s: no .mcpwrite.json emitted", file)
	return nil
}

// TestRealworldAdoption adopts every corpus file with the two lines only
// and checks each tool: standard methods have the kind and classification
// their AIP says, every update and delete names its resource, input
// schemas are strict-safe, and the table of tools with the tools/list size
// of each service is exactly testdata/report.txt.
func TestRealworldAdoption(t *testing.T) {
	skipWithoutCorpus(t)
	var report bytes.Buffer
	for _, file := range corpus {
		raw := generate(t, file)
		var d doc
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, svc := range d.Services {
			counts := map[string]int{}
			var lint []string
			fmt.Fprintf(&report, "== %s (%s)\n", svc.Name, file)
			for _, tool := range svc.Tools {
				method := tool.Method[strings.LastIndex(tool.Method, ".")+1:]
				if err := checkStandard(method, tool.Kind, tool.Classification, tool.Confirmation, tool.DecidedBy, tool.InputSchema); err != nil {
					t.Errorf("%s %s: %v", svc.Name, tool.Name, err)
				}
				if _, err := gen.ToOpenAIStrict(tool.InputSchema); err != nil {
					t.Errorf("%s %s: not strict-convertible: %v", svc.Name, tool.Name, err)
				}
				// Portability findings (nesting depth) are listed, exactly.
				lint = append(lint, gen.LintSchema(tool.Name, tool.InputSchema)...)
				lint = append(lint, gen.LintOutputSchema(tool.Name, tool.OutputSchema)...)
				counts[tool.Kind+"/"+tool.Classification]++
				fmt.Fprintf(&report, "%-34s %-7s %-18s %-8s %s\n", method, tool.Kind, tool.Classification, tool.Confirmation, tool.DecidedBy)
			}
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
			}
			n := toolsListBytes(t, svc.Name, raw)
			for _, l := range lint {
				fmt.Fprintf(&report, "lint: %s\n", l)
			}
			fmt.Fprintf(&report, "-- %d methods: %s; annotations beyond the two lines: none; tools/list %d bytes\n", len(svc.Tools), strings.Join(parts, ", "), n)
		}
	}
	const path = "testdata/report.txt"
	if *update {
		if err := os.WriteFile(path, report.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(report.Bytes(), want) {
		t.Errorf("report differs from %s (go test ./realworld -update to accept):\n%s", path, report.String())
	}
}

// checkStandard checks one tool by its method's AIP standard-method name.
func checkStandard(method, kind, class, confirm, decidedBy string, input json.RawMessage) error {
	has := func(p string) bool { return strings.HasPrefix(method, p) }
	want := func(k, c string) error {
		if kind != k || class != c {
			return fmt.Errorf("%s is %s %s, want %s %s", method, kind, class, k, c)
		}
		return nil
	}
	props, err := properties(input)
	if err != nil {
		return err
	}
	switch {
	case has("Get") && props["name"] != nil || has("List") && props["parent"] != nil:
		return want("READ", "READ_ONLY")
	case method == "GetIamPolicy" || method == "TestIamPermissions":
		return want("READ", "READ_ONLY")
	case has("Create") && (strings.HasPrefix(decidedBy, "AIP-133 Create shape") || strings.HasPrefix(decidedBy, "Create* taking the resource itself")):
		return want("CREATE", "SAFE_CREATE")
	case has("Create"):
		// Not a standard Create: no evidence it is safe.
		if err := want("CREATE", "DESTRUCTIVE_UPDATE"); err != nil || confirm == "DIRECT" {
			return fmt.Errorf("%s is %s %s %s, want a confirmed destructive create", method, kind, class, confirm)
		}
	case has("Update") && props["update_mask"] != nil:
		if err := want("UPDATE", "SAFE_UPDATE"); err != nil {
			return err
		}
		return namesResource(input, true, "name")
	case has("Update"):
		// No update_mask: nothing limits what it changes.
		if err := want("UPDATE", "DESTRUCTIVE_UPDATE"); err != nil {
			return err
		}
		return namesResource(input, false, "name")
	case has("Delete"):
		if err := want("DELETE", "DESTRUCTIVE_DELETE"); err != nil {
			return err
		}
		// The resource's name is the delete binding's path variable
		// ({topic=projects/*/topics/*}), name without a binding.
		name := "name"
		if m := pathVarRE.FindStringSubmatch(decidedBy); m != nil {
			name = m[1]
		}
		return namesResource(input, false, name)
	case has("Destroy") || has("Purge") || has("Disable") || has("Restore") || has("Import") || has("Set") && strings.HasSuffix(method, "Policy"):
		if class != "DESTRUCTIVE_UPDATE" && class != "DESTRUCTIVE_DELETE" || confirm == "DIRECT" {
			return fmt.Errorf("%s is %s %s, want destructive and confirmed", method, class, confirm)
		}
	}
	return nil
}

// pathVarRE finds the first path variable of an HTTP binding.
var pathVarRE = regexp.MustCompile(`\{([a-z_]+)=`)

// properties returns the top-level properties of an input schema.
func properties(input json.RawMessage) (map[string]json.RawMessage, error) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	err := json.Unmarshal(input, &s)
	return s.Properties, err
}

// namesResource checks that a standard update's resource (the object
// property beside update_mask) requires its name, or that the request of a
// delete or a custom update requires name.
func namesResource(input json.RawMessage, update bool, name string) error {
	type schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	var s schema
	if err := json.Unmarshal(input, &s); err != nil {
		return err
	}
	if !update {
		if !contains(s.Required, name) {
			return fmt.Errorf("request does not require %s (required: %v)", name, s.Required)
		}
		return nil
	}
	for k, raw := range s.Properties {
		var p schema
		if err := json.Unmarshal(raw, &p); err != nil || p.Properties == nil || k == "update_mask" {
			continue
		}
		if !contains(p.Required, "name") {
			return fmt.Errorf("update's %s does not require name (required: %v)", k, p.Required)
		}
		return nil
	}
	return fmt.Errorf("update has no resource property")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// toolsListBytes registers service name of a document with stub bindings
// and returns the size of the tools/list result the MCP server sends.
func toolsListBytes(t *testing.T, name string, raw []byte) int {
	t.Helper()
	return len(toolsList(t, name, raw))
}

// toolsList registers service name of a document with stub bindings and
// opts, and returns the tools/list result the MCP server sends.
func toolsList(t *testing.T, name string, raw []byte, opts ...runtime.Option) []byte {
	t.Helper()
	var d doc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var binds []*mcpwriteimpl.Tool
	for _, svc := range d.Services {
		if svc.Name != name {
			continue
		}
		for _, tool := range svc.Tools {
			binds = append(binds, &mcpwriteimpl.Tool{
				Name:       tool.Name,
				NewRequest: func() proto.Message { return &emptypb.Empty{} },
				Decode:     func(*mcpwriteimpl.Decoder, *mcpwriteimpl.Object, proto.Message) {},
				Enrich:     func(*mcpwriteimpl.Call, proto.Message) error { return nil },
				Invoke:     func(context.Context, proto.Message) (proto.Message, error) { return &emptypb.Empty{}, nil },
			})
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "realworld", Version: "test"}, nil)
	if err := gosdk.Register(s, &mcpwriteimpl.Service{Name: name, Doc: raw, Tools: binds}, opts...); err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	return mcptest.RawToolsList(t, s)
}
