package realworld

import (
	"encoding/json"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// The corpus's long-running methods (those returning
// google.longrunning.Operation): how many there are, and how many name
// their eventual response and metadata types (google.longrunning.operation_info).
const (
	corpusOperations      = 21
	corpusOperationsNamed = 21
)

// TestRealworldOperationsNameTheirTypes: every long-running method of the
// corpus says what its operation eventually holds, or that it is unknown,
// and its service names the operations tool.
func TestRealworldOperationsNameTheirTypes(t *testing.T) {
	skipWithoutCorpus(t)
	total, named := 0, 0
	for _, file := range corpus {
		var d schemadoc.Document
		if err := json.Unmarshal(generate(t, file), &d); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, svc := range d.Services {
			for _, tool := range svc.Tools {
				op := tool.Operation
				if op == nil {
					continue
				}
				total++
				if svc.OperationsTool == "" {
					t.Errorf("%s %s: long-running, but the service names no operations tool", svc.Name, tool.Name)
				}
				if op.Unknown == "" && op.ResponseType != "" && op.MetadataType != "" {
					named++
				} else {
					t.Logf("%s %s: %s", svc.Name, tool.Name, op.Unknown)
				}
			}
		}
	}
	if total != corpusOperations || named != corpusOperationsNamed {
		t.Errorf("%d long-running methods, %d naming their eventual types; want %d and %d", total, named, corpusOperations, corpusOperationsNamed)
	}
}
