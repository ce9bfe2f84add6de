package gen

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
)

// Version is the plugin's version; it matches the runtime it generates for
// (runtime.Version, checked by a test).
const Version = "0.1.0"

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
	// Warn receives portability warnings when not strict (stderr in the plugin).
	Warn io.Writer
}

// Set parses one plugin parameter (name=value), rejecting unknown names and
// bad values with the exact message a user sees.
func (c *Config) Set(name, value string) error {
	switch name {
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
	return fmt.Errorf("unknown parameter %q (known: strict, vendor_notes, connect)", name)
}

// Generate emits the .mcpwrite.go and .mcpwrite.json files of every file to
// generate. Annotation mistakes are returned together as one error, which
// protogen reports in the CodeGeneratorResponse; nothing is emitted then.
func Generate(p *protogen.Plugin, cfg Config) error {
	probs := &problems{}
	type out struct {
		fm  *fileModel
		b   *builder
		doc []byte
	}
	var outs []out
	for _, f := range p.Files {
		if !f.Generate {
			continue
		}
		fm := buildFile(p, f, probs)
		if fm == nil {
			continue
		}
		b := &builder{plugin: p, file: fm, probs: probs}
		doc := b.document(fm)
		raw := marshalDoc(doc)
		for _, w := range append(lintDocument(doc), lintIDs(fm)...) {
			if cfg.Strict {
				probs.addf("%s: %s", f.Desc.Path(), w)
			} else if cfg.Warn != nil {
				fmt.Fprintf(cfg.Warn, "protoc-gen-mcpwrite: warning: %s: %s\n", f.Desc.Path(), w)
			}
		}
		if cfg.VendorNotes && cfg.Warn != nil {
			for _, s := range doc.Services {
				for _, t := range s.Tools {
					for _, n := range VendorNotes(t.Name, t.InputSchema) {
						fmt.Fprintf(cfg.Warn, "protoc-gen-mcpwrite: note: %s: %s\n", f.Desc.Path(), n)
					}
				}
			}
		}
		outs = append(outs, out{fm: fm, b: b, doc: raw})
	}
	if len(probs.list) > 0 {
		return errors.New(strings.Join(probs.list, "\n"))
	}
	for _, o := range outs {
		emitGo(p, o.fm, cfg.Connect)
		j := p.NewGeneratedFile(o.fm.jsonPath, "")
		if _, err := j.Write(o.doc); err != nil {
			return err
		}
	}
	return nil
}
