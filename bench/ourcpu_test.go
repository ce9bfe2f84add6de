package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"

	mcpruntime "github.com/mcpwrite/protoc-gen-mcpwrite/runtime"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
)

// writePhases are the phases runtime.WithProfileLabels names, in call
// order.
var writePhases = []string{"front", "prepare", "claim", "handler", "answer"}

// phaseLabel is the pprof label runtime.WithProfileLabels sets.
const phaseLabel = "mcpwrite.phase"

// BenchmarkOurCPU is BenchmarkDurableWrite's keyed write (ours, on each
// SDK) served with runtime.WithProfileLabels, under a CPU profile of this
// process: it reports, per write, the CPU of this module's own frames in
// each phase of the call (<phase>-us/write: the runtime, the generated
// code and the example domain, with the standard library, the Go runtime
// and protobuf they call; the handler phase includes the domain's
// database code), the CPU the phase spent in pgx, the SDK and net/http
// (<phase>-ext-us/write), this module's CPU outside the labelled phases
// (the HTTP front, authentication, the SDK adapter: ours-unlabelled), all
// of this module's (ours-us/write), and each other code's CPU in the
// whole process (pgx, sdk, http, the load driver, other: GC workers and
// the scheduler). A sample is charged to the frame nearest its leaf that
// belongs to one of them (bench/profile_test.go). The bytes each code
// allocated per write (<code>-B/write) come from the allocation profile,
// sampled (runtime.MemProfileRate), before and after. CPU profiling
// itself costs a little CPU; the figures are for comparing phases and
// changes, BenchmarkDurableWrite's are the throughput. With
// MCPWRITE_BENCH_PROFILES=dir each sub-benchmark's CPU profile is written
// there (ourcpu-<sdk>-<clients>.pprof), labelled: go tool pprof
// -tagfocus mcpwrite.phase=answer dir/ourcpu-go-sdk-8.pprof. The
// sub-benchmark sdk=mcp-floor-mcpgo is BenchmarkDurableWrite's trivial
// mcp-go tool around the physical floor's transaction, measured the same
// way (it has no phases: its ours-us/write is the HTTP front and the
// bearer authentication it shares with ours), so each code's CPU and bytes
// per write can be set beside ours on the same SDK. At 100
// samples a second a figure needs a few seconds of writes (-benchtime
// 10s) to be read to a few microseconds.
func BenchmarkOurCPU(b *testing.B) {
	e := newDurableEnv(b)
	repo, opts := e.stack(b, e.pool)
	goSrv, err := server.New(repo, append(opts, mcpruntime.WithRequestContextFunc(mcphttp.RequestContextFromCall), mcpruntime.WithProfileLabels())...)
	if err != nil {
		b.Fatal(err)
	}
	repoGo, optsGo := e.stack(b, e.pool)
	mgoSrv, err := server.NewMCPGo(repoGo, append(optsGo, mcpruntime.WithRequestContextFunc(mcpgo.RequestContextFromCall), mcpruntime.WithProfileLabels())...)
	if err != nil {
		b.Fatal(err)
	}
	e.createFloor(b)
	urls := map[string]string{
		"go-sdk": serveStateless(b, goSrv), "mcp-go": serveStatelessMCPGo(b, mgoSrv),
		"mcp-floor-mcpgo": serveStatelessMCPGo(b, e.mcpFloorServerMCPGo()),
	}
	calls := map[string]func(context.Context, *mcpDriver, string) error{
		"go-sdk": oursWrite, "mcp-go": oursWrite, "mcp-floor-mcpgo": mcpFloorWrite,
	}
	for _, sdk := range []string{"go-sdk", "mcp-go", "mcp-floor-mcpgo"} {
		for _, clients := range []int{1, 8, 32} {
			b.Run("sdk="+sdk+"/clients="+strconv.Itoa(clients), func(b *testing.B) {
				ctx := context.Background()
				tenants := newTenantPicker(durableTenants, clients)
				sessions := drivers(b, urls[sdk], clients)
				call := calls[sdk]
				write := func(c int) error { return call(ctx, sessions[c], tenants.pick(c)) }
				if _, err := drive(clients, perClientRound, write); err != nil { // connections, plans, tenants' first rows
					b.Fatal(err)
				}
				alloc0 := allocsByCode(b)
				var cpu bytes.Buffer
				if err := pprof.StartCPUProfile(&cpu); err != nil {
					b.Skipf("a CPU profile is already running (-cpuprofile): %v", err)
				}
				writes := 0
				for b.Loop() {
					if _, err := drive(clients, perClientRound, write); err != nil {
						pprof.StopCPUProfile()
						b.Fatal(err)
					}
					writes += clients * perClientRound
				}
				pprof.StopCPUProfile()
				alloc1 := allocsByCode(b)
				if dir := os.Getenv("MCPWRITE_BENCH_PROFILES"); dir != "" {
					name := filepath.Join(dir, "ourcpu-"+sdk+"-"+strconv.Itoa(clients)+".pprof")
					if err := os.WriteFile(name, cpu.Bytes(), 0o644); err != nil {
						b.Fatal(err)
					}
				}
				p, err := parseProfile(cpu.Bytes())
				if err != nil {
					b.Fatal(err)
				}
				reportOurCPU(b, p.byLabelAndCode("cpu", phaseLabel), float64(writes))
				for _, code := range []string{codeOurs, codeSDK, codePgx, codeHTTP, codeDriver, codeOther} {
					b.ReportMetric(float64(alloc1[code]-alloc0[code])/float64(writes), code+"-B/write")
				}
			})
		}
	}
}

// reportOurCPU reports the CPU of a profile split by phase and code
// (byLabelAndCode, in nanoseconds) per write.
func reportOurCPU(b *testing.B, cpu map[string]map[string]int64, writes float64) {
	us := func(ns int64) float64 { return float64(ns) / 1e3 / writes }
	var ours int64
	byCode := map[string]int64{}
	for label, codes := range cpu {
		for code, ns := range codes {
			byCode[code] += ns
		}
		if label != "" {
			ours += codes[codeOurs]
		}
	}
	for _, ph := range writePhases {
		codes := cpu[ph]
		var ext int64
		for code, ns := range codes {
			if code != codeOurs {
				ext += ns
			}
		}
		b.ReportMetric(us(codes[codeOurs]), ph+"-us/write")
		b.ReportMetric(us(ext), ph+"-ext-us/write")
	}
	b.ReportMetric(us(ours), "ours-labelled-us/write")
	b.ReportMetric(us(cpu[""][codeOurs]), "ours-unlabelled-us/write")
	var all int64
	for _, code := range []string{codeOurs, codeSDK, codePgx, codeHTTP, codeDriver, codeOther} {
		b.ReportMetric(us(byCode[code]), code+"-us/write")
		all += byCode[code]
	}
	b.ReportMetric(us(all), "process-us/write")
}

// allocsByCode is the bytes allocated so far (the allocation profile as
// of a collection made now), by the code they are charged to.
func allocsByCode(b *testing.B) map[string]int64 {
	runtime.GC()
	var buf bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&buf, 0); err != nil {
		b.Fatal(err)
	}
	p, err := parseProfile(buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	return p.byLabelAndCode("alloc_space", "")[""]
}
