package pvcheck_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/pvcheck"
)

// Checks from many goroutines at once, more than there are check
// goroutines, each get their own request's violations.
func TestCheckConcurrent(t *testing.T) {
	c, err := pvcheck.New(new(purchasingv1.SearchItemsRequest))
	if err != nil {
		t.Fatal(err)
	}
	valid := searchRequest()
	invalid := searchRequest()
	invalid.Query = strings.Repeat("x", 201)
	invalid.Limit = 0
	invalid.Meta.TenantId = ""
	want := []impl.Violation{
		{Path: []impl.PathStep{{Field: "meta"}, {Field: "tenant_id"}}, RuleID: "string.min_len", Message: "must be at least 1 characters"},
		{Path: []impl.PathStep{{Field: "query"}}, RuleID: "string.max_len", Message: "must be at most 200 characters"},
		{Path: []impl.PathStep{{Field: "limit"}}, RuleID: "int32.gte_lte", Message: "must be greater than or equal to 1 and less than or equal to 100"},
	}
	if vs, err := c.Check(invalid); err != nil || !cmp.Equal(vs, want) {
		t.Fatalf("Check(invalid) = %v, %v; diff (-want +got):\n%s", vs, err, cmp.Diff(want, vs))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				req, w := valid, []impl.Violation(nil)
				if (g+i)%2 == 0 {
					req, w = invalid, want
				}
				vs, err := c.Check(req)
				if err != nil || !cmp.Equal(vs, w) {
					errs <- cmp.Diff(w, vs)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("a concurrent check got another's answer (-want +got):\n%s", e)
	}
}
