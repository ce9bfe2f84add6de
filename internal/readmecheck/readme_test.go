// Package readmecheck_test compiles the Go examples of README.md and the
// guides against the module, so an API change that breaks one fails here,
// and checks the figures, signatures, links and quickstart steps they state.
package readmecheck_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// harness makes one README example a compilable file: the imports and
// package-level declarations it assumes (the server, the handler, a
// generated package it names), and the statements that use what it
// declares and leaves unused. An example that is a whole declaration
// (toplevel) is put in the file as it is; any other is the body of a
// function.
type harness struct {
	imports  []string
	decls    string
	suffix   string
	toplevel bool
}

// harnesses are keyed by the first line of the example they compile.
var harnesses = map[string]harness{
	"tasksv1mcpwrite.RegisterTaskServiceTools(sdkServer, handler, opts...)           // github.com/modelcontextprotocol/go-sdk": {
		imports: []string{
			"github.com/mark3labs/mcp-go/server",
			"github.com/modelcontextprotocol/go-sdk/mcp",
			"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo",
		},
		decls: `
var (
	sdkServer   *mcp.Server
	mcpgoServer *server.MCPServer
	handler     tasksv1mcpwrite.TaskServiceHandler
	opts        []runtime.Option
)
`,
	},
	"// go-sdk (github.com/modelcontextprotocol/go-sdk)": {
		imports: []string{
			"github.com/mark3labs/mcp-go/server",
			"github.com/modelcontextprotocol/go-sdk/mcp",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl",
		},
		decls: `
type rooms struct{}

var (
	sdkServer   *mcp.Server
	mcpgoServer *server.MCPServer
	// bookingv1mcpwrite stands for the generated package of the example.
	bookingv1mcpwrite struct {
		RegisterBookingServiceTools func(s *mcp.Server, h *rooms, opts ...runtime.Option) error
		NewBookingService           func(h *rooms) *mcpwriteimpl.Service
	}
)
`,
		suffix: "_ = err",
	},
	`types := runtime.NewVocabulary("entity_type", func(ctx context.Context, tenant string) ([]runtime.VocabularyValue, error) {`: {
		imports: []string{"context", "github.com/modelcontextprotocol/go-sdk/mcp", "github.com/mcpwrite/protoc-gen-mcpwrite/runtime"},
		decls: `
type vocabStore struct{}

func (vocabStore) EntityTypes(ctx context.Context, tenant string) ([]runtime.VocabularyValue, error) { return nil, nil }
func (vocabStore) Tags(ctx context.Context, tenant string) ([]runtime.VocabularyValue, error)        { return nil, nil }

var (
	store   vocabStore
	server  *mcp.Server
	handler any
	tenant  string
	// catalogv1mcpwrite stands for the generated package of the example.
	catalogv1mcpwrite struct {
		RegisterCatalogServiceTools func(s *mcp.Server, h any, opts ...runtime.Option) error
	}
)
`,
		suffix: "_ = err",
	},
	`server := mcp.NewServer(&mcp.Implementation{Name: "booking", Version: "1.0.0"}, nil)`: {
		imports: []string{"context", "github.com/modelcontextprotocol/go-sdk/mcp", "github.com/mcpwrite/protoc-gen-mcpwrite/runtime"},
		decls: `
type pingIn struct{ Message string }
type pingOut struct{ Message string }

func ping(ctx context.Context, req *mcp.CallToolRequest, in pingIn) (*mcp.CallToolResult, pingOut, error) {
	return nil, pingOut(in), nil
}

type rooms struct{}

// bookingv1mcpwrite stands for the generated package of the example.
var bookingv1mcpwrite struct {
	RegisterBookingServiceTools func(s *mcp.Server, h *rooms, opts ...runtime.Option) error
}
`,
		suffix: "_ = err",
	},
	"// A handler with typed resolvers embeds UnimplementedCrmServiceResolvers,": {
		imports: []string{
			"context",
			"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1",
			"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite",
		},
		toplevel: true,
	},
	`func TestToolSurface(t *testing.T) {`: {
		imports:  []string{"testing", "github.com/mcpwrite/protoc-gen-mcpwrite/compat"},
		toplevel: true,
	},
	`err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, h,`: {
		imports: []string{
			"github.com/modelcontextprotocol/go-sdk/mcp",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp",
			"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite",
		},
		decls: `
var (
	server *mcp.Server
	h      archimatev1mcpwrite.ArchitectureServiceHandler
)
`,
		suffix: "_ = err",
	},
	`server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {`: {
		imports: []string{"context", "github.com/modelcontextprotocol/go-sdk/mcp", "github.com/mcpwrite/protoc-gen-mcpwrite/runtime"},
		decls: `
var server *mcp.Server

func identityOf(s mcp.Session) runtime.RequestContext { return runtime.RequestContext{} }
`,
	},
	`obs, _ := otelmcp.New(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(mp)) // or the otel globals`: {
		imports: []string{
			"go.opentelemetry.io/otel/metric",
			"go.opentelemetry.io/otel/trace",
			"github.com/modelcontextprotocol/go-sdk/mcp",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime",
			"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/otelmcp",
			"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite",
		},
		decls: `
var (
	tp     trace.TracerProvider
	mp     metric.MeterProvider
	server *mcp.Server
	h      archimatev1mcpwrite.ArchitectureServiceHandler
)
`,
	},
}

