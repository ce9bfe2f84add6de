package bench

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// proposedEnrichCreateElement is the generated createElement enrichment as
// the generator would emit it with the time of a generated NOW field taken
// from Call.NowTimestamp (the call's storage) instead of
// timestamppb.New(c.Now()); everything else is the generated code.
func proposedEnrichCreateElement(c *mcpwriteimpl.Call, h archimatev1mcpwrite.ArchitectureServiceHandler, root proto.Message, m *archimatev1.CreateElementRequest) error {
	if m.Id == "" {
		m.Id = c.UUIDv7()
	}
	switch m.GetType() {
	case archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY, archimatev1.ElementType_ELEMENT_TYPE_RESOURCE, archimatev1.ElementType_ELEMENT_TYPE_COURSE_OF_ACTION, archimatev1.ElementType_ELEMENT_TYPE_VALUE_STREAM:
		m.Layer = archimatev1.Layer_LAYER_STRATEGY
	case archimatev1.ElementType_ELEMENT_TYPE_BUSINESS_PROCESS, archimatev1.ElementType_ELEMENT_TYPE_BUSINESS_SERVICE, archimatev1.ElementType_ELEMENT_TYPE_BUSINESS_ACTOR:
		m.Layer = archimatev1.Layer_LAYER_BUSINESS
	case archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT, archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_SERVICE, archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_INTERFACE, archimatev1.ElementType_ELEMENT_TYPE_DATA_OBJECT:
		m.Layer = archimatev1.Layer_LAYER_APPLICATION
	case archimatev1.ElementType_ELEMENT_TYPE_NODE, archimatev1.ElementType_ELEMENT_TYPE_DEVICE, archimatev1.ElementType_ELEMENT_TYPE_SYSTEM_SOFTWARE:
		m.Layer = archimatev1.Layer_LAYER_TECHNOLOGY
	}
	if m.Meta == nil {
		m.Meta = new(archimatev1.MessageMeta)
	}
	if err := proposedEnrichMessageMeta(c, m.Meta); err != nil {
		return err
	}
	if m.ModelId == "" {
		v, err := h.ResolveActiveModel(c.Ctx, root)
		if err != nil {
			return c.ResolverError("model_id", err)
		}
		m.ModelId = v
	}
	return nil
}

func proposedEnrichMessageMeta(c *mcpwriteimpl.Call, m *archimatev1.MessageMeta) error {
	m.MessageId = c.UUIDv4()
	vCorrelationId, err := c.ContextValue(mcpwriteimpl.ContextCorrelationID, "correlation_id")
	if err != nil {
		return err
	}
	m.CorrelationId = vCorrelationId
	vTenantId, err := c.ContextValue(mcpwriteimpl.ContextTenantID, "tenant_id")
	if err != nil {
		return err
	}
	m.TenantId = vTenantId
	m.OccurredAt = c.NowTimestamp() // generated today: timestamppb.New(c.Now())
	vClientRequestId, err := c.ContextValue(mcpwriteimpl.ContextClientRequestID, "client_request_id")
	if err != nil {
		return err
	}
	m.ClientRequestId = vClientRequestId
	vPrincipalId, err := c.ContextValue(mcpwriteimpl.ContextPrincipalID, "principal_id")
	if err != nil {
		return err
	}
	m.PrincipalId = vPrincipalId
	vTraceparent, err := c.ContextValue(mcpwriteimpl.ContextTraceParent, "traceparent")
	if err != nil {
		return err
	}
	m.Traceparent = vTraceparent
	return nil
}

// proposedPreparer is preparer with createElement enriched by
// proposedEnrichCreateElement.
func proposedPreparer(tb testing.TB, opts ...runtime.Option) *runtime.Preparer {
	tb.Helper()
	h := echoHandler{}
	svc := archimatev1mcpwrite.NewArchitectureService(h)
	for _, t := range svc.Tools {
		if t.Name == "createElement" {
			t.Enrich = func(c *mcpwriteimpl.Call, m proto.Message) error {
				return proposedEnrichCreateElement(c, h, m, m.(*archimatev1.CreateElementRequest))
			}
		}
	}
	p, err := runtime.NewPreparer(svc, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// The proposed enrichment builds the request the generated one builds.
func TestProposedEnrichMatchesGenerated(t *testing.T) {
	clock := func() time.Time { return fixedNow.Add(123456789) }
	want, es := prepareCreate(preparer(t, clock, seeded()), []byte(createElementArgs))
	if len(es) > 0 {
		t.Fatal(es)
	}
	m, es := proposedPreparer(t, runtime.WithClock(clock), runtime.WithRand(seeded())).Prepare(context.Background(), "createElement", []byte(createElementArgs), benchRC)
	if len(es) > 0 {
		t.Fatal(es)
	}
	if diff := cmp.Diff(want, m, protocmp.Transform()); diff != "" {
		t.Fatalf("proposed enrichment differs (-generated +proposed):\n%s", diff)
	}
}

// BenchmarkProposedEnrich times ours-prepare with the generated
// enrichment and with the proposed one, on the same input.
func BenchmarkProposedEnrich(b *testing.B) {
	raw := []byte(sameArgs)
	for _, c := range []struct {
		name string
		p    *runtime.Preparer
	}{{"generated", preparer(b, nil, nil)}, {"proposed", proposedPreparer(b)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, es := c.p.Prepare(context.Background(), "createElement", raw, benchRC)
				if len(es) > 0 || m.(*archimatev1.CreateElementRequest).GetLayer() != archimatev1.Layer_LAYER_APPLICATION {
					b.Fatalf("prepare: %v", es)
				}
			}
		})
	}
}
