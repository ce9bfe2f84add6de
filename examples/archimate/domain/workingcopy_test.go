package domain_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

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

// TakeRows holds what Rows holds, in the same order, as the working copy's
// own messages where Rows holds copies.
func TestTakeRowsIsRowsWithoutCopies(t *testing.T) {
	repo := domain.NewWorkingCopy()
	for _, e := range [][2]string{{"e-2", "Billing"}, {"e-1", "Order Service"}, {"e-3", "Ledger"}} {
		if err := create(repo, "t1", e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	copied, own := repo.Rows("t1"), repo.TakeRows("t1")
	if len(own.Elements) != 3 || len(copied.Elements) != 3 {
		t.Fatalf("TakeRows %d elements, Rows %d; want 3", len(own.Elements), len(copied.Elements))
	}
	for i, e := range own.Elements {
		if !proto.Equal(e, copied.Elements[i]) || own.Born[e.GetId()] != copied.Born[e.GetId()] || own.Born[e.GetId()] == 0 {
			t.Errorf("element %d: TakeRows %v born %d, Rows %v born %d", i, e, own.Born[e.GetId()], copied.Elements[i], copied.Born[e.GetId()])
		}
		if e == copied.Elements[i] {
			t.Errorf("element %d: Rows did not copy", i)
		}
		if again := repo.TakeRows("t1").Elements[i]; again != e {
			t.Errorf("element %d: TakeRows copied", i)
		}
	}
	if ids := []string{own.Elements[0].GetId(), own.Elements[1].GetId(), own.Elements[2].GetId()}; ids[0] != "e-1" || ids[1] != "e-2" || ids[2] != "e-3" {
		t.Errorf("TakeRows order %v, want id order", ids)
	}
	if empty := repo.TakeRows("t2"); empty.Elements != nil || empty.Relationships != nil || len(empty.Born) != 0 {
		t.Errorf("TakeRows of an empty tenant = %+v", empty)
	}
}

// A working copy answers a create with the element and composition it
// keeps (what TakeRows then holds); New's repository answers copies, so
// a caller changing an answer changes nothing kept.
func TestWorkingCopyAnswersItsOwnRows(t *testing.T) {
	for _, bc := range []struct {
		name   string
		repo   *domain.Repository
		shared bool
	}{{"New", domain.New(), false}, {"NewWorkingCopy", domain.NewWorkingCopy(), true}} {
		if err := create(bc.repo, "t1", "p-1", "Platform"); err != nil {
			t.Fatal(err)
		}
		resp, err := bc.repo.CreateElement(context.Background(), &archimatev1.CreateElementRequest{
			Meta: &archimatev1.MessageMeta{TenantId: "t1"}, Id: "e-1", ModelId: "model-1",
			Type: archimatev1.ElementType_ELEMENT_TYPE_NODE, Name: "Order Service", ParentId: "p-1",
		})
		if err != nil {
			t.Fatal(err)
		}
		own := bc.repo.TakeRows("t1")
		var kept *archimatev1.Element
		for _, e := range own.Elements {
			if e.GetId() == "e-1" {
				kept = e
			}
		}
		if kept == nil || len(own.Relationships) != 1 || own.Relationships[0].GetId() != "e-1-composition" {
			t.Fatalf("%s: rows %v", bc.name, own)
		}
		if !proto.Equal(resp.GetElement(), kept) {
			t.Errorf("%s: answered %v, keeps %v", bc.name, resp.GetElement(), kept)
		}
		if got := resp.GetElement() == kept; got != bc.shared {
			t.Errorf("%s: answer is the kept element: %v, want %v", bc.name, got, bc.shared)
		}
	}
}

// BenchmarkWorkingCopyCreate is a keyed create's domain work on a working
// copy: loading the write's rows (none), the create, and the rows taken
// to be written.
func BenchmarkWorkingCopyCreate(b *testing.B) {
	req := &archimatev1.CreateElementRequest{
		Meta: &archimatev1.MessageMeta{TenantId: "t1"}, Id: "e-1", ModelId: "model-1",
		Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT, Name: "Svc-12345", Description: "Handles order processing",
	}
	b.ReportAllocs()
	for b.Loop() {
		repo := domain.NewWorkingCopy()
		repo.Load("t1", domain.Rows{})
		if _, err := repo.CreateElement(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		if len(repo.TakeRows("t1").Elements) != 1 {
			b.Fatal("no element")
		}
	}
}

// BenchmarkWriteRows is the rows a store writes after one create on a
// working copy: copied (Rows) or the copy's own (TakeRows).
func BenchmarkWriteRows(b *testing.B) {
	repo := domain.NewWorkingCopy()
	if err := create(repo, "t1", "e-1", "Order Service"); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		rows func(string) domain.Rows
	}{{"Rows", repo.Rows}, {"TakeRows", repo.TakeRows}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(bc.rows("t1").Elements) != 1 {
					b.Fatal("no element")
				}
			}
		})
	}
}

// NameKey folds a name as strings.ToLower(strings.ToUpper(name)) does,
// for ASCII (its one-pass path) and every other string alike.
func TestNameKeyFolds(t *testing.T) {
	names := []string{"", "svc", "Svc-12345", "ORDER service", "a_B-c d9", "\x00\x7f", "Straße", "ǅemal", "İstanbul", "ΟΔΟΣ", "ﬀ", "K", "\xff\xfeAb", "mixed Äb"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("aZ09 -_.ßǅİıΣσςKkÄä\u0130\u212a")
	for range 2000 {
		n := make([]rune, r.IntN(12))
		for i := range n {
			n[i] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(4) > 0 {
				n[i] = rune('!' + r.IntN(94)) // printable ASCII
			}
		}
		names = append(names, string(n))
	}
	for _, n := range names {
		if got, want := domain.NameKey(n), strings.ToLower(strings.ToUpper(n)); got != want {
			t.Errorf("NameKey(%q) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkNameKey is the key of a created element's name, taken four
// times per create (its footprint, the duplicate check, the index and the
// row).
func BenchmarkNameKey(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if domain.NameKey("Svc-12345") != "svc-12345" {
			b.Fatal("not folded")
		}
	}
}
