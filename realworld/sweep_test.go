package realworld

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/types/pluginpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// The sweep adopts, with the two lines only, every service of one version
// of every API a corpus ships (sweepCorpora), generates each file in
// process and records how every method was classified and on what
// evidence. Generated Go is not compiled (TestRealworldCodeCompiles does
// that for the curated corpus).

// sweepCorpus is one installed npm package of .proto files.
type sweepCorpus struct {
	// name labels the corpus in the report.
	name string
	// root is the package's directory, an import path.
	root string
	// dirs are the directories under root that hold its APIs.
	dirs []string
	// imports are further import paths the corpus's files need.
	imports []string
	// skip are directories under root left out of the sweep, with why.
	skip map[string]string
	// ownDirsOnly imports only dirs from root: the package ships its own,
	// older copies of google/protobuf, which must not shadow the compiler's.
	ownDirsOnly bool
	// goPackage is the Go import path, prefix of each file's directory,
	// for files without go_package (passed as M parameters, as an adopter
	// would).
	goPackage string
	// param is the plugin parameter of every request.
	param string
	// importRoot is the import path of the corpus's files: root, or a
	// directory of links to its dirs.
	importRoot string
}

// versionRE matches an API version directory (v1, v2beta1, v1p1beta1).
var versionRE = regexp.MustCompile(`^v(\d+)(?:p(\d+))?(alpha|beta)?(\d*)$`)

// versionRank orders versions: every stable version above every
// pre-release, then by major, point, beta above alpha, and number.
func versionRank(v string) [5]int {
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return [5]int{}
	}
	n := func(s string) int { i, _ := strconv.Atoi(s); return i }
	stage := map[string]int{"alpha": 0, "beta": 1, "": 2}[m[3]]
	stable := 0
	if m[3] == "" {
		stable = 1
	}
	return [5]int{stable, n(m[1]), n(m[2]), stage, n(m[4])}
}

