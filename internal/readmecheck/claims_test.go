package readmecheck_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

func readRoot(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// duration is a wall-clock figure as the README writes one: "3 min 28 s",
// "2 s", "5 min".
var duration = regexp.MustCompile(`\b\d+ min(?: \d+ s)?\b|\b\d+(?:\.\d+)? s\b`)

// countLine is a count of make test in bench/results/commands.txt.
var countLine = regexp.MustCompile(`^make test \((passed|failed|skipped|packages)\): (\d+)$`)

// TestReadmeTimingsAreMeasured: every duration the README gives on a line
// naming a make command (how long the command takes) is one measured in bench/results/commands.txt for
// that command, every measured duration is in the README, and so are the
// recorded counts of make test.
func TestReadmeTimingsAreMeasured(t *testing.T) {
	measured := map[string][]string{} // command -> durations
	counts := map[string]string{}     // passed, failed, skipped, packages -> count
	for _, line := range strings.Split(readRoot(t, "bench/results/commands.txt"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := countLine.FindStringSubmatch(line); m != nil {
			counts[m[1]] = m[2]
			continue
		}
		label, value, ok := strings.Cut(line, ": ")
		if !ok || !duration.MatchString(value) || duration.FindString(value) != value {
			t.Fatalf("bench/results/commands.txt: %q is not `command: duration`", line)
		}
		cmd, _, _ := strings.Cut(label, " (")
		measured[cmd] = append(measured[cmd], value)
	}
	if len(measured["make demo"]) != 2 || len(measured["make test"]) != 2 {
		t.Fatalf("bench/results/commands.txt: want make demo cold and warm and make test first and warm, got %v", measured)
	}
	readme := readRoot(t, "README.md")
	if len(counts) != 4 {
		t.Fatalf("bench/results/commands.txt: want the passed, failed, skipped and packages counts of make test, got %v", counts)
	}
	stated := fmt.Sprintf("%s tests passed in %s packages, %s skipped", counts["passed"], counts["packages"], counts["skipped"])
	if !strings.Contains(readme, stated) {
		t.Errorf("README.md does not say %q, the counts bench/results/commands.txt records for make test", stated)
	}
	statedAt := map[string]bool{}
	for _, line := range strings.Split(readme, "\n") {
		cmds := regexp.MustCompile(`make [a-z-]+`).FindAllString(line, -1)
		if len(cmds) == 0 {
			continue // a configured default or a bench table row (checked by the bench), not a command's duration
		}
		for _, d := range duration.FindAllString(line, -1) {
			ok := false
			for _, c := range cmds {
				for _, m := range measured[c] {
					if m == d {
						ok, statedAt[c+" "+m] = true, true
					}
				}
			}
			if !ok {
				t.Errorf("README.md states %q next to %v, which bench/results/commands.txt does not hold: measure it there or drop it\n  %s", d, cmds, line)
			}
		}
	}
	for c, ms := range measured {
		for _, m := range ms {
			if !statedAt[c+" "+m] {
				t.Errorf("bench/results/commands.txt measured %s at %s; the README does not say so", c, m)
			}
		}
	}
}

// signature is a Go signature the README quotes for generated code.
var signature = regexp.MustCompile("`((?:New|Register|Resolve)[A-Za-z<>]*\\([^`)]* [^`)]*\\)[^`]*)`")

// TestReadmeSignaturesAreGenerated: every signature of generated code the
// README and the guides quote is what the plugin generates: for a named service, in the
// committed examples or for quickstart/booking.proto; with <Service>, for
// at least one committed service.
func TestReadmeSignaturesAreGenerated(t *testing.T) {
	generated := generatedSources(t)
	var services []string
	for _, m := range regexp.MustCompile(`(?m)^type (\w+)Handler interface`).FindAllStringSubmatch(generated, -1) {
		services = append(services, m[1])
	}
	sort.Strings(services)
	var sigs [][]string
	for _, doc := range compiledDocs {
		sigs = append(sigs, signature.FindAllStringSubmatch(readRoot(t, doc), -1)...)
	}
	if len(sigs) < 5 {
		t.Fatalf("%v quote %d signatures of generated code; want the Register, both ClientAdapter forms and a Resolve method", compiledDocs, len(sigs))
	}
	for _, m := range sigs {
		sig := m[1]
		// Constructors are functions; Resolve methods belong to the
		// Handler and Resolvers interfaces.
		declared := func(s string) bool {
			return strings.Contains(generated, "func "+s+" {") || strings.Contains(generated, "\t"+s+"\n")
		}
		found := false
		if strings.Contains(sig, "<Service>") {
			for _, svc := range services {
				found = found || declared(strings.ReplaceAll(sig, "<Service>", svc))
			}
		} else {
			found = declared(sig)
		}
		if !found {
			t.Errorf("%v quote `%s`, which no generated code declares (services: %v)", compiledDocs, sig, services)
		}
	}
}

// generatedSources is every committed generated .mcpwrite.go, and the
// plugin's output for the quickstart's booking.proto, as one text.
func generatedSources(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	files, err := filepath.Glob("../../examples/*/gen/*/*/*mcpwrite/*.mcpwrite.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated examples: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
	}
	req, err := plugintest.Request([]string{"../../quickstart", "../../annotations"}, []string{"booking.proto"}, "paths=source_relative")
	if err != nil {
		t.Fatalf("compile quickstart/booking.proto: %v", err)
	}
	resp, err := plugintest.Run(req)
	if err != nil || resp.GetError() != "" {
		t.Fatalf("generate quickstart/booking.proto: %v %s", err, resp.GetError())
	}
	for _, f := range resp.GetFile() {
		b.WriteString(f.GetContent())
	}
	return b.String()
}

// TestReadmeBufConfigIsTheQuickstarts: the buf.yaml and buf.gen.yaml
// docs/getting-started.md shows are the ones make quickstart writes, lints
// and generates with, and its CI workflow is the one make quickstart runs.
func TestReadmeBufConfigIsTheQuickstarts(t *testing.T) {
	readme := readRoot(t, "docs/getting-started.md")
	script := readRoot(t, "quickstart/run.sh")
	blocks := regexp.MustCompile("(?s)\n```yaml\n(.*?)\n```").FindAllStringSubmatch(readme, -1)
	heredocs := regexp.MustCompile(`(?s)cat > (buf(?:\.gen)?\.yaml) <<'YAML'\n(.*?)\nYAML\n`).FindAllStringSubmatch(script, -1)
	if len(heredocs) != 2 {
		t.Fatalf("quickstart/run.sh writes %d buf files, want buf.yaml and buf.gen.yaml", len(heredocs))
	}
	for _, h := range heredocs {
		found := false
		for _, b := range blocks {
			found = found || b[1] == h[2]
		}
		if !found {
			t.Errorf("docs/getting-started.md shows no yaml block equal to the %s quickstart/run.sh writes:\n%s", h[1], h[2])
		}
	}
	workflow := strings.TrimSuffix(readRoot(t, "quickstart/ci/mcpwrite.yml"), "\n")
	found := false
	for _, b := range blocks {
		found = found || b[1] == workflow
	}
	if !found {
		t.Errorf("docs/getting-started.md shows no yaml block equal to quickstart/ci/mcpwrite.yml, the workflow make quickstart runs")
	}
	if !strings.Contains(script, `cp "$checkout/quickstart/ci/mcpwrite.yml" .github/workflows/mcpwrite.yml`) {
		t.Errorf("quickstart/run.sh no longer runs the workflow of quickstart/ci/mcpwrite.yml")
	}
}
