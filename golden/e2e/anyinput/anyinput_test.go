// Package anyinput_test drives google.protobuf.Any fields end to end: the
// official MCP Go SDK client sends an object whose "@type" is one of the
// field's candidate types (named by the field's comment, or taken from the
// package), the handler receives the Any packed with that type's message;
// an unknown, missing or mistyped "@type" and an unknown key of the chosen
// type are refused in the error envelope, listing the allowed types.
package anyinput_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/anyinput/gen/events/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/anyinput/gen/events/v1/eventsv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// handler keeps the last request of each method.
type handler struct {
	mu     sync.Mutex
	record *eventsv1.RecordEventRequest
	notes  *eventsv1.AttachNotesRequest
}

func (h *handler) RecordEvent(_ context.Context, in *eventsv1.RecordEventRequest) (*eventsv1.RecordEventResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.record = in
	return &eventsv1.RecordEventResponse{Recorded: in.GetPayload().GetTypeUrl()}, nil
}

func (h *handler) AttachNotes(_ context.Context, in *eventsv1.AttachNotesRequest) (*eventsv1.AttachNotesResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.notes = in
	return &eventsv1.AttachNotesResponse{Attached: int32(len(in.GetNotes()))}, nil
}

func connect(t *testing.T) (*mcp.ClientSession, *handler) {
	t.Helper()
	h := &handler{}
	server := mcp.NewServer(&mcp.Implementation{Name: "events", Version: "test"}, nil)
	rc := func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"}, true
	}
	if err := eventsv1mcpwrite.RegisterEventServiceTools(server, h, runtime.WithRequestContextFunc(rc)); err != nil {
		t.Fatalf("register: %v", err)
	}
	return mcptest.Connect(t, server, mcptest.Options{}), h
}

// errorsOf returns the code, field and message of each error of an answer,
// with the allowed values when the entry lists them.
func errorsOf(t *testing.T, r mcptest.Result) []string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error, got %s", r.Text)
	}
	es, _ := r.Body["errors"].([]any)
	var out []string
	for _, e := range es {
		m := e.(map[string]any)
		line := fmt.Sprintf("%v %v: %v", m["code"], m["field"], m["message"])
		if s, ok := m["suggestions"].(map[string]any); ok && s["valid_values"] != nil {
			line += fmt.Sprintf(" | valid %v", s["valid_values"])
		}
		out = append(out, line)
	}
	return out
}

// TestAnyWithAKnownTypeReachesTheHandlerPacked: each candidate of payload,
// the one candidate of remark, and a list of Anys of the package's
// candidates arrive packed with their type URL and fields.
func TestAnyWithAKnownTypeReachesTheHandlerPacked(t *testing.T) {
	cs, h := connect(t)
	r := mcptest.Call(t, cs, "record_event", `{"parcel_id":"p1",`+
		`"payload":{"@type":"type.googleapis.com/events.v1.ParcelScanned","depot":"Leeds","weight_grams":1200},`+
		`"remark":{"@type":"type.googleapis.com/events.v1.Note","text":"fragile"}}`)
	if r.IsError {
		t.Fatalf("record_event failed: %s", r.Text)
	}
	scanned, note := &eventsv1.ParcelScanned{}, &eventsv1.Note{}
	if err := h.record.GetPayload().UnmarshalTo(scanned); err != nil {
		t.Fatalf("payload: %v", err)
	}
	if err := h.record.GetRemark().UnmarshalTo(note); err != nil {
		t.Fatalf("remark: %v", err)
	}
	if !proto.Equal(scanned, &eventsv1.ParcelScanned{Depot: "Leeds", WeightGrams: 1200}) || note.GetText() != "fragile" {
		t.Fatalf("handler got payload %v, remark %v", scanned, note)
	}
	if got := r.Body["recorded"]; got != "type.googleapis.com/events.v1.ParcelScanned" {
		t.Fatalf("answer: %s", r.Text)
	}

	r = mcptest.Call(t, cs, "attach_notes", `{"parcel_id":"p1","notes":[`+
		`{"@type":"type.googleapis.com/events.v1.Note","text":"left at door"},`+
		`{"@type":"type.googleapis.com/events.v1.ParcelLost","reason":"no scan for 7 days"}]}`)
	if r.IsError {
		t.Fatalf("attach_notes failed: %s", r.Text)
	}
	var got []string
	for _, a := range h.notes.GetNotes() {
		b, err := protojson.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	// protojson resolves the packed types through the global registry,
	// where the generated package registered them.
	want := []string{
		`{"@type":"type.googleapis.com/events.v1.Note","text":"left at door"}`,
		`{"@type":"type.googleapis.com/events.v1.ParcelLost","reason":"no scan for 7 days"}`,
	}
	if strings.ReplaceAll(strings.Join(got, "\n"), " ", "") != strings.ReplaceAll(strings.Join(want, "\n"), " ", "") {
		t.Fatalf("notes:\n got %v\nwant %v", got, want)
	}
}

// TestAnyWithAnUnknownTypeIsRefused: a type URL outside the candidates (a
// message of the package the field's comment does not name, a made-up
// one), a missing or non-string "@type" and a key the chosen type lacks
// are refused with their paths; the allowed types are listed. The handler
// is never called.
func TestAnyWithAnUnknownTypeIsRefused(t *testing.T) {
	cs, h := connect(t)
	const allowed = "[type.googleapis.com/events.v1.ParcelLost type.googleapis.com/events.v1.ParcelScanned]"
	cases := []struct {
		name, args string
		want       []string
	}{
		{"a package message the comment does not name",
			`{"parcel_id":"p1","payload":{"@type":"type.googleapis.com/events.v1.Note","text":"x"}}`,
			[]string{`INVALID_ENUM_VALUE payload.@type: unknown type "type.googleapis.com/events.v1.Note" for this google.protobuf.Any; it takes one of type.googleapis.com/events.v1.ParcelLost, type.googleapis.com/events.v1.ParcelScanned | valid ` + allowed}},
		{"a type the file set does not know",
			`{"parcel_id":"p1","payload":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}}`,
			[]string{`INVALID_ENUM_VALUE payload.@type: unknown type "type.googleapis.com/google.protobuf.Duration" for this google.protobuf.Any; it takes one of type.googleapis.com/events.v1.ParcelLost, type.googleapis.com/events.v1.ParcelScanned | valid ` + allowed}},
		{"no @type",
			`{"parcel_id":"p1","remark":{"text":"x"}}`,
			[]string{`MISSING_REQUIRED_FIELD remark.@type: missing required field "@type": the type of this google.protobuf.Any, type.googleapis.com/events.v1.Note | valid [type.googleapis.com/events.v1.Note]`}},
		{"@type not a string",
			`{"parcel_id":"p1","notes":[{"@type":7}]}`,
			[]string{`INVALID_TYPE notes[0].@type: expected string, got number`}},
		{"a field of another candidate",
			`{"parcel_id":"p1","payload":{"@type":"type.googleapis.com/events.v1.ParcelLost","depot":"Leeds"}}`,
			[]string{`UNKNOWN_FIELD payload.depot: unknown field "depot" | valid [reason]`}},
	}
	for _, c := range cases {
		tool := "record_event"
		if strings.Contains(c.args, "notes") {
			tool = "attach_notes"
		}
		got := errorsOf(t, mcptest.Call(t, cs, tool, c.args))
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if h.record != nil || h.notes != nil {
		t.Fatal("the handler was called with an Any it cannot take")
	}
}
