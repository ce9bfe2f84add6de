package realworld

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// maxCompactBytesPerTool is what a compact tools/list may cost per tool on
// the adopted services, the service tools included.
const maxCompactBytesPerTool = 300

// TestCompactListOfRealServicesPerTool lists every adopted service with
// runtime.WithCompactList and holds its tools/list, divided by its tool
// count (write, read and service tools), within maxCompactBytesPerTool;
// the bytes of each service and of each service tool are exactly
// testdata/compact.txt.
func TestCompactListOfRealServicesPerTool(t *testing.T) {
	skipWithoutCorpus(t)
	var report strings.Builder
	for _, file := range corpus {
		raw := generate(t, file)
		var d doc
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, svc := range d.Services {
			list := toolsList(t, svc.Name, raw, runtime.WithCompactList())
			var res struct {
				Tools []json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(list, &res); err != nil {
				t.Fatalf("%s: %v", svc.Name, err)
			}
			n := len(res.Tools)
			per := len(list) / n
			fmt.Fprintf(&report, "%-22s %3d tools %6d bytes %4d per tool\n", svc.Name[strings.LastIndex(svc.Name, ".")+1:], n, len(list), per)
			if per > maxCompactBytesPerTool {
				t.Errorf("%s: compact tools/list %d bytes for %d tools, %d per tool (limit %d)", svc.Name, len(list), n, per, maxCompactBytesPerTool)
			}
			own := map[string]bool{}
			for _, tool := range svc.Tools {
				own[tool.Name] = true
			}
			var service []string
			for _, tr := range res.Tools {
				var tool struct {
					Name string `json:"name"`
				}
				_ = json.Unmarshal(tr, &tool)
				if !own[tool.Name] {
					service = append(service, fmt.Sprintf("  %s %d", tool.Name, len(tr)))
				}
			}
			sort.Strings(service)
			report.WriteString(strings.Join(service, "\n") + "\n")
		}
	}
	const path = "testdata/compact.txt"
	if *update {
		if err := os.WriteFile(path, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if report.String() != string(want) {
		t.Errorf("compact lists differ from %s (go test ./realworld -run TestCompactListOfRealServicesPerTool -update to accept):\n%s", path, report.String())
	}
}
