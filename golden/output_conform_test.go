package golden_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	tasksdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// TestAnswersConformToTheirOutputSchema calls every tool of every example
// with the agreement test's instances (minimal, full, three random), once
// as a dry run and once for real, and with the single-mutation payloads of
// the full instance, and validates each structuredContent against the
// tool's output schema as draft-07 and as 2020-12, as clients such as the
// TypeScript SDK do. An output schema's required members (nested, and the
// response fields a written answer always carries) are checked with the
// rest: a written answer without one of them fails here, and the test
// proves that by dropping each such member from one answer.
func TestAnswersConformToTheirOutputSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("calls every tool of every example")
	}
	// answers checked, written answers (success, not a dry run, preview or
	// proposal), written answers whose schema requires response fields,
	// and those fields dropped and refused.
	want := map[string][4]int{
		"archimate":  {213, 32, 5, 15},
		"crm":        {368, 12, 0, 0},
		"neotoma":    {397, 29, 19, 53},
		"purchasing": {156, 10, 0, 0},
		"tasks":      {219, 16, 5, 5},
	}
	for _, name := range exampleServerNames() {
		t.Run(name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
			reg := exampleServersWith[name]
			if name == "tasks" {
				// Real writes: a root of this test's own.
				root := t.TempDir()
				reg = func(s *mcp.Server, o ...runtime.Option) error {
					return tasksv1mcpwrite.RegisterTaskServiceTools(s, tasksdomain.New(root), o...)
				}
			}
			if err := reg(s, runtime.WithRequestContextFunc(agreementCaller)); err != nil {
				t.Fatalf("register: %v", err)
			}
			cs := mcptest.Connect(t, s, mcptest.Options{})
			got := conform(t, cs)
			t.Logf("%s: %d answers conform, %d written; %d written answers carry their required response fields; %d dropped fields refused", name, got[0], got[1], got[2], got[3])
			if got != want[name] {
				t.Errorf("figures changed: got %v, want %v", got, want[name])
			}
		})
	}
}

func conform(t *testing.T, cs *mcp.ClientSession) [4]int {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(25, 2026))
	var got [4]int
	for _, tool := range tools.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		validators := outputValidators(t, tool)
		in := schemaOf(t, tool)
		dry := dryRunArg(in)
		writtenRequired := requiredOfWritten(tool)
		check := func(args map[string]any) {
			res := mcptest.Call(t, cs, tool.Name, mustMarshal(args))
			for dialect, v := range validators {
				if err := v.Validate(instanceOf(t, res.Text)); err != nil {
					t.Errorf("%s(%s): answer does not conform to its %s output schema: %v\n%s", tool.Name, clip(mustMarshal(args)), dialect, err, clip(res.Text))
				}
			}
			got[0]++
			if _, isDry := res.Body["valid"]; res.IsError || isDry || res.Body["proposal"] != nil {
				return
			}
			got[1]++
			if len(writtenRequired) == 0 {
				return
			}
			got[2]++
			for _, k := range writtenRequired {
				body := map[string]any{}
				for x, y := range res.Body {
					body[x] = y
				}
				delete(body, k)
				for dialect, v := range validators {
					if v.Validate(instanceOf(t, mustMarshal(body))) == nil {
						t.Errorf("%s: a written answer without %s conforms to its %s output schema", tool.Name, k, dialect)
					}
				}
				got[3]++
			}
		}
		for _, mode := range []instanceMode{minimal, full, random, random, random} {
			args := instance(r, in, mode, 0).(map[string]any)
			prepare(args, dry)
			check(args)
			if dry != "" {
				delete(args, dry)
				check(args)
			}
		}
		base := instance(r, in, full, 0).(map[string]any)
		prepare(base, dry)
		for _, m := range mutations(in, base) {
			check(m.args)
		}
	}
	return got
}

// outputValidators compiles tool's output schema as draft-07 and 2020-12.
func outputValidators(t *testing.T, tool *mcp.Tool) map[string]*jsonschema.Schema {
	t.Helper()
	raw, _ := json.Marshal(tool.OutputSchema)
	out := map[string]*jsonschema.Schema{}
	for dialect, draft := range map[string]*jsonschema.Draft{"2020-12": jsonschema.Draft2020, "draft-07": jsonschema.Draft7} {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(draft)
		url := fmt.Sprintf("mem:///%s.json", tool.Name)
		if err := c.AddResource(url, instanceOf(t, string(raw))); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		v, err := c.Compile(url)
		if err != nil {
			t.Fatalf("%s: output schema does not compile as %s: %v", tool.Name, dialect, err)
		}
		out[dialect] = v
	}
	return out
}

// requiredOfWritten are the members the output schema requires of a written
// answer: the last anyOf branch's required list (schema_output.go).
func requiredOfWritten(tool *mcp.Tool) []string {
	var s struct {
		AnyOf []struct {
			Required []string `json:"required"`
		} `json:"anyOf"`
	}
	raw, _ := json.Marshal(tool.OutputSchema)
	if json.Unmarshal(raw, &s) != nil || len(s.AnyOf) == 0 {
		return nil
	}
	return s.AnyOf[len(s.AnyOf)-1].Required
}

func instanceOf(t *testing.T, text string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(text)))
	if err != nil {
		t.Fatalf("not JSON: %v: %s", err, clip(text))
	}
	return v
}
