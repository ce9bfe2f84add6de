package runtime_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// bookServer has one tool, book, whose "person" is a reference and whose
// "hours" an integer, with the early check generated code sets. down
// makes the reference resolver fail as a store that is down does.
func bookServer(t *testing.T, down *bool) *mcp.ClientSession {
	return bookServerWith(t, down, nil)
}

// bookServerWith is bookServer with check as the early check (nil: the
// enrichment's resolution).
func bookServerWith(t *testing.T, down *bool, check func(*mcpwriteimpl.Call, *wrapperspb.StringValue) error) *mcp.ClientSession {
	doc := `{"source":"t/v1/t.proto","services":[{"name":"t.v1.T","tools":[{"name":"book","method":"t.v1.T.Book",
	  "description":"Book a person's hours.","kind":"ACTION","classification":"SAFE_UPDATE","confirmation":"DIRECT","hints":{},
	  "input_schema":{"type":"object","properties":{"person":{"type":"string"},"hours":{"type":"integer"}},"required":["person","hours"],"additionalProperties":false},
	  "output_schema":{"type":"object"},"required_fields":["person","hours"],"optional_fields":[]}]}]}`
	resolve := func(c *mcpwriteimpl.Call, m *wrapperspb.StringValue) error {
		if m.Value == "" {
			return nil
		}
		var rerr error
		if *down {
			rerr = status.Error(codes.Unavailable, "people store down")
		}
		id, err := c.ResolveReference("person", "person", m.Value, resolvePerson(m.Value), rerr)
		if err != nil {
			return mcpwriteimpl.JoinResolverErrors(err)
		}
		m.Value = id
		return nil
	}
	tool := mcpwriteimpl.NewTool[wrapperspb.StringValue]("book",
		func(d *mcpwriteimpl.Decoder, obj *mcpwriteimpl.Object, m *wrapperspb.StringValue) {
			d.Known(obj, []string{"person", "hours"})
			if v := obj.Get("person"); v.Present() {
				if s, ok := d.String(v, "person"); ok {
					m.Value = s
				}
			} else {
				d.Missing("person")
			}
			if v := obj.Get("hours"); v.Present() {
				d.Int32(v, "hours")
			} else {
				d.Missing("hours")
			}
		},
		resolve,
		func(_ context.Context, m *wrapperspb.StringValue) (*structpb.Struct, error) {
			return structpb.NewStruct(map[string]any{"booked": m.Value})
		})
	if check == nil {
		check = resolve
	}
	svc := &mcpwriteimpl.Service{Name: "t.v1.T", Doc: []byte(doc), Tools: []*mcpwriteimpl.Tool{mcpwriteimpl.WithEarlyCheck(tool, check)}}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	if err := gosdk.Register(server, svc, runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"}))); err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, server, mcptest.Options{})
}

// One round of repair for references: a bad reference is answered with
// the decode problems, not one round later, and applying every fix the
// answer offers succeeds on the next call.
func TestReferenceProblemsJoinDecodeProblems(t *testing.T) {
	down := false
	cs := bookServer(t, &down)
	notFound := `{"code":"NOT_FOUND","message":"no person has the id or name \"Grace…\"","field":"person",` +
		`"suggestions":{"did_you_mean":["Grace Hopper"],"hint":"send the id or the exact name of one of the candidates",` +
		`"candidates":[{"id":"p-3","name":"Grace Hopper","type":"engineer"}]}}`
	invalid := `{"code":"INVALID_TYPE","message":"expected integer, got string","field":"hours"}`
	tests := []struct {
		name, args, errors string
		down               bool
	}{
		{"a decode error and a bad reference, in one answer", `{"person":"Grace Hoper","hours":"two"}`, `[` + invalid + `,` + notFound + `]`, false},
		{"a missing field and a bad reference", `{"person":"Grace Hoper"}`, `[{"code":"MISSING_REQUIRED_FIELD","message":"missing required field \"hours\"","field":"hours"},` + notFound + `]`, false},
		{"a reference in error is the decoder's alone", `{"person":7,"hours":"two"}`, `[{"code":"INVALID_TYPE","message":"expected string, got number","field":"person"},` + invalid + `]`, false},
		{"a good reference adds nothing", `{"person":"Grace Hopper","hours":"two"}`, `[` + invalid + `]`, false},
		{"a resolver that is down waits for the full enrichment", `{"person":"Grace Hoper","hours":"two"}`, `[` + invalid + `]`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			down = tt.down
			r := mcptest.Call(t, cs, "book", tt.args)
			if got, want := jsonOf(t, r.Body["errors"]), sortedJSON(t, tt.errors); !r.IsError || got != want {
				t.Fatalf("errors:\n got %s\nwant %s", got, want)
			}
		})
	}
	down = false
	// Every fix offered at once: hours as an integer, the name did_you_mean offers.
	if r := mcptest.Call(t, cs, "book", `{"person":"Grace Hopper","hours":2}`); r.IsError || r.Text != `{"success":true,"booked":"p-3","suggestions":[],"warnings":[]}` {
		t.Fatalf("repaired call: isError=%v %s", r.IsError, r.Text)
	}
}

