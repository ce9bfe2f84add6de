package gen

import (
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// Version is the plugin's version; it matches the runtime it generates for
// (runtime.Version, checked by a test).
const Version = "0.3.0"

// Config holds the plugin parameters.
type Config struct {
	// Strict turns schema portability warnings into errors.
	Strict bool
	// VendorNotes reports, per tool, what each vendor's strict tool mode
	// changes (see VendorNotes) on Warn.
	VendorNotes bool
	// Connect also emits, beside the gRPC client adapter, an adapter for
	// connect-go clients (connectrpc.com/connect).
	Connect bool
	// SDK is the MCP server Register<Service>Tools takes (sdk): SDKGo (the
	// default, go-sdk's *mcp.Server) or SDKMCPGo (mark3labs/mcp-go's
	// *server.MCPServer, registered through runtime/mcpgo: the generated
	// package imports nothing of go-sdk).
	SDK SDK
	// Review also emits, per file, the review report <file>.mcpwrite.review.tsv
	// (walk_review.go): every method's classification and its evidence.
	Review bool
	// ReviewOnly emits only the review report (review=only): a user reviews
	// a service's decisions before generating its tools.
	ReviewOnly bool
	// SchemaBudget bounds a tool's input schema, in bytes (schema_budget):
	// past it the deepest optional subtrees are JSON text (schema_budget.go).
	// 0 takes DefaultSchemaBudget; negative turns the budget off.
	SchemaBudget int
	// Warn receives portability warnings when not strict (stderr in the plugin).
	Warn io.Writer
	// protogenFormats leaves the Go files to protogen's GeneratedFile to
	// format, the reference formatGo's output is tested against.
	protogenFormats bool
}

// schemaBudget is the budget in force, 0 when off.
func (c Config) schemaBudget() int {
	switch {
	case c.SchemaBudget == 0:
		return DefaultSchemaBudget
	case c.SchemaBudget < 0:
		return 0
	}
	return c.SchemaBudget
}

// Set parses one plugin parameter (name=value), rejecting unknown names and
// bad values with the exact message a user sees.
func (c *Config) Set(name, value string) error {
	switch name {
	case "review":
		switch value {
		case "", "true":
			c.Review, c.ReviewOnly = true, false
		case "only":
			c.Review, c.ReviewOnly = true, true
		case "false":
			c.Review, c.ReviewOnly = false, false
		default:
			return fmt.Errorf("parameter review: want true, false or only, got %q", value)
		}
		return nil
	case "schema_budget":
		if value == "off" {
			c.SchemaBudget = -1
			return nil
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 1024 {
			return fmt.Errorf("parameter schema_budget: want a number of bytes of at least 1024, or off, got %q", value)
		}
		c.SchemaBudget = n
		return nil
	case "sdk":
		switch value {
		case "go-sdk":
			c.SDK = SDKGo
		case "mcp-go":
			c.SDK = SDKMCPGo
		default:
			return fmt.Errorf("parameter sdk: want go-sdk (github.com/modelcontextprotocol/go-sdk, the default) or mcp-go (github.com/mark3labs/mcp-go), got %q", value)
		}
		return nil
	case "strict", "vendor_notes", "connect":
		var on bool
		switch value {
		case "", "true":
			on = true
		case "false":
			on = false
		default:
			return fmt.Errorf("parameter %s: want true or false, got %q", name, value)
		}
		switch name {
		case "strict":
			c.Strict = on
		case "vendor_notes":
			c.VendorNotes = on
		default:
			c.Connect = on
		}
		return nil
	}
	return fmt.Errorf("unknown parameter %q (known: strict, vendor_notes, connect, review, schema_budget, sdk)", name)
}

// Generate emits the .mcpwrite.go and .mcpwrite.json files of every file to
// generate. Annotation mistakes are returned together as one error, which
// protogen reports in the CodeGeneratorResponse; nothing is emitted then.
func Generate(p *protogen.Plugin, cfg Config) error {
	probs := &problems{}
	var outs []*fileOut
	for _, f := range p.Files {
		if !f.Generate {
			continue
		}
		if fm := buildFile(p, f, probs); fm != nil {
			outs = append(outs, &fileOut{f: f, fm: fm})
		}
	}
	// Each file's last walk step (resolveDocs: the rule docs and examples
	// its document lists, checked), its document, its JSON and its lint
	// depend on that file alone: they run in parallel, and their problems and warnings are reported in
	// file order, so the output stays byte-stable.
	var wg sync.WaitGroup
	sem := make(chan struct{}, goruntime.GOMAXPROCS(0))
	for _, o := range outs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			b := &builder{plugin: p, file: o.fm, probs: &o.probs, walkFailed: len(probs.list) > 0}
			b.resolveDocs(o.fm)
			if cfg.ReviewOnly {
				return
			}
			o.budget = budgetSchemas(o.fm, cfg.schemaBudget())
			o.doc = document(o.fm)
			o.raw = marshalDoc(&o.doc)
			o.warns = append(append(append(lintDocument(o.doc, o.fm), lintIDs(o.fm)...), lintIdentity(o.fm)...), lintItemBounds(o.fm)...)
			o.warns = append(o.fm.warns, o.warns...)
		}()
	}
	wg.Wait()
	// Methods expose: ALL left out are warned about even under strict (the
	// rest of the service is generated), also when a file keeps no tool.
	for _, w := range probs.leftOut {
		cfg.warn("warning", w)
	}
	for _, o := range outs {
		probs.list = append(probs.list, o.probs.list...)
		o.report(cfg, probs)
	}
	if len(probs.list) > 0 {
		return errors.New(strings.Join(probs.list, "\n"))
	}
	return emitFiles(p, cfg, outs)
}

