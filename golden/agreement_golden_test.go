package golden_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// TestGoldenSchemaAndDecoderAgree holds every tool of every golden case to
// the agreement contract of TestSchemaAndServerAgree at the preparer level:
// golden cases have no domain, so each case's generated code is compiled
// into a helper that answers a call with runtime.Preparer's Prepare (decode,
// validate, enrich) for a service built with a nil handler. A call whose
// enrichment needs the handler (a reference or a resolver) is answered by
// Decode alone (the parse, decode and validation the schema describes);
// the figures count those calls as "decode only".
func TestGoldenSchemaAndDecoderAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated code with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, dir, _ := golden.GenerateCases(t)
	helper := buildAgreementHelper(t, goTool, root, dir)
	cmd := exec.Command(helper)
	// Golden cases reuse proto file names (tasks/v1/tasks.proto); each
	// service keeps its own descriptors, so the first registration wins.
	cmd.Env = append(os.Environ(), "GOLANG_PROTOBUF_REGISTRATION_CONFLICT=ignore")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	h := &helperConn{t: t, in: stdin, out: bufio.NewReader(stdout)}
	var listed []struct {
		Case, Service string
		Tools         []*mcp.Tool
		Refused       string
	}
	h.read(&listed)
	got := map[string]*goldenAgreement{}
	var refused []string
	known := map[string]int{}
	for _, s := range listed {
		if s.Refused != "" {
			refused = append(refused, s.Case+": "+s.Refused)
			continue
		}
		a := agreeOn(t, s.Tools, func(tool, args string) mcptest.Result { return h.call(s.Case, s.Service, tool, args) })
		g := got[s.Case]
		if g == nil {
			g = &goldenAgreement{}
			got[s.Case] = g
		}
		g.add(a)
		for _, d := range a.disagreements {
			tool, _, _ := strings.Cut(d, ":")
			k := goldenKnown[s.Case+" "+tool]
			if k.cause == "" || !strings.Contains(d, k.cause) {
				t.Errorf("%s %s: %s", s.Case, s.Service, d)
				continue
			}
			known[s.Case+" "+tool]++
		}

	}
	for _, c := range h.decodeOnly {
		got[c].decodeOnly++
	}
	cases := make([]string, 0, len(got))
	for c := range got {
		cases = append(cases, c)
	}
	sort.Strings(cases)
	for _, c := range cases {
		t.Logf("%s: %s", c, got[c])
		if w, ok := goldenAgreementWant[c]; !ok || w != got[c].figures() {
			t.Errorf("%s: figures changed: got %v, want %v", c, got[c].figures(), w)
		}
	}
	for k, w := range goldenKnown {
		if known[k] != w.n {
			t.Errorf("%s: %d disagreements caused by %s, want %d", k, known[k], w.cause, w.n)
		}
	}
	goldenPairsJoinDecodeProblems(t, h)
	served := map[string]bool{}
	for _, s := range listed {
		served[s.Case+" "+s.Service] = s.Refused == ""
	}
	if n := goldenExamplesAreAccepted(t, h, served); n == 0 {
		t.Error("no golden document shows an example")
	} else {
		t.Logf("%d documented examples sent", n)
	}
	// A service the runtime refuses to serve has no calls to agree on.
	if want := []string{goldenRefusedService}; !slices.Equal(refused, want) {
		t.Errorf("services NewPreparer refuses = %q, want %q", refused, want)
	}
	if len(got) != len(goldenAgreementWant) {
		t.Errorf("%d golden cases with tools, want %d", len(got), len(goldenAgreementWant))
	}
}

// goldenFigures are one golden case's counts: valid, accepted, refused by a
// stated rule, invalid, refused naming the field, lenient, decode only.
type goldenFigures [7]int

