package pvcheck_test

import (
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/pvcheck"
)

func searchRequest() *purchasingv1.SearchItemsRequest {
	return &purchasingv1.SearchItemsRequest{
		Meta:  &purchasingv1.RequestMeta{TenantId: "tenant-acme", PrincipalId: "user-ada", CorrelationId: "corr-42", RequestedAt: timestamppb.Now()},
		Query: "bolt", Limit: 5,
	}
}

// BenchmarkCheck is the request check of a valid read request.
func BenchmarkCheck(b *testing.B) {
	c, err := pvcheck.New(new(purchasingv1.SearchItemsRequest))
	if err != nil {
		b.Fatal(err)
	}
	req := searchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if vs, err := c.Check(req); err != nil || len(vs) > 0 {
			b.Fatal(vs, err)
		}
	}
}
