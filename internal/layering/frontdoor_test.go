package layering

import (
	"sort"
	"strings"
	"testing"
)

// callersOf inverts a call graph: who calls each function.
func callersOf(calls map[string][]string) map[string][]string {
	out := map[string][]string{}
	for caller, callees := range calls {
		for _, c := range callees {
			out[c] = append(out[c], caller)
		}
	}
	for _, cs := range out {
		sort.Strings(cs)
	}
	return out
}

// Every path that runs a tool of package runtime (write, read,
// validate_write, apply, Preparer.Prepare and Preparer.Decode) comes in
// through the same front door, call.begin, and then call.prepare: no path
// parses a tool's arguments or splits off their control arguments itself.
// registry.parseArgs is called by begin and by readArgs (a service tool's
// own arguments); boundTool.splitControl by begin only.
func TestOnlyBeginAssemblesTheFrontHalf(t *testing.T) {
	pkgs, exports, err := List("../..", "./runtime")
	if err != nil {
		t.Fatal(err)
	}
	var calls map[string][]string
	for _, p := range pkgs {
		if p.ImportPath == module+"/runtime" {
			if calls, err = Calls(p, exports); err != nil {
				t.Fatal(err)
			}
		}
	}
	if calls == nil {
		t.Fatal("package runtime not listed")
	}
	callers := callersOf(calls)
	allowed := map[string]string{
		"registry.parseArgs":     "call.begin registry.readArgs",
		"boundTool.splitControl": "call.begin",
		"splitControl":           "boundTool.splitControl",
		"registry.caller":        "call.begin serviceTools.beginApply",
	}
	for callee, want := range allowed {
		if got := strings.Join(callers[callee], " "); got != want {
			t.Errorf("%s is called by %s, want only %s: a path assembles the front half itself; call call.begin", callee, got, want)
		}
	}
	// Each entry path calls begin and prepare (apply through staleness, which
	// re-makes the proposal's tool call; a read tool and a resource read
	// through readCall, which is all readHandler does).
	if got := strings.Join(calls["registry.readHandler"], " "); got != "registry.readCall" {
		t.Errorf("registry.readHandler calls %s, want only registry.readCall", got)
	}
	for _, path := range []string{"call.run", "registry.readCall", "serviceTools.validateHandler", "call.staleness", "Preparer.prepare", "Preparer.decode"} {
		has := map[string]bool{}
		for _, c := range calls[path] {
			has[c] = true
		}
		if !has["call.begin"] || !has["call.prepare"] {
			t.Errorf("%s calls %v, want call.begin and call.prepare among them", path, calls[path])
		}
	}
}
