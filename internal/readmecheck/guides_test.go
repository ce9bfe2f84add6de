package readmecheck_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// guides are README.md and every docs/*.md.
func guides(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	return files
}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile("(?m)^#{1,6} (.+)$")
)

// anchor is GitHub's id of a heading: lower case, punctuation dropped,
// spaces as hyphens.
func anchor(h string) string {
	h = strings.ToLower(strings.ReplaceAll(h, "`", ""))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestGuideLinksResolve: every relative link of the README and the guides
// names a file of the repository and, with #anchor, a heading of it.
func TestGuideLinksResolve(t *testing.T) {
	checked := 0
	for _, doc := range guides(t) {
		for _, m := range mdLink.FindAllStringSubmatch(readRoot(t, doc), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			file := doc
			if path != "" {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(doc), path))
			}
			checked++
			info, err := os.Stat(filepath.Join("..", "..", file))
			if err != nil {
				t.Errorf("%s links %s: no such file %s", doc, target, file)
				continue
			}
			if frag == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(file, ".md") {
				t.Errorf("%s links %s: an anchor into %s, which is not a Markdown file", doc, target, file)
				continue
			}
			ids := map[string]bool{}
			for _, h := range heading.FindAllStringSubmatch(readRoot(t, file), -1) {
				ids[anchor(h[1])] = true
			}
			if !ids[frag] {
				t.Errorf("%s links %s: %s has no heading with the id %q", doc, target, file, frag)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("checked %d links; the scan is not reading the guides", checked)
	}
}

// TestReadmeLinksEveryGuide: the README links every docs/*.md, and stays a
// page read in minutes.
func TestReadmeLinksEveryGuide(t *testing.T) {
	readme := readRoot(t, "README.md")
	for _, doc := range guides(t)[1:] {
		if !strings.Contains(readme, "]("+doc+")") {
			t.Errorf("README.md does not link %s: add it to the table of guides", doc)
		}
	}
	if n := strings.Count(readme, "\n"); n > 300 {
		t.Errorf("README.md has %d lines; keep it under 300 and move detail to docs/", n)
	}
}

// TestReadmeLayoutIsComplete: every package directory of runtime/,
// internal/ and cmd/ (two levels) and every top-level directory is named in
// the README's layout table, itself or under a named parent.
func TestReadmeLayoutIsComplete(t *testing.T) {
	readme := readRoot(t, "README.md")
	_, table, ok := strings.Cut(readme, "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no ## Layout section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z.][a-z0-9_./-]*/)`").FindAllStringSubmatch(table, -1) {
		named[m[1]] = true
	}
	// runtime/internal/ lists its children by their short names.
	for _, m := range regexp.MustCompile("`([a-z]+)/`").FindAllStringSubmatch(table, -1) {
		named["runtime/internal/"+m[1]+"/"] = true
	}
	var missing []string
	var want []string
	top, err := os.ReadDir("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range top {
		if e.IsDir() && e.Name() != ".git" && e.Name() != ".tools" && e.Name() != ".test-output" {
			want = append(want, e.Name()+"/")
		}
	}
	for _, root := range []string{"runtime", "internal", "cmd"} {
		for _, pattern := range []string{root + "/*/", root + "/*/*/"} {
			dirs, err := filepath.Glob(filepath.Join("../..", pattern))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range dirs {
				rel, _ := filepath.Rel("../..", d)
				rel = filepath.ToSlash(rel) + "/"
				if strings.Contains(rel, "testdata") {
					continue
				}
				if gos, _ := filepath.Glob(filepath.Join(d, "*.go")); len(gos) > 0 {
					want = append(want, rel)
				}
			}
		}
	}
	for _, dir := range want {
		topLevel := strings.Count(dir, "/") == 1
		covered := false
		for n := range named {
			// A directory is named itself or under a named parent below
			// the top level (runtime/idempotency/ names its pgstore/); a
			// top-level one also through a named child.
			covered = covered || n == dir || strings.Count(n, "/") > 1 && strings.HasPrefix(dir, n) ||
				topLevel && strings.HasPrefix(n, dir)
		}
		if !covered {
			missing = append(missing, dir)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("README.md's layout table does not name %v: add a row (or name it in its parent's row)", missing)
	}
}

// TestOwnServerGuideIsTheQuickstarts: every Go block of docs/own-server.md
// is an excerpt of quickstart/stores (indentation aside), which make
// quickstart builds and runs against PostgreSQL and Redis.
func TestOwnServerGuideIsTheQuickstarts(t *testing.T) {
	var src strings.Builder
	for _, f := range []string{"main", "rooms", "checks"} {
		src.WriteString(flatten(readRoot(t, "quickstart/stores/"+f+".go.txt")))
	}
	blocks := goBlock.FindAllStringSubmatch(readRoot(t, "docs/own-server.md"), -1)
	if len(blocks) < 6 {
		t.Fatalf("docs/own-server.md has %d Go blocks; want the stores, the relay, the options, the domain and both registrations", len(blocks))
	}
	for i, b := range blocks {
		if !strings.Contains(src.String(), flatten(b[1])) {
			t.Errorf("docs/own-server.md Go block %d is not an excerpt of quickstart/stores/*.go.txt:\n%s", i+1, b[1])
		}
	}
	if !strings.Contains(readRoot(t, "quickstart/run.sh"), `cp "$checkout/quickstart/stores/$f.go.txt"`) {
		t.Error("quickstart/run.sh no longer runs quickstart/stores")
	}
}

// flatten drops each line's leading tabs.
func flatten(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "\n")
}
