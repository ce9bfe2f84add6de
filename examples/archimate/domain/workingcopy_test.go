package domain_test

import (
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// A working copy applies writes as New's repository does and keeps no copy
// of the requests; New's repository keeps each one.
func TestWorkingCopyKeepsNoRequests(t *testing.T) {
	kept, copyRepo := domain.New(), domain.NewWorkingCopy()
	for _, repo := range []*domain.Repository{kept, copyRepo} {
		if err := create(repo, "t1", "e-1", "Order Service"); err != nil {
			t.Fatal(err)
		}
		e, ok := repo.Element("t1", "e-1")
		if !ok || e.GetName() != "Order Service" || e.GetType() != archimatev1.ElementType_ELEMENT_TYPE_NODE {
			t.Fatalf("element e-1: %v, %v", e, ok)
		}
	}
	if got := kept.Received(); len(got) != 1 || got[0].(*archimatev1.CreateElementRequest).GetName() != "Order Service" {
		t.Errorf("New: received %v, want the one create", got)
	}
	if got := copyRepo.Received(); len(got) != 0 {
		t.Errorf("NewWorkingCopy: received %v, want none", got)
	}
}
