package realworld

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// googleCorpus is google-proto-files: googleapis, grafeas and the Google
// Ads API (its newest version, v25), whose 110 service files of one
// directory share one graph of thousands of messages: sweepDir compiles
// them together once (about 2 s) and generates them in one run (about
// 0.5 s); one at a time they would take about 10 s.
var googleCorpus = sweepCorpus{
	name: "google-proto-files@6.0.1", root: protosDir, dirs: []string{"google", "grafeas"},
}

// restoreCorpus is @restorecommerce/protos: the gRPC services (no HTTP
// bindings, no AIP shapes) of the Restorecommerce e-commerce platform.
var restoreCorpus = sweepCorpus{name: "@restorecommerce/protos@6.16.1", root: "node_modules/@restorecommerce/protos", dirs: []string{"io"}, ownDirsOnly: true, goPackage: "example.com/restorecommerce"}

// TestCorpusSweep adopts every service of the newest version of every
// API of each corpus with the two lines, and checks that the per-method
// report (testdata/sweep/<corpus>.txt) and the totals
// (testdata/sweep/totals.txt) are exactly what this run produced
// (go test ./realworld -run TestCorpusSweep -update re-pins both).
func TestCorpusSweep(t *testing.T) {
	skipWithoutCorpus(t)
	start := time.Now()
	var totals bytes.Buffer
	checked := 0
	for _, c := range []sweepCorpus{googleCorpus, restoreCorpus} {
		files := sweepFiles(t, c)
		svcs := sweep(t, c, files, runtime.GOMAXPROCS(0))
		checked += checkKnownDestructive(t, svcs)
		var report bytes.Buffer
		writeSweepReport(&report, svcs)
		writeSweepTotals(&totals, c.name, len(files), svcs)
		pin(t, "testdata/sweep/"+reportName(c.name)+".txt", report.Bytes())
	}
	if checked == 0 {
		t.Error("no method of a known-destructive verb was swept")
	}
	t.Logf("%d methods of known-destructive verbs checked", checked)
	t.Logf("sweep took %s", time.Since(start).Round(time.Millisecond))
	pin(t, "testdata/sweep/totals.txt", totals.Bytes())
}

// reportName is a corpus's report file name: its package name without
// version (google-proto-files, restorecommerce-protos).
func reportName(corpus string) string {
	return strings.ReplaceAll(strings.TrimPrefix(corpus[:strings.LastIndex(corpus, "@")], "@"), "/", "-")
}

// pin compares got with the file at path, or rewrites it under -update.
func pin(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(pathDir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from this run (go test ./realworld -run TestCorpusSweep -update to accept); first difference:\n%s", path, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n want: %s\n  got: %s", i+1, wl, gl)
		}
	}
	return "(equal)"
}

// writeSweepReport writes one block per service, one row per method:
// method, HTTP binding, kind, classification, confirmation and evidence,
// or why the method has no tool.
func writeSweepReport(w *bytes.Buffer, svcs []sweepService) {
	for _, s := range svcs {
		fmt.Fprintf(w, "== %s (%s)\n", s.name, s.file)
		if s.failed != "" {
			fmt.Fprintf(w, "!! failed entirely: %s\n", s.failed)
		}
		for _, r := range s.rows {
			if r.leftOut != "" {
				fmt.Fprintf(w, "%s\t%s\tLEFT OUT\t%s\n", r.method, r.binding, r.leftOut)
				continue
			}
			fmt.Fprintf(w, "%s\t%s\t%s %s %s\t%s\n", r.method, r.binding, r.kind, r.class, r.confirm, r.evidence)
		}
	}
}

