package bench

import (
	"bytes"
	"context"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// spin burns CPU for d in this package (the driver's code).
//
//go:noinline
func spin(d time.Duration) int {
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := range 1000 {
			n += i * i
		}
	}
	return n
}

// spun keeps spin's result.
var spun int

func TestProfileReaderChargesLabelledCPU(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skipf("a CPU profile is already running: %v", err)
	}
	pprof.Do(context.Background(), pprof.Labels("test.phase", "spin"), func(context.Context) { spun = spin(300 * time.Millisecond) })
	pprof.StopCPUProfile()
	p, err := parseProfile(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := p.byLabelAndCode("cpu", "test.phase")
	if got["spin"][codeDriver] <= 0 {
		t.Fatalf("no CPU of the spin label charged to this package: %v (%s)", got, p)
	}
	if got["spin"][codeDriver] < 100*int64(time.Millisecond) {
		t.Errorf("spin label has %v of this package's CPU, want about 300ms", time.Duration(got["spin"][codeDriver]))
	}
}

func TestCodeOfChargesTheNearestKnownFrame(t *testing.T) {
	for _, c := range []struct {
		stack []string
		want  string
	}{
		{[]string{"runtime.mallocgc", "github.com/jackc/pgx/v5/pgconn.(*PgConn).ExecBatch", "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain.write"}, codePgx},
		{[]string{"google.golang.org/protobuf/reflect/protoreflect.Value.Interface", "github.com/mcpwrite/protoc-gen-mcpwrite/runtime.MarshalRecordJSON", "github.com/jackc/pgx/v5.(*Conn).Query"}, codeOurs},
		{[]string{"encoding/json.Marshal", "github.com/modelcontextprotocol/go-sdk/mcp.(*Server).callTool"}, codeSDK},
		{[]string{"syscall.Syscall", "net.(*conn).Write", "net/http.(*conn).serve"}, codeHTTP},
		{[]string{"github.com/mcpwrite/protoc-gen-mcpwrite/bench.(*mcpDriver).callTool"}, codeDriver},
		{[]string{"runtime.gcBgMarkWorker"}, codeOther},
	} {
		if got := codeOf(c.stack); got != c.want {
			t.Errorf("codeOf(%v) = %s, want %s", c.stack, got, c.want)
		}
	}
}

func TestProfileReaderReadsAllocations(t *testing.T) {
	var sink [][]byte
	for range 20 { // far above the sampling rate: each is sampled
		sink = append(sink, make([]byte, 4<<20))
	}
	_ = sink
	runtime.GC() // the profile is as of the last collection
	var buf bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	p, err := parseProfile(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.byLabelAndCode("alloc_space", "")[""][codeDriver]; got < 18*4<<20 { // one or two unsampled at most (p = e^-8 each)
		t.Errorf("allocations charged to this package: %d bytes, want at least %d (%s)", got, 18*4<<20, p)
	}
}
