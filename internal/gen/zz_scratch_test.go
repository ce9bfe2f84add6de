package gen_test

import (
	"math/rand/v2"
	"testing"
	"fmt"
	"strings"
	"runtime/debug"
	"regexp"
	"google.golang.org/protobuf/types/pluginpb"
)

var panicSite = regexp.MustCompile(`internal/gen\.[^\n]*\n\t[^\n]*internal/gen/([a-z_]+\.go:\d+)`)

func TestScratchStats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	refused, errs, ok, bad := 0, 0, 0, 0
	errCount := map[string]int{}
	panics := map[string][]byte{}
	for i := 0; i < 20000; i++ {
		n := r.IntN(300)
		data := make([]byte, n)
		for j := range data { data[j] = byte(r.IntN(256)) }
		req, err := fzBuild(data, "")
		if err != nil { t.Fatal(err) }
		var resp *pluginpb.CodeGeneratorResponse; panicked := false
		var k bool
		func() {
			defer func() { if e := recover(); e != nil {
				st := string(debug.Stack())
				m := panicSite.FindStringSubmatch(st[strings.Index(st, "panic("):])
				key := fmt.Sprint(e)
				if m != nil { key += " @ " + m[1] }
				if old, seen := panics[key]; !seen || len(data) < len(old) { panics[key] = data }
				k = false; resp = nil; panicked = true
			}}()
			resp, k = fzRun(req)
		}()
		if panicked { continue }
		if !k { refused++; continue }
		rp := resp
		if p := fzCheck(req, rp); len(p) > 0 { bad++; if bad < 5 { t.Logf("BAD %x: %v", data, p) } }
		if rp.Error != nil { errs++; for _, l := range strings.Split(rp.GetError(), "\n") { 
			i := strings.LastIndex(l, ": "); key := l; if i > 0 { key = l[i+2:] }
			if len(key) > 60 { key = key[:60] }
			errCount[key]++ } ; continue }
		if len(rp.File) > 0 { ok++ }
	}
	t.Logf("refused %d errors %d ok %d bad %d", refused, errs, ok, bad)
	for k, v := range panics { t.Logf("PANIC %s: len %d %x", k, len(v), v) }
	for k, v := range errCount { if v > 50 { fmt.Println(v, k) } }
}

