package gen

import (
	"bytes"
	"fmt"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// The review report (parameter review): one row per method of every
// service of a file, the exposed ones with their kind, classification,
// confirmation and the evidence that decided them (decided_by), the
// others with why they have no tool, so a user reviews every decision of
// a service in one file before exposing it (docs/existing-apis.md).

// reviewHeader names the report's tab-separated columns.
const reviewHeader = "service\tmethod\thttp\tkind\tclassification\tconfirmation\tdecided_by\n"

// reviewPath is the review report's output path, beside the .mcpwrite.json.
func reviewPath(fm *fileModel) string {
	return strings.TrimSuffix(fm.jsonPath, ".json") + ".review.tsv"
}

// review renders fm's review report.
func review(fm *fileModel) []byte {
	tools := map[*protogen.Method]*toolModel{}
	for _, sm := range fm.services {
		for _, t := range sm.tools {
			tools[t.method] = t
		}
	}
	var b bytes.Buffer
	b.WriteString(reviewHeader)
	for _, s := range fm.proto.Services {
		for _, m := range s.Methods {
			verb, path := httpVerb(m)
			binding := "-"
			if verb != "" {
				binding = verb + " " + path
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t", s.Desc.FullName(), m.Desc.Name(), binding)
			t := tools[m]
			if t == nil {
				fmt.Fprintf(&b, "-\t-\t-\tnot exposed: %s\n", notExposed(s, m))
				continue
			}
			conf := t.confirmation.String()
			if t.kind == kindRead {
				conf = "-"
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", t.kind, t.classification, conf, t.decidedBy)
		}
	}
	return b.Bytes()
}

// notExposed says why a method has no tool.
func notExposed(s *protogen.Service, m *protogen.Method) string {
	switch {
	case m.Desc.IsStreamingClient() || m.Desc.IsStreamingServer():
		return "streaming (tools are unary)"
	case ext[*mcpwritev1.ServiceRules](s.Desc.Options(), mcpwritev1.E_Service).GetExpose() != mcpwritev1.ServiceRules_ALL &&
		ext[*mcpwritev1.ToolRules](m.Desc.Options(), mcpwritev1.E_Tool) == nil:
		return "no tool option (the service exposes ANNOTATED methods)"
	}
	return "left out (see the plugin's warnings)"
}