// fileOut is one file's generation: its model, its document and JSON,
// and the problems and warnings found after the walk.
type fileOut struct {
	f     *protogen.File
	fm    *fileModel
	doc   schemadoc.Document
	raw   []byte
	warns []string
	// budget are the schema budget's warnings (schema_budget.go).
	budget []string
	probs  problems
}

// warn writes one line of the plugin's warnings or notes, when cfg has a
// writer for them.
func (cfg Config) warn(kind, msg string) {
	if cfg.Warn != nil {
		fmt.Fprintf(cfg.Warn, "protoc-gen-mcpwrite: %s: %s\n", kind, msg)
	}
}

// report writes o's warnings (problems under strict) and, with vendor
// notes, what decided each tool.
func (o *fileOut) report(cfg Config, probs *problems) {
	// Fields taken as OUTPUT_ONLY from their comment are warned about
	// even under strict: the schema is as the API documents it.
	for _, w := range commentOutputOnlyWarnings(o.fm) {
		cfg.warn("warning", w)
	}
	// An operation whose eventual types are unknown is warned about
	// even under strict: the tool says so, as the API declares it.
	for _, w := range operationWarnings(o.fm) {
		cfg.warn("warning", w)
	}
	// What the schema budget gave as JSON text is warned about even under
	// strict: the schema fits, and get_write_schema has the rest.
	for _, w := range o.budget {
		cfg.warn("warning", w)
	}
	for _, w := range o.warns {
		if cfg.Strict {
			probs.addf("%s", w)
		} else {
			cfg.warn("warning", w)
		}
	}
	if !cfg.VendorNotes {
		return
	}
	// Each note starts with the position of the tool's method and names
	// it, as warnings do.
	at := map[string]string{}
	for _, sm := range o.fm.services {
		for _, t := range sm.tools {
			at[t.name] = fmt.Sprintf("%s: method %s: ", where(t.method.Desc), t.method.Desc.FullName())
		}
	}
	for _, s := range o.doc.Services {
		for _, t := range s.Tools {
			pos := at[t.Name]
			if pos == "" {
				pos = o.f.Desc.Path() + ": "
			}
			if t.DecidedBy != "" {
				cfg.warn("note", fmt.Sprintf("%stool %s: %s %s from %s; to decide otherwise, set kind and classification in the method's (mcpwrite.v1.tool) option", pos, t.Name, t.Kind, t.Classification, t.DecidedBy))
			}
			for _, n := range VendorNotes(t.Name, t.InputSchema) {
				cfg.warn("note", pos+n)
			}
		}
	}
}

// emitFiles writes each file's review report, Go code and JSON document.
// The Go files are formatted in parallel, for Response.
func emitFiles(p *protogen.Plugin, cfg Config, outs []*fileOut) error {
	var files []*goFile
	var wg sync.WaitGroup
	sem := make(chan struct{}, goruntime.GOMAXPROCS(0))
	defer wg.Wait()
	for _, o := range outs {
		if cfg.Review {
			r := p.NewGeneratedFile(reviewPath(o.fm), "")
			if _, err := r.Write(review(o.fm)); err != nil {
				return err
			}
		}
		if cfg.ReviewOnly {
			continue
		}
		src, im, err := emitGo(p, o.fm, cfg.Connect, cfg.SDK, cfg.protogenFormats)
		if err != nil {
			return err
		}
		if im != nil {
			gf := &goFile{name: o.fm.goPath, next: o.fm.jsonPath}
			files = append(files, gf)
			specs := im.specs()
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				gf.content, gf.err = formatGo(gf.name, src, specs)
			}()
		}
		j := p.NewGeneratedFile(o.fm.jsonPath, "")
		if _, err := j.Write(o.raw); err != nil {
			return err
		}
	}
	wg.Wait()
	goFiles.Store(p, files)
	return nil
}