// jsonOf is v as compact JSON with sorted keys.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sortedJSON is the JSON text s with sorted keys.
func sortedJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return jsonOf(t, v)
}

// An early check that panics (a resolver bug, a Service bound to a nil
// handler) adds nothing to the decode problems and never becomes the answer.
func TestPanickingEarlyCheckAddsNothing(t *testing.T) {
	down := false
	cs := bookServerWith(t, &down, func(*mcpwriteimpl.Call, *wrapperspb.StringValue) error { panic("resolver bug") })
	r := mcptest.Call(t, cs, "book", `{"person":"Grace Hoper","hours":"two"}`)
	want := sortedJSON(t, `[{"code":"INVALID_TYPE","message":"expected integer, got string","field":"hours"}]`)
	if got := jsonOf(t, r.Body["errors"]); !r.IsError || got != want {
		t.Fatalf("errors:\n got %s\nwant %s", got, want)
	}
}

// What a value resolver or a pair check refuses joins the decode problems
// as a reference problem does: once (two resolvers that run one domain
// check refuse the same value twice), and only on a field the agent sent
// that decoded; a refusal on a field in error or left out waits.
func TestEarlyCheckProblemsJoinOnceOnFieldsThatDecoded(t *testing.T) {
	refused := &mcpwriteimpl.ErrorEntry{Code: "INVALID_RELATIONSHIP", Field: "person", Message: "Grace Hopper cannot be booked by the hour",
		Suggestions: &mcpwriteimpl.Suggestions{Hint: "book a day"}}
	check := func(*mcpwriteimpl.Call, *wrapperspb.StringValue) error {
		return mcpwriteimpl.JoinResolverErrors(
			refused,
			&mcpwriteimpl.ErrorEntry{Code: "NOT_FOUND", Field: "hours", Message: "no rate for 0 hours"},
			&mcpwriteimpl.ErrorEntry{Code: "NOT_FOUND", Field: "room", Message: "no room given"},
			refused,
		)
	}
	down := false
	cs := bookServerWith(t, &down, check)
	r := mcptest.Call(t, cs, "book", `{"person":"Grace Hopper","hours":"two"}`)
	want := sortedJSON(t, `[{"code":"INVALID_TYPE","message":"expected integer, got string","field":"hours"},`+
		`{"code":"INVALID_RELATIONSHIP","message":"Grace Hopper cannot be booked by the hour","field":"person","suggestions":{"hint":"book a day"}}]`)
	if got := jsonOf(t, r.Body["errors"]); !r.IsError || got != want {
		t.Fatalf("errors:\n got %s\nwant %s", got, want)
	}
}