// writeSweepTotals writes a corpus's counts: services, methods, tools by
// kind, destructive tools by kind of evidence, methods left out and
// services failed by reason.
func writeSweepTotals(w *bytes.Buffer, name string, files int, svcs []sweepService) {
	var nsvc, nfailed, nmethods, ntools int
	kinds, classes, evidence, leftOut, failed := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for _, s := range svcs {
		nsvc++
		if s.failed != "" {
			nfailed++
			failed[s.failed]++
		}
		for _, r := range s.rows {
			nmethods++
			if r.leftOut != "" {
				leftOut[r.leftOut]++
				continue
			}
			ntools++
			kinds[r.kind]++
			classes[r.class]++
			if strings.HasPrefix(r.class, "DESTRUCTIVE") {
				evidence[evidenceKind(r.evidence)]++
			}
		}
	}
	fmt.Fprintf(w, "== %s: %d files, %d services (%d failed entirely), %d methods, %d tools\n", name, files, nsvc, nfailed, nmethods, ntools)
	writeCounts(w, "kind", kinds)
	writeCounts(w, "classification", classes)
	writeCounts(w, "destructive by evidence", evidence)
	writeCounts(w, "left out", leftOut)
	writeCounts(w, "failed entirely", failed)
}

// evidenceKind groups a destructive tool's evidence: the destructive
// signal's kind (a destructive verb, a comment, a request field, a
// delete), or no evidence of safety.
func evidenceKind(e string) string {
	for _, p := range strings.Split(e, "; ") {
		switch {
		case strings.HasPrefix(p, "destructive by default"):
			return "destructive by default (no evidence it is safe)"
		case strings.HasPrefix(p, "destructive: "):
			k := strings.TrimPrefix(p, "destructive: ")
			for _, prefix := range []string{"destructive verb", "comment says", "request field", "a delete"} {
				if strings.HasPrefix(k, prefix) {
					return prefix
				}
			}
			return k
		case strings.HasPrefix(p, "classification ") && strings.HasSuffix(p, " from the tool option"):
			return "the tool option"
		}
	}
	return "unrecognised evidence: " + e
}

func writeCounts(w *bytes.Buffer, what string, m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	for _, k := range keys {
		fmt.Fprintf(w, "%s\t%d\t%s\n", what, m[k], k)
	}
}

// knownDestructive are verbs of custom methods that destroy, overwrite,
// interrupt, disable or mint credentials: a method whose name starts with
// one (after Batch or Bulk) must never be classified safe or a read by
// the two adoption lines.
var knownDestructive = []string{
	"Delete", "Purge", "Destroy", "Drop", "Truncate", "Cancel", "Stop", "Disable", "Revoke",
	"Reset", "Rollback", "Restore", "Import", "Overwrite", "Undeploy", "Terminate", "Sign",
	"Remove", "Erase", "Wipe", "Abort", "Suspend", "Replace", "Undelete",
}

// knownDestructiveNames are whole method names that must never be
// classified safe or a read: they mint credentials or run statements.
var knownDestructiveNames = map[string]bool{
	"GenerateAccessToken": true, "GenerateIdToken": true, "SignBlob": true, "SignJwt": true,
	"AsymmetricSign": true, "MacSign": true, "UpdateDatabaseDdl": true, "BatchDeleteDocuments": true,
	"GenerateUploadUrl": true, "GenerateDownloadUrl": true, "ExecuteSql": true, "ExecuteBatchDml": true,
}

// checkKnownDestructive fails for every tool of svcs whose name says it
// destroys and whose classification does not, and returns how many it
// checked.
func checkKnownDestructive(t *testing.T, svcs []sweepService) int {
	t.Helper()
	checked := 0
	for _, s := range svcs {
		for _, r := range s.rows {
			if r.leftOut != "" || !isKnownDestructive(r.method) {
				continue
			}
			checked++
			if !strings.HasPrefix(r.class, "DESTRUCTIVE_") || r.confirm == "DIRECT" {
				t.Errorf("%s.%s is %s %s %s (%s), want destructive and confirmed", s.name, r.method, r.kind, r.class, r.confirm, r.evidence)
			}
		}
	}
	return checked
}

func isKnownDestructive(method string) bool {
	if knownDestructiveNames[method] {
		return true
	}
	name := strings.TrimPrefix(strings.TrimPrefix(method, "Batch"), "Bulk")
	for _, v := range knownDestructive {
		if rest, ok := strings.CutPrefix(name, v); ok && (rest == "" || rest[0] >= 'A' && rest[0] <= 'Z') {
			return true
		}
	}
	return false
}