var goBlock = regexp.MustCompile("(?s)\n```go\n(.*?)\n```")

// compiledDocs are the documents whose every Go example compiles here; the
// Go examples of docs/own-server.md are excerpts of quickstart/stores,
// which make quickstart compiles and runs (TestOwnServerGuideIsTheQuickstarts).
var compiledDocs = []string{"README.md", "docs/getting-started.md", "docs/reference.md", "docs/examples.md"}

// Every Go example of the README and the guides compiles against the module
// as it is.
func TestReadmeExamplesCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the README examples with the go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]string
	for _, doc := range compiledDocs {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		found := goBlock.FindAllStringSubmatch(string(text), -1)
		if len(found) == 0 {
			t.Fatalf("%s has no Go examples", doc)
		}
		blocks = append(blocks, found...)
	}
	tmp := t.TempDir()
	overlay := map[string]string{}
	// The examples become one package in a directory of the module that
	// exists only in the overlay, so they import the module's packages.
	dir := filepath.Join(root, "internal", "readmecheck", "examples")
	used := map[string]bool{}
	for i, b := range blocks {
		code := b[1]
		first, _, _ := strings.Cut(code, "\n")
		h, ok := harnesses[first]
		if !ok {
			t.Errorf("Go example %d of %v has no harness: add one to harnesses in internal/readmecheck/readme_test.go keyed by its first line %q", i+1, compiledDocs, first)
			continue
		}
		used[first] = true
		var src strings.Builder
		src.WriteString("package examples\n\nimport (\n")
		for _, imp := range h.imports {
			fmt.Fprintf(&src, "\t%q\n", imp)
		}
		src.WriteString(")\n")
		src.WriteString(h.decls)
		if h.toplevel {
			src.WriteString("\n" + code + "\n")
		} else {
			fmt.Fprintf(&src, "\nfunc example%d() {\n%s\n%s\n}\n", i+1, code, h.suffix)
		}
		name := filepath.Join(tmp, fmt.Sprintf("example%d.go", i+1))
		if err := os.WriteFile(name, []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		// Each example is its own package, so their declarations never
		// clash.
		overlay[filepath.Join(dir, fmt.Sprintf("example%d", i+1), "example.go")] = name
	}
	for first := range harnesses {
		if !used[first] {
			t.Errorf("harness for %q matches no Go example of %v: remove it", first, compiledDocs)
		}
	}
	if t.Failed() {
		return
	}
	ov, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	ovPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for i := range blocks {
		pkgs = append(pkgs, fmt.Sprintf("./internal/readmecheck/examples/example%d", i+1))
	}
	cmd := exec.Command("go", append([]string{"build", "-overlay", ovPath}, pkgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("Go examples of %v do not compile (example N is the N-th ```go block, counted through the files in that order):\n%s", compiledDocs, out)
	}
}