func rankLess(a, b [5]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// sweepFiles lists, relative to c.root, the files with a service of the
// newest version of every API under c.dirs (the newest stable version,
// else the newest pre-release), sorted. An API is a directory path with
// its version segment replaced; a directory without one is its own API.
func sweepFiles(t *testing.T, c sweepCorpus) []string {
	t.Helper()
	byDir := map[string][]string{}
	for _, d := range c.dirs {
		err := filepath.WalkDir(filepath.Join(c.root, d), func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(c.root, p)
			if e.IsDir() && c.skip[filepath.ToSlash(rel)] != "" {
				return filepath.SkipDir
			}
			if e.IsDir() || !strings.HasSuffix(p, ".proto") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if serviceRE.Match(src) {
				rel = filepath.ToSlash(rel)
				byDir[pathDir(rel)] = append(byDir[pathDir(rel)], rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	type pick struct {
		dir  string
		rank [5]int
	}
	apis := map[string]pick{}
	for dir := range byDir {
		parts := strings.Split(dir, "/")
		api, rank := dir, [5]int{}
		for i := len(parts) - 1; i >= 0; i-- {
			if versionRE.MatchString(parts[i]) {
				rank = versionRank(parts[i])
				api = strings.Join(append(append([]string{}, parts[:i]...), append([]string{"*"}, parts[i+1:]...)...), "/")
				break
			}
		}
		if p, ok := apis[api]; !ok || rankLess(p.rank, rank) || p.rank == rank && dir > p.dir {
			apis[api] = pick{dir, rank}
		}
	}
	var files []string
	for _, p := range apis {
		files = append(files, byDir[p.dir]...)
	}
	sort.Strings(files)
	return files
}

func pathDir(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i]
	}
	return "."
}

// sweepRow is one method of the sweep.
type sweepRow struct {
	method, binding      string
	kind, class, confirm string
	evidence             string
	// leftOut is why the method has no tool ("" when it has one).
	leftOut string
}

// sweepService is one service of the sweep.
type sweepService struct {
	corpus, file, name string
	rows               []sweepRow
	// failed is why no tool of the service was generated ("" when it was).
	failed string
}

// sweepDir adopts files (one directory's) and generates their review
// reports only (review=only) in one compilation and one run; when either
// fails it sweeps each file alone, so a failure is the failing file's.
func sweepDir(c sweepCorpus, imports *plugintest.Imports, overlay string, files []string) ([][]sweepService, []error) {
	outs, errs := make([][]sweepService, len(files)), make([]error, len(files))
	for i, file := range files {
		errs[i] = adoptInto(c, overlay, file)
	}
	paths := append(append([]string{overlay, c.importRoot}, c.imports...), annotationsDir, protovalidateDir)
	if len(files) > 1 {
		req, err := plugintest.RequestWith(imports, paths, files, c.param)
		if err == nil {
			resp, err := plugintest.Run(req)
			if err == nil && resp.Error == nil {
				for i, file := range files {
					outs[i], errs[i] = reviewOf(c, file, req, resp)
				}
				return outs, errs
			}
		}
	}
	for i, file := range files {
		if errs[i] != nil {
			continue
		}
		req, err := plugintest.RequestWith(imports, paths, []string{file}, c.param)
		if err != nil {
			errs[i] = fmt.Errorf("compile %s: %v", file, err)
			continue
		}
		resp, err := plugintest.Run(req)
		switch {
		case err != nil:
			errs[i] = fmt.Errorf("%s: %v", file, err)
		case resp.Error != nil:
			outs[i] = failedServices(c.name, file, req, failReason(resp.GetError()))
		default:
			outs[i], errs[i] = reviewOf(c, file, req, resp)
		}
	}
	return outs, errs
}

// adoptInto writes file, adopted, under overlay.
func adoptInto(c sweepCorpus, overlay, file string) error {
	src, err := os.ReadFile(filepath.Join(c.root, file))
	if err != nil {
		return err
	}
	adopted, err := adopt(src)
	if err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	dst := filepath.Join(overlay, file)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, adopted, 0o644)
}

// reviewOf returns the services of file from its review report in resp.
func reviewOf(c sweepCorpus, file string, req *pluginpb.CodeGeneratorRequest, resp *pluginpb.CodeGeneratorResponse) ([]sweepService, error) {
	want := strings.TrimSuffix(file, ".proto")
	for _, f := range resp.File {
		if name, ok := strings.CutSuffix(f.GetName(), ".mcpwrite.review.tsv"); ok && pathDir(pathDir(name)) == pathDir(want) && name[strings.LastIndex(name, "/")+1:] == want[strings.LastIndex(want, "/")+1:] {
			return reviewServices(c.name, file, f.GetContent())
		}
	}
	// No report: the file exposes no method, which expose: ALL means every
	// method streams.
	svcs := failedServices(c.name, file, req, "")
	for _, s := range svcs {
		for i := range s.rows {
			s.rows[i].leftOut = "streaming (tools are unary)"
		}
	}
	return svcs, nil
}

// failedServices lists the services of a file whose generation failed.
func failedServices(corpus, file string, req *pluginpb.CodeGeneratorRequest, reason string) []sweepService {
	var out []sweepService
	for _, f := range req.ProtoFile {
		if f.GetName() != file {
			continue
		}
		for _, s := range f.GetService() {
			svc := sweepService{corpus: corpus, file: file, name: f.GetPackage() + "." + s.GetName(), failed: reason}
			for _, m := range s.GetMethod() {
				svc.rows = append(svc.rows, sweepRow{method: m.GetName(), leftOut: "service failed"})
			}
			out = append(out, svc)
		}
	}
	return out
}

// reviewServices parses a review report into services.
func reviewServices(corpus, file, report string) ([]sweepService, error) {
	var out []sweepService
	lines := strings.Split(strings.TrimSuffix(report, "\n"), "\n")
	for _, l := range lines[1:] {
		c := strings.Split(l, "\t")
		if len(c) != 7 {
			return nil, fmt.Errorf("%s: review row %q has %d columns, want 7", file, l, len(c))
		}
		if len(out) == 0 || out[len(out)-1].name != c[0] {
			out = append(out, sweepService{corpus: corpus, file: file, name: c[0]})
		}
		row := sweepRow{method: c[1], binding: c[2], kind: c[3], class: c[4], confirm: c[5], evidence: c[6]}
		if c[3] == "-" {
			row.leftOut = strings.TrimPrefix(c[6], "not exposed: ")
		}
		s := &out[len(out)-1]
		s.rows = append(s.rows, row)
	}
	return out, nil
}

// failReasonRE picks what a generation error says is wrong, without the
// file, tool and path that vary from service to service.
var failReasonRE = regexp.MustCompile(`(google\.protobuf\.[A-Za-z]+ cannot be agent-supplied|[a-z][a-z ]+ (?:cannot|can not|is not|are not) [a-z -]+)`)

// failReason is the first problem of a generation error, as a reason that
// groups services failing for the same cause.
func failReason(err string) string {
	first := strings.SplitN(err, "\n", 2)[0]
	if m := failReasonRE.FindString(first); m != "" {
		return strings.TrimSpace(m)
	}
	if len(first) > 160 {
		first = first[:160]
	}
	return first
}

// sweep generates every file of c, a directory at a time on workers
// goroutines, and returns its services in file order.
func sweep(t *testing.T, c sweepCorpus, files []string, workers int) []sweepService {
	t.Helper()
	overlay := t.TempDir()
	if c.importRoot = c.root; c.ownDirsOnly {
		c.importRoot = t.TempDir()
		for _, d := range c.dirs {
			abs, err := filepath.Abs(filepath.Join(c.root, d))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(abs, filepath.Join(c.importRoot, d)); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.param = "paths=source_relative,review=only"
	if c.goPackage != "" {
		for _, d := range c.dirs {
			err := filepath.WalkDir(filepath.Join(c.root, d), func(p string, e os.DirEntry, err error) error {
				if err != nil || e.IsDir() || !strings.HasSuffix(p, ".proto") {
					return err
				}
				rel, _ := filepath.Rel(c.root, p)
				c.param += ",M" + filepath.ToSlash(rel) + "=" + c.goPackage + "/" + pathDir(filepath.ToSlash(rel))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	var groups [][]int
	for i, f := range files {
		if i == 0 || pathDir(f) != pathDir(files[i-1]) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], i)
	}
	results := make([][]sweepService, len(files))
	errs := make([]error, len(files))
	// Imports shared by directories are compiled once; the overlay's
	// adopted files are always compiled fresh.
	imports := plugintest.NewImports(overlay)
	next := make(chan []int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				names := make([]string, len(g))
				for j, i := range g {
					names[j] = files[i]
				}
				outs, es := sweepDir(c, imports, overlay, names)
				for j, i := range g {
					results[i], errs[i] = outs[j], es[j]
				}
			}
		}()
	}
	for _, g := range groups {
		next <- g
	}
	close(next)
	wg.Wait()
	var out []sweepService
	for i, r := range results {
		if errs[i] != nil {
			// A file the corpus ships that does not compile with its own
			// imports is a corpus problem, counted apart.
			out = append(out, sweepService{corpus: c.name, file: files[i], name: files[i], failed: "does not compile: " + errs[i].Error()})
			continue
		}
		out = append(out, r...)
	}
	return out
}
