package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// people is what the assign tool's reference resolver knows.
var people = []runtime.Referent{
	{ID: "p-1", Name: "Ada Lovelace", Type: "engineer"},
	{ID: "p-2", Name: "Ada Lovelace", Type: "manager"},
	{ID: "p-3", Name: "Grace Hopper", Type: "engineer"},
}

// resolvePerson answers the people ref names exactly, as generated code's
// Resolve<Name> methods do, with everyone as Known.
func resolvePerson(ref string) runtime.Reference {
	var out runtime.Reference
	for _, p := range people {
		if p.ID == ref || strings.EqualFold(p.Name, ref) {
			out.Matches = append(out.Matches, p)
		}
	}
	out.Known = people
	return out
}

// assignServer has one tool, assign, whose "person" is a reference resolved
// the way generated Enrich code resolves one.
func assignServer(t *testing.T) *mcp.ClientSession {
	doc := `{"source":"t/v1/t.proto","services":[{"name":"t.v1.T","tools":[{"name":"assign","method":"t.v1.T.Assign",
	  "description":"Assign a person.","kind":"ACTION","classification":"SAFE_UPDATE","confirmation":"DIRECT","hints":{},
	  "input_schema":{"type":"object","properties":{"person":{"type":"string"}},"required":["person"],"additionalProperties":false},
	  "output_schema":{"type":"object"},"required_fields":["person"],"optional_fields":[]}]}]}`
	svc := &impl.Service{Name: "t.v1.T", Doc: []byte(doc), Tools: []*impl.Tool{{
		Name:       "assign",
		NewRequest: func() proto.Message { return &wrapperspb.StringValue{} },
		Decode: func(d *impl.Decoder, obj *impl.Object, req proto.Message) {
			d.Known(obj, []string{"person"})
			if s, ok := d.String(obj.Get("person"), "person"); ok {
				req.(*wrapperspb.StringValue).Value = s
			}
		},
		Enrich: func(c *impl.Call, req proto.Message) error {
			m := req.(*wrapperspb.StringValue)
			id, err := c.ResolveReference("person", "person", m.Value, resolvePerson(m.Value), nil)
			if err != nil {
				return impl.JoinResolverErrors(err)
			}
			m.Value = id
			return nil
		},
		Invoke: func(_ context.Context, req proto.Message) (proto.Message, error) {
			return structpb.NewStruct(map[string]any{"assigned": req.(*wrapperspb.StringValue).Value})
		},
	}}}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	if err := gosdk.Register(server, svc, runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"}))); err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, server, mcptest.Options{})
}

func TestReferenceResolvesThroughTheToolCall(t *testing.T) {
	cs := assignServer(t)
	tests := []struct {
		name, args, want string
		isError          bool
	}{{
		name: "a unique name becomes its id",
		args: `{"person":"grace hopper"}`,
		want: `{"success":true,"assigned":"p-3","suggestions":[],"warnings":[]}`,
	}, {
		name: "an id is itself",
		args: `{"person":"p-2"}`,
		want: `{"success":true,"assigned":"p-2","suggestions":[],"warnings":[]}`,
	}, {
		name:    "a shared name lists every candidate",
		args:    `{"person":"Ada Lovelace"}`,
		isError: true,
		want: `{"success":false,"error":{"code":"NEEDS_DISAMBIGUATION","message":"\"Ada Lo…\" names 2 persons; send the id of the one you mean","field":"person",` +
			`"suggestions":{"valid_values":["p-1","p-2"],"hint":"ask the user which person they mean if the candidates do not tell",` +
			`"candidates":[{"id":"p-1","name":"Ada Lovelace","type":"engineer"},{"id":"p-2","name":"Ada Lovelace","type":"manager"}]}},` +
			`"errors":[{"code":"NEEDS_DISAMBIGUATION","message":"\"Ada Lo…\" names 2 persons; send the id of the one you mean","field":"person",` +
			`"suggestions":{"valid_values":["p-1","p-2"],"hint":"ask the user which person they mean if the candidates do not tell",` +
			`"candidates":[{"id":"p-1","name":"Ada Lovelace","type":"engineer"},{"id":"p-2","name":"Ada Lovelace","type":"manager"}]}}]}`,
	}, {
		name:    "an unknown name offers the people named like it",
		args:    `{"person":"Grace Hoper"}`,
		isError: true,
		want: `{"success":false,"error":{"code":"NOT_FOUND","message":"no person has the id or name \"Grace…\"","field":"person",` +
			`"suggestions":{"did_you_mean":["Grace Hopper"],"hint":"send the id or the exact name of one of the candidates",` +
			`"candidates":[{"id":"p-3","name":"Grace Hopper","type":"engineer"}]}},` +
			`"errors":[{"code":"NOT_FOUND","message":"no person has the id or name \"Grace…\"","field":"person",` +
			`"suggestions":{"did_you_mean":["Grace Hopper"],"hint":"send the id or the exact name of one of the candidates",` +
			`"candidates":[{"id":"p-3","name":"Grace Hopper","type":"engineer"}]}}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mcptest.Call(t, cs, "assign", tt.args)
			if r.IsError != tt.isError || r.Text != tt.want {
				t.Fatalf("got isError=%v\n%s\nwant\n%s", r.IsError, r.Text, tt.want)
			}
		})
	}
}
