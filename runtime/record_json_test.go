package runtime_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// checkRecordJSON fails unless MarshalRecordJSON writes m as protojson
// (default options) does, compacted, or fails where protojson fails.
func checkRecordJSON(t *testing.T, what string, m proto.Message) {
	t.Helper()
	got, gerr := runtime.MarshalRecordJSON(m)
	raw, werr := protojson.Marshal(m)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%s: error %v, protojson's %v", what, gerr, werr)
	}
	if werr != nil {
		if gerr.Error() != werr.Error() {
			t.Fatalf("%s: error %q, protojson's %q", what, gerr, werr)
		}
		return
	}
	var want bytes.Buffer
	if err := json.Compact(&want, raw); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s: differs from protojson\n got: %s\nwant: %s", what, got, want.Bytes())
	}
}

// Every message of the five examples' files (requests, responses and what
// they hold), with random values, the awkward and the refused ones
// included, is written as protojson writes it.
func TestMarshalRecordJSONIsProtojson(t *testing.T) {
	for _, svc := range exampleServices() {
		msgs := svc.file.Messages()
		for _, wild := range []bool{false, true} {
			f := &filler{r: rand.New(rand.NewPCG(11, 13)), wild: wild}
			for i := range msgs.Len() {
				mt, err := protoregistryFind(msgs.Get(i).FullName())
				if err != nil {
					t.Fatal(err)
				}
				for j := range 40 {
					m := mt.New()
					if j > 0 {
						f.fill(m, 0)
					}
					checkRecordJSON(t, string(mt.Descriptor().FullName()), m.Interface())
				}
			}
		}
	}
}

// A top-level well-known type, a typed nil and a nil message take
// protojson's path and get its output.
func TestMarshalRecordJSONProtojsonPath(t *testing.T) {
	checkRecordJSON(t, "Timestamp", &timestamppb.Timestamp{Seconds: 1700000000, Nanos: 5})
	checkRecordJSON(t, "Struct", &structpb.Struct{Fields: map[string]*structpb.Value{"a": structpb.NewNumberValue(1.5)}})
	checkRecordJSON(t, "typed nil", (*archimatev1.CreateElementRequest)(nil))
	got, err := runtime.MarshalRecordJSON(nil)
	if err != nil || string(got) != "{}" {
		t.Fatalf("nil message: %s, %v; want {}", got, err)
	}
}

// An outbox row's request as the reference domain stores it, exactly.
func TestMarshalRecordJSONOutboxRequest(t *testing.T) {
	req := &archimatev1.CreateElementRequest{
		Meta:       &archimatev1.MessageMeta{TenantId: "acme"},
		Type:       archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT,
		Name:       "Order \"Service\" <v2>",
		Properties: map[string]string{"owner": "ops", "cost": "12"},
	}
	got, err := runtime.MarshalRecordJSON(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"meta":{"tenantId":"acme"},"type":"ELEMENT_TYPE_APPLICATION_COMPONENT","name":"Order \"Service\" <v2>","properties":{"cost":"12","owner":"ops"}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// outboxRow is an outbox row's request and response as the reference
// domain writes them for createElement.
func outboxRow() (*archimatev1.CreateElementRequest, *archimatev1.CreateElementResponse) {
	req := &archimatev1.CreateElementRequest{
		Meta: &archimatev1.MessageMeta{MessageId: "0b6c3c8e-8d7f-4e6a-9a51-3f2d1c0b9a87", TenantId: "tenant-0001", PrincipalId: "user-bench", ClientRequestId: "k-12345", OccurredAt: timestamppb.New(time.Date(2026, 11, 29, 1, 2, 3, 456000000, time.UTC)), Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		Id:   "elem-0123456789abcdef", ModelId: "model-1", Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT,
		Name: "Svc-12345", Description: "Handles order processing",
	}
	resp := &archimatev1.CreateElementResponse{Element: &archimatev1.Element{
		Id: req.Id, ModelId: req.ModelId, Type: req.Type, Layer: archimatev1.Layer_LAYER_APPLICATION,
		Name: req.Name, Description: req.Description, Version: 1,
	}}
	return req, resp
}

// A record's encoding starts with a buffer the size of the last one of
// its message type: one allocation, where a buffer grown from 256 bytes
// takes two for this request's 406.
func TestMarshalRecordJSONAllocatesOnce(t *testing.T) {
	req, _ := outboxRow()
	first, err := runtime.MarshalRecordJSON(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 406 {
		t.Fatalf("the request encodes to %d bytes; want 406", len(first))
	}
	if n := testing.AllocsPerRun(50, func() {
		if _, err := runtime.MarshalRecordJSON(req); err != nil {
			t.Fatal(err)
		}
	}); n != 1 {
		t.Fatalf("MarshalRecordJSON allocates %v times, want 1", n)
	}
}

// BenchmarkMarshalRecordJSON is an outbox row's request and response as
// the reference domain writes them for createElement.
func BenchmarkMarshalRecordJSON(b *testing.B) {
	req, resp := outboxRow()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := runtime.MarshalRecordJSON(req); err != nil {
			b.Fatal(err)
		}
		if _, err := runtime.MarshalRecordJSON(resp); err != nil {
			b.Fatal(err)
		}
	}
}
