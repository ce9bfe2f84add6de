package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/pluginpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// Corpus sizes of the generation benchmark, in annotated methods: files of
// at most corpusMethodsPerFile methods each (5,000 methods: 125 files and
// about 10,500 messages). The ratio to protoc-gen-go must hold at every size
// and ours must grow linearly (CPU per method alike at 1,000 and 5,000).
var generateSizes = []int{10, 100, 1000, 5000}

const (
	corpusMethodsPerFile = 40
	corpusParam          = "paths=source_relative"
)

// corpusShape is how many files of how many methods make methods methods.
func corpusShape(methods int) (files, perFile int) {
	if methods <= corpusMethodsPerFile {
		return 1, methods
	}
	return (methods + corpusMethodsPerFile - 1) / corpusMethodsPerFile, corpusMethodsPerFile
}

// corpusImportPaths resolves the corpus and the annotations; the trailing ""
// lets the compiler open the paths it has already joined with a root.
func corpusImportPaths(dir string) []string { return []string{dir, "../annotations", ""} }

var plugin struct {
	once sync.Once
	path string
	err  error
}

// ourPlugin builds protoc-gen-mcpwrite from the current source once per run,
// so the benchmark never times a stale binary, the way the install
// instructions build it: static (CGO_ENABLED=0), like protoc-gen-go, which
// imports nothing that needs cgo.
func ourPlugin(b *testing.B) string {
	plugin.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcpwrite-bench-")
		if err != nil {
			plugin.err = err
			return
		}
		plugin.path = filepath.Join(dir, "protoc-gen-mcpwrite")
		build := exec.Command("go", "build", "-o", plugin.path, "github.com/mcpwrite/protoc-gen-mcpwrite/cmd/protoc-gen-mcpwrite")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			plugin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if plugin.err != nil {
		b.Skipf("cannot build protoc-gen-mcpwrite: %v", plugin.err)
	}
	return plugin.path
}

type corpusReq struct {
	raw   []byte
	files int
}

var corpora struct {
	mu sync.Mutex
	by map[int]corpusReq
}

// corpusRequest writes a corpus of methods annotated methods, compiles it
// into a CodeGeneratorRequest and marshals it, once per size and run; it
// returns the bytes and the file count.
func corpusRequest(methods int) ([]byte, int, error) {
	corpora.mu.Lock()
	defer corpora.mu.Unlock()
	if c, ok := corpora.by[methods]; ok {
		return c.raw, c.files, nil
	}
	dir, err := os.MkdirTemp("", "mcpwrite-corpus-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	nfiles, perFile := corpusShape(methods)
	files, err := writeCorpus(dir, nfiles, perFile)
	if err != nil {
		return nil, 0, err
	}
	req, err := plugintest.Request(corpusImportPaths(dir), files, corpusParam)
	if err != nil {
		return nil, 0, err
	}
	raw, err := proto.Marshal(req)
	if err != nil {
		return nil, 0, err
	}
	if corpora.by == nil {
		corpora.by = map[int]corpusReq{}
	}
	corpora.by[methods] = corpusReq{raw: raw, files: len(files)}
	return raw, len(files), nil
}

// BenchmarkGenerate runs each plugin as protoc does, one process per
// request with the CodeGeneratorRequest on stdin, on the same request bytes,
// at each corpus size (methods=N). Baseline: protoc-gen-go, which every user
// runs beside this plugin. ours-ns/op and baseline-ns/op are wall time per
// plugin run, the -cpu- metrics user+system CPU time, ours-cpu-ns/method
// ours per annotated method; ns/op covers two runs of each.
func BenchmarkGenerate(b *testing.B) {
	ours := ourPlugin(b)
	base, err := filepath.Abs("../.tools/bin/protoc-gen-go")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(base); err != nil {
		b.Skipf("baseline %s is absent: run make tools", base)
	}
	for _, methods := range generateSizes {
		b.Run(fmt.Sprintf("methods=%d", methods), func(b *testing.B) { benchGenerate(b, ours, base, methods) })
	}
}

func benchGenerate(b *testing.B, ours, base string, methods int) {
	raw, files, err := corpusRequest(methods)
	if err != nil {
		b.Fatal(err)
	}
	for _, bin := range []string{ours, base} {
		var out bytes.Buffer
		if _, err := runPlugin(bin, raw, &out, files); err != nil {
			b.Fatal(err)
		}
	}
	// One op is two rounds in ABBA order (ours, baseline, baseline, ours),
	// so load from elsewhere on the machine and any drift hit both alike.
	var out bytes.Buffer
	var oursTotal, baseTotal, oursCPU, baseCPU time.Duration
	timed := func(bin string, wall, cpu *time.Duration) {
		out.Reset()
		start := time.Now()
		st, err := runPlugin(bin, raw, &out, -1)
		if err != nil {
			b.Fatal(err)
		}
		*wall += time.Since(start)
		*cpu += st.UserTime() + st.SystemTime()
	}
	rounds := 0
	for b.Loop() {
		timed(ours, &oursTotal, &oursCPU)
		timed(base, &baseTotal, &baseCPU)
		timed(base, &baseTotal, &baseCPU)
		timed(ours, &oursTotal, &oursCPU)
		rounds += 2
	}
	b.ReportMetric(float64(oursTotal.Nanoseconds())/float64(rounds), "ours-ns/op")
	b.ReportMetric(float64(baseTotal.Nanoseconds())/float64(rounds), "baseline-ns/op")
	b.ReportMetric(float64(oursCPU.Nanoseconds())/float64(rounds), "ours-cpu-ns/op")
	b.ReportMetric(float64(baseCPU.Nanoseconds())/float64(rounds), "baseline-cpu-ns/op")
	b.ReportMetric(float64(oursCPU.Nanoseconds())/float64(rounds)/float64(methods), "ours-cpu-ns/method")
	b.ReportMetric(float64(oursTotal)/float64(baseTotal), "ours/baseline")
	b.ReportMetric(float64(len(raw)), "request-bytes")
}

// runPlugin runs bin with raw on stdin and returns its process state (for
// CPU time). With wantFiles >= 0 it also checks the response: no error and
// at least wantFiles files.
func runPlugin(bin string, raw []byte, out *bytes.Buffer, wantFiles int) (*os.ProcessState, error) {
	cmd := exec.Command(bin)
	cmd.Stdin = bytes.NewReader(raw)
	cmd.Stdout = out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", filepath.Base(bin), err, stderr.Bytes())
	}
	if wantFiles < 0 {
		return cmd.ProcessState, nil
	}
	var resp pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(out.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("%s: response: %v", filepath.Base(bin), err)
	}
	if resp.GetError() != "" {
		return nil, fmt.Errorf("%s: %s", filepath.Base(bin), resp.GetError())
	}
	if len(resp.GetFile()) < wantFiles {
		return nil, fmt.Errorf("%s: %d files, want at least %d", filepath.Base(bin), len(resp.GetFile()), wantFiles)
	}
	return cmd.ProcessState, nil
}