// goldenAgreementWant are the exact figures (the seed is fixed), so a new
// tool, field or refusal in a golden case is noticed and reviewed here.
// goldenKnown are the disagreements the generator still has, by case and
// tool: the rule the decoder enforces that the schema does not state (the
// marker every such disagreement names) and how many calls it refuses. It
// is empty: a FieldMask position states the paths the decoder takes, and a
// buf.validate string `in` list is the schema's enum, also on a field the
// server fills unless the agent sends it. With those stated, the update
// masks the schema generates are paths of the resource (accepted, where
// random text was refused: aip_standard_methods 4, aip_identity_reference
// 2, whose valid updates now reach the reference and are answered by
// Decode alone, 3), each mask pattern adds an "outside pattern" mutation,
// buf_validate's region adds an "enum value outside the list" mutation, and
// a mutation whose base the unstated rule broke is now taken in its
// lenient form (buf_validate 2, well_known_types 3).
var goldenKnown = map[string]struct {
	cause string
	n     int
}{}

const goldenRefusedService = `service_options: runtime: service crm.v1.AuditService: tool "purgeRecords" asks for ELICIT confirmation but the service has no apply tool`

var goldenAgreementWant = map[string]goldenFigures{
	"adopt_leave_out":             {5, 5, 0, 2, 2, 0, 0},
	"any_input":                   {10, 10, 0, 7, 7, 0, 0},
	"aip_identity_reference":      {10, 10, 0, 6, 6, 0, 3},
	"aip_irreversible":            {30, 30, 0, 28, 28, 0, 0},
	"aip_name_inference":          {20, 20, 0, 14, 14, 0, 0},
	"aip_read_signals":            {15, 15, 0, 7, 7, 0, 0},
	"aip_server_owned_depth":      {15, 15, 0, 11, 11, 0, 0},
	"aip_standard_methods":        {45, 45, 0, 42, 42, 0, 0},
	"batch_items":                 {5, 5, 0, 5, 4, 1, 6},
	"buf_validate":                {5, 0, 5, 49, 47, 2, 0},
	"buf_validate_editions":       {5, 5, 0, 14, 14, 0, 0},
	"buf_validate_proto2":         {5, 5, 0, 11, 11, 0, 0},
	"buf_validate_values":         {10, 6, 4, 45, 45, 0, 3},
	"conditional_required":        {5, 3, 2, 14, 14, 0, 0},
	"confirmation_options":        {10, 10, 0, 11, 11, 0, 0},
	"connect_adapter":             {5, 5, 0, 4, 4, 0, 5},
	"derived_sources":             {10, 10, 0, 20, 20, 0, 13},
	"editions_2023":               {5, 5, 0, 12, 12, 0, 3},
	"enum_aliases":                {5, 5, 0, 14, 14, 0, 0},
	"field_behavior":              {5, 5, 0, 4, 4, 0, 0},
	"generated_kinds":             {5, 5, 0, 14, 14, 0, 0},
	"json_naming":                 {15, 14, 1, 26, 25, 1, 0},
	"long_running":                {15, 15, 0, 13, 13, 0, 0},
	"nested_messages":             {10, 10, 0, 9, 9, 0, 0},
	"oneofs":                      {5, 1, 4, 11, 11, 0, 0},
	"pair_checks":                 {10, 4, 6, 19, 19, 0, 0},
	"proto2_presence":             {5, 5, 0, 22, 22, 0, 0},
	"proto3_optional":             {10, 10, 0, 18, 18, 0, 0},
	"read_tools":                  {15, 15, 0, 17, 17, 0, 0},
	"recursive_messages":          {20, 14, 6, 17, 17, 0, 0},
	"references":                  {5, 5, 0, 7, 7, 0, 5},
	"repeated_and_maps":           {5, 5, 0, 14, 9, 5, 0},
	"resources":                   {30, 30, 0, 22, 22, 0, 0},
	"schema_budget":               {10, 9, 1, 5, 5, 0, 0},
	"sdk_mcpgo":                   {10, 10, 0, 8, 8, 0, 0},
	"service_options":             {15, 15, 0, 21, 21, 0, 0},
	"update_mask_googleapis":      {5, 5, 0, 5, 5, 0, 0},
	"update_mask_own_annotations": {5, 5, 0, 4, 4, 0, 0},
	"vocabularies":                {5, 0, 5, 6, 6, 0, 0},
	"well_known_types":            {5, 5, 0, 26, 23, 3, 0},
}

