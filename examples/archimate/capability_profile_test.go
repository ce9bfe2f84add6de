package archimate_test

import (
	"context"
	"fmt"
	"net"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// The domain stays authoritative (seed 000): a direct gRPC caller that
// bypasses the MCP layer is refused a capability without its complete
// profile, field by field, as the MCP layer refuses it, and nothing is
// stored.
func TestGRPCCallerIsRefusedACapabilityWithoutItsProfile(t *testing.T) {
	repo := domain.New()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	archimatev1.RegisterArchitectureServiceServer(gs, &grpcService{repo: repo, seen: &traceSeen{}})
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	client := archimatev1.NewArchitectureServiceClient(conn)
	meta := &archimatev1.MessageMeta{TenantId: "tenant-acme", MessageId: "m1"}
	cases := []struct {
		name    string
		profile *archimatev1.CapabilityProfile
		want    []string
	}{
		{"no profile", nil, []string{"profile: missing required field profile: a capability needs its profile (owner, criticality, lifecycle) (MISSING_REQUIRED_FIELD)"}},
		{"owner and lifecycle missing", &archimatev1.CapabilityProfile{Criticality: archimatev1.Criticality_CRITICALITY_HIGH}, []string{
			"profile.owner: missing required field profile.owner: the owning organization unit (MISSING_REQUIRED_FIELD)",
			"profile.lifecycle: missing required field profile.lifecycle: Planned, Active or Retiring (MISSING_REQUIRED_FIELD)",
		}},
		{"criticality missing", &archimatev1.CapabilityProfile{Owner: "Finance", Lifecycle: archimatev1.Lifecycle_LIFECYCLE_ACTIVE}, []string{
			"profile.criticality: missing required field profile.criticality: Low, Medium or High (MISSING_REQUIRED_FIELD)",
		}},
	}
	for _, tc := range cases {
		_, err := client.CreateCapability(context.Background(), &archimatev1.CreateCapabilityRequest{
			Meta: meta, Id: "cap-1", ModelId: "model-1", Name: "Billing", Profile: tc.profile,
			Type: archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY, Layer: archimatev1.Layer_LAYER_STRATEGY,
		})
		st := status.Convert(err)
		var got []string
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok {
				for _, v := range br.GetFieldViolations() {
					got = append(got, fmt.Sprintf("%s: %s (%s)", v.GetField(), v.GetDescription(), v.GetReason()))
				}
			}
		}
		if st.Code() != codes.InvalidArgument || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %s %v, want InvalidArgument %v", tc.name, st.Code(), got, tc.want)
		}
	}
	if n := len(repo.Received()); n != 0 {
		t.Fatalf("the domain recorded %d requests, want none", n)
	}
	// A complete profile is stored.
	if _, err := client.CreateCapability(context.Background(), &archimatev1.CreateCapabilityRequest{
		Meta: meta, Id: "cap-1", ModelId: "model-1", Name: "Billing",
		Type: archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY, Layer: archimatev1.Layer_LAYER_STRATEGY,
		Profile: &archimatev1.CapabilityProfile{Owner: "Finance", Criticality: archimatev1.Criticality_CRITICALITY_HIGH, Lifecycle: archimatev1.Lifecycle_LIFECYCLE_ACTIVE},
	}); err != nil {
		t.Fatalf("complete profile: %v", err)
	}
}
