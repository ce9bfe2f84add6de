package runtime_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// Example registers a one-tool service by hand, the way generated code
// does, and calls it through an MCP client.
func Example() {
	doc := `{"source":"greet/v1/greet.proto","services":[{"name":"greet.v1.Greeter","validate_tool":"validate_write",
	  "tools":[{"name":"greet","method":"greet.v1.Greeter.Greet","description":"Greet someone.","kind":"ACTION",
	    "classification":"SAFE_CREATE","confirmation":"DIRECT","hints":{"idempotent":true},
	    "input_schema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false},
	    "output_schema":{"type":"object"},"required_fields":["name"],"optional_fields":[]}]}]}`
	svc := &impl.Service{
		Name: "greet.v1.Greeter",
		Doc:  []byte(doc),
		Tools: []*impl.Tool{{
			Name:       "greet",
			NewRequest: func() proto.Message { return &wrapperspb.StringValue{} },
			Decode: func(d *impl.Decoder, obj *impl.Object, req proto.Message) {
				d.Known(obj, []string{"name"})
				if s, ok := d.String(obj.Get("name"), "name"); ok {
					req.(*wrapperspb.StringValue).Value = s
				} else if !obj.Get("name").Present() {
					d.Missing("name")
				}
			},
			Enrich: func(c *impl.Call, req proto.Message) error { return nil },
			Invoke: func(ctx context.Context, req proto.Message) (proto.Message, error) {
				return structpb.NewStruct(map[string]any{"greeting": "Hello, " + req.(*wrapperspb.StringValue).Value})
			},
		}},
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "v1"}, nil)
	if err := gosdk.Register(server, svc); err != nil {
		panic(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for _, args := range []map[string]any{{"name": "Ada"}, {"nmae": "Ada"}} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: args})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// false {"success":true,"greeting":"Hello, Ada","suggestions":[],"warnings":[]}
	// true {"success":false,"error":{"code":"UNKNOWN_FIELD","message":"unknown field \"nmae\"; did you mean \"name\"?","field":"nmae","suggestions":{"did_you_mean":["name"],"valid_values":["name"]}},"errors":[{"code":"UNKNOWN_FIELD","message":"unknown field \"nmae\"; did you mean \"name\"?","field":"nmae","suggestions":{"did_you_mean":["name"],"valid_values":["name"]}},{"code":"MISSING_REQUIRED_FIELD","message":"missing required field \"name\"","field":"name"}]}
}