type goldenAgreement struct {
	agreement
	decodeOnly int
}

func (g *goldenAgreement) add(a agreement) {
	g.valid += a.valid
	g.accepted += a.accepted
	g.refusedByRule += a.refusedByRule
	g.invalid += a.invalid
	g.refused += a.refused
	g.lenient += a.lenient
	if g.forms == nil {
		g.forms = map[string]int{}
	}
	for f, n := range a.forms {
		g.forms[f] += n
	}
}

func (g *goldenAgreement) figures() goldenFigures {
	return goldenFigures{g.valid, g.accepted, g.refusedByRule, g.invalid, g.refused, g.lenient, g.decodeOnly}
}

func (g *goldenAgreement) String() string {
	return fmt.Sprintf("%s, decode only %d", g.agreement, g.decodeOnly)
}

// helperConn talks to the helper: one JSON line per call and per answer.
type helperConn struct {
	t          *testing.T
	in         io.Writer
	out        *bufio.Reader
	decodeOnly []string // the case of every call answered by Decode alone
}

func (h *helperConn) read(v any) {
	line, err := h.out.ReadBytes('\n')
	if err != nil {
		h.t.Fatalf("agreement helper: %v", err)
	}
	if err := json.Unmarshal(line, v); err != nil {
		h.t.Fatalf("agreement helper answered %q: %v", line, err)
	}
}

// call answers one call as an envelope the agreement checks read: isError
// and the error entries.
func (h *helperConn) call(c, service, tool, args string) mcptest.Result {
	req, _ := json.Marshal(map[string]string{"case": c, "service": service, "tool": tool, "args": args})
	if _, err := h.in.Write(append(req, '\n')); err != nil {
		h.t.Fatalf("agreement helper: %v", err)
	}
	var ans struct {
		Errors []any  `json:"errors"`
		How    string `json:"how"`
	}
	h.read(&ans)
	if ans.How == "decode" {
		h.decodeOnly = append(h.decodeOnly, c)
	}
	text, _ := json.Marshal(ans.Errors)
	return mcptest.Result{IsError: len(ans.Errors) > 0, Text: string(text), Body: map[string]any{"errors": ans.Errors}}
}

var newService = regexp.MustCompile(`(?m)^func (New\w+)\(h \w+Handler\) \*mcpwriteimpl\.Service \{`)

// buildAgreementHelper writes and builds a program that lists every golden
// service's tools as tools/list advertises them and then answers calls.
func buildAgreementHelper(t *testing.T, goTool, root, dir string) string {
	t.Helper()
	var imports, entries []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".mcpwrite.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		c := strings.Split(filepath.ToSlash(rel), "/")[0]
		alias := fmt.Sprintf("p%d", len(imports))
		imports = append(imports, fmt.Sprintf("\t%s %q", alias, "github.com/mcpwrite/protoc-gen-mcpwrite/golden/"+filepath.ToSlash(filepath.Dir(path))))
		for _, m := range newService.FindAllSubmatch(src, -1) {
			entries = append(entries, fmt.Sprintf("\t{%q, %s.%s(nil)},", c, alias, m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 20 {
		t.Fatalf("found %d generated services, want every golden case's", len(entries))
	}
	src := strings.Replace(agreementHelperSource, "//IMPORTS", strings.Join(imports, "\n"), 1)
	src = strings.Replace(src, "//SERVICES", strings.Join(entries, "\n"), 1)
	main := filepath.Join(dir, "agreehelper", "main.go")
	if err := os.MkdirAll(filepath.Dir(main), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := filepath.Abs(filepath.Join(dir, "agreehelper", "agreehelper"))
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command(goTool, "build", "-o", bin, "./golden/"+filepath.ToSlash(filepath.Dir(main)))
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the agreement helper: %v\n%s", err, out)
	}
	return bin
}
