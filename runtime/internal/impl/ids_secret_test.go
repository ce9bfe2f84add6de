package impl_test

import (
	"context"
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

// idServer is a one-tool server whose tool answers the request-scoped ID
// its call was given, registered with opts.
func idServer(t *testing.T, opts ...runtime.Option) *mcp.ClientSession {
	t.Helper()
	doc := `{"source":"ids/v1/ids.proto","services":[{"name":"ids.v1.Ids","validate_tool":"validate_write",
	  "tools":[{"name":"create_thing","method":"ids.v1.Ids.CreateThing","description":"Create a thing.","kind":"CREATE",
	    "classification":"SAFE_CREATE","confirmation":"DIRECT","hints":{"idempotent":true},
	    "input_schema":{"type":"object","properties":{},"additionalProperties":false},
	    "output_schema":{"type":"object"},"required_fields":[],"optional_fields":[]}]}]}`
	svc := &impl.Service{
		Name: "ids.v1.Ids",
		Doc:  []byte(doc),
		Tools: []*impl.Tool{{
			Name:       "create_thing",
			NewRequest: func() proto.Message { return &wrapperspb.StringValue{} },
			Decode:     func(d *impl.Decoder, obj *impl.Object, _ proto.Message) { d.Known(obj, nil) },
			Enrich: func(c *impl.Call, req proto.Message) error {
				req.(*wrapperspb.StringValue).Value = c.RequestScopedID()
				return nil
			},
			Invoke: func(_ context.Context, req proto.Message) (proto.Message, error) {
				return structpb.NewStruct(map[string]any{"id": req.(*wrapperspb.StringValue).Value})
			},
		}},
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "ids", Version: "test"}, nil)
	rc := runtime.RequestContext{TenantID: "tenant-a", PrincipalID: "user-a"}
	opts = append([]runtime.Option{runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc))}, opts...)
	if err := gosdk.Register(s, svc, opts...); err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, s, mcptest.Options{})
}

func createdThing(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	r := mcptest.Call(t, cs, "create_thing", `{"client_request_id":"req-1"}`)
	id, _ := r.Body["id"].(string)
	if r.IsError || id == "" {
		t.Fatalf("create_thing: %s", r.Text)
	}
	return id
}

// Two servers configured with the same secret (two instances, or one
// restarted) give a retried call the same ID; different secrets give
// different IDs, so an ID cannot be computed without the server's secret.
func TestRequestScopedIDsFollowTheConfiguredSecret(t *testing.T) {
	secret := []byte("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
	other := []byte("60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752")
	a := createdThing(t, idServer(t, runtime.WithSecrets(secret, nil)))
	b := createdThing(t, idServer(t, runtime.WithSecrets(append([]byte(nil), secret...), nil)))
	c := createdThing(t, idServer(t, runtime.WithSecrets(other, nil)))
	if a != b {
		t.Errorf("same secret, different ids: %s vs %s", a, b)
	}
	if a == c {
		t.Errorf("different secrets, same id %s", a)
	}
	// Without a secret, servers of one process share the process's secret.
	if x, y := createdThing(t, idServer(t)), createdThing(t, idServer(t)); x != y || x == a || x == c {
		t.Errorf("default secret: %s, %s (configured: %s, %s)", x, y, a, c)
	}
}

func TestShortIDSecretFailsRegistration(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "ids", Version: "test"}, nil)
	svc := &impl.Service{Name: "ids.v1.Ids", Doc: []byte(`{"source":"x.proto","services":[{"name":"ids.v1.Ids","tools":[]}]}`)}
	err := gosdk.Register(s, svc, runtime.WithSecrets([]byte("short"), nil))
	want := "runtime: service ids.v1.Ids: WithSecrets: ID secret refused: it has 5 bytes, want at least 32"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
