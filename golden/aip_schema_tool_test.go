package golden_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// get_write_schema of an adopted AIP service says which signal decided a
// tool and gives the descriptions the schemas cut short in full, and its
// answer conforms to the tool's output schema.
func TestGetWriteSchemaShowsDecidingSignalAndLongDescriptions(t *testing.T) {
	const path = "testdata/aip_standard_methods/want/library/v1/libraryv1mcpwrite/shelves.mcpwrite.json"
	content, doc := readSchemaDoc(t, path)
	svc := doc.Services[0]
	var binds []*mcpwriteimpl.Tool
	for _, tool := range svc.Tools {
		binds = append(binds, &mcpwriteimpl.Tool{
			Name:       tool.Name,
			NewRequest: func() proto.Message { return &emptypb.Empty{} },
			Decode:     func(*mcpwriteimpl.Decoder, *mcpwriteimpl.Object, proto.Message) {},
			Enrich:     func(*mcpwriteimpl.Call, proto.Message) error { return nil },
			Invoke:     func(context.Context, proto.Message) (proto.Message, error) { return &emptypb.Empty{}, nil },
		})
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "aip", Version: "test"}, nil)
	if err := gosdk.Register(s, &mcpwriteimpl.Service{Name: svc.Name, Doc: content, Tools: binds}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var validator *jsonschema.Schema
	for _, tool := range list.Tools {
		if tool.Name != "get_write_schema" {
			continue
		}
		out, _ := json.Marshal(tool.OutputSchema)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem:///out.json", inst); err != nil {
			t.Fatal(err)
		}
		if validator, err = c.Compile("mem:///out.json"); err != nil {
			t.Fatal(err)
		}
	}
	if validator == nil {
		t.Fatal("no get_write_schema tool")
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_write_schema", Arguments: map[string]any{"operation": "create_shelf"}})
	if err != nil || r.IsError {
		t.Fatalf("get_write_schema: %v %v", err, r)
	}
	body, _ := json.Marshal(r.StructuredContent)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := validator.Validate(inst); err != nil {
		t.Errorf("answer does not conform to the output schema: %v", err)
	}
	var got struct {
		DecidedBy        string `json:"decided_by"`
		LongDescriptions []struct {
			Path        string `json:"path"`
			Description string `json:"description"`
		} `json:"long_descriptions"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if want := "AIP-133 Create shape (Create* with parent and resource)"; got.DecidedBy != want {
		t.Errorf("decided_by %q, want %q", got.DecidedBy, want)
	}
	var paths []string
	for _, l := range got.LongDescriptions {
		paths = append(paths, l.Path)
		if len(l.Description) <= 500 || !bytes.HasSuffix([]byte(l.Description), []byte("so start each note with a short summary of what it says.")) {
			t.Errorf("%s: not the full text: %q", l.Path, l.Description)
		}
	}
	if want := []string{"input.shelf.notes", "output.notes"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("long description paths %v, want %v", paths, want)
	}
}

// Over its schema budget, a tool lists the deepest optional subtrees as
// JSON text, and get_write_schema answers its complete schema (golden case
// schema_budget, schema_budget=1024).
func TestGetWriteSchemaAnswersTheSchemaBeforeTheBudget(t *testing.T) {
	const path = "testdata/schema_budget/want/parcels/v1/parcelsv1mcpwrite/parcels.mcpwrite.json"
	content, doc := readSchemaDoc(t, path)
	svc := doc.Services[0]
	var binds []*mcpwriteimpl.Tool
	for _, tool := range svc.Tools {
		binds = append(binds, &mcpwriteimpl.Tool{
			Name:       tool.Name,
			NewRequest: func() proto.Message { return &emptypb.Empty{} },
			Decode:     func(*mcpwriteimpl.Decoder, *mcpwriteimpl.Object, proto.Message) {},
			Enrich:     func(*mcpwriteimpl.Call, proto.Message) error { return nil },
			Invoke:     func(context.Context, proto.Message) (proto.Message, error) { return &emptypb.Empty{}, nil },
		})
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "budget", Version: "test"}, nil)
	if err := gosdk.Register(s, &mcpwriteimpl.Service{Name: svc.Name, Doc: content, Tools: binds}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	labelOf := func(schema any) string {
		b, _ := json.Marshal(schema)
		var in struct {
			Properties struct {
				Parcel struct {
					Properties struct {
						Label json.RawMessage `json:"label"`
					} `json:"properties"`
				} `json:"parcel"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		var label struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		}
		_ = json.Unmarshal(in.Properties.Parcel.Properties.Label, &label)
		names := make([]string, 0, len(label.Properties))
		for n := range label.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		return label.Type + " " + strings.Join(names, ",")
	}
	for _, tool := range list.Tools {
		if tool.Name == "create_parcel" {
			if got, want := labelOf(tool.InputSchema), "string "; got != want {
				t.Errorf("tools/list: parcel.label is %q, want %q (JSON text)", got, want)
			}
		}
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_write_schema", Arguments: map[string]any{"operation": "create_parcel"}})
	if err != nil || r.IsError {
		t.Fatalf("get_write_schema: %v %v", err, r)
	}
	var got struct {
		InputSchema any `json:"input_schema"`
	}
	body, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got, want := labelOf(got.InputSchema), "object colour,text"; got != want {
		t.Errorf("get_write_schema: parcel.label is %q, want %q (the complete schema)", got, want)
	}
}
