package layering

import (
	"slices"
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

// runtimeCalls is the call graph of package runtime (Calls), with the
// functions and methods of the packages also.
func runtimeCalls(t *testing.T, also ...string) map[string][]string {
	t.Helper()
	pkgs, exports, err := List("../..", "./runtime")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		if p.ImportPath == module+"/runtime" {
			calls, err := Calls(p, exports, also...)
			if err != nil {
				t.Fatal(err)
			}
			return calls
		}
	}
	t.Fatal("package runtime not listed")
	return nil
}

// Every path that runs a tool of package runtime (write, read,
// validate_write, apply, Preparer.Prepare and Preparer.Decode) comes in
// through the same front door, call.begin, and then call.prepare: no path
// parses a tool's arguments or splits off their control arguments itself.
// registry.parseArgs is called by begin and by readArgs (a service tool's
// own arguments); boundTool.splitControl by begin only.
func TestOnlyBeginAssemblesTheFrontHalf(t *testing.T) {
	calls := runtimeCalls(t)
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

// Every path that holds something comes out through the same back half.
// A call holds at most one hold: the idempotency claim of a keyed write
// (claim) or the proposal apply_proposal took with BeginApply (applying).
// Only the hold's own methods call the store that settles it, and only
// call.record (the outcome written, with recordRetrying's retries),
// call.unrecorded (an outcome that could not be written) and call.release
// settle a hold; the write (call.run) and apply_proposal
// (serviceTools.applyHandler) both end in call.record.
func TestOnlyTheBackHalfSettlesAHold(t *testing.T) {
	calls := runtimeCalls(t, module+"/runtime/proposal", module+"/runtime/idempotency")
	callers := callersOf(calls)
	// byMethod gathers the callers of a method of package pkg whatever its
	// receiver (the store interface, a concrete store).
	byMethod := func(pkg, method string) string {
		var cs []string
		for callee, who := range callers {
			if strings.HasPrefix(callee, pkg+".") && strings.HasSuffix(callee, "."+method) {
				cs = append(cs, who...)
			}
		}
		sort.Strings(cs)
		return strings.Join(slices.Compact(cs), " ")
	}
	stores := []struct{ pkg, method, want, why string }{
		{"proposal", "FinishApply", "applying.attempt", "the proposal's result is saved by its hold"},
		{"proposal", "AbortApply", "applying.release", "the proposal is given back by its hold"},
		// consumeConfirmation marks a confirmation's nonce used: a record of
		// its own, not what the call holds.
		{"idempotency", "Complete", "call.consumeConfirmation claim.attempt", "a keyed call's outcome is stored by its claim"},
		{"idempotency", "Release", "claim.release", "a keyed call's claim is given up by the claim"},
	}
	for _, s := range stores {
		if got := byMethod(s.pkg, s.method); got != s.want {
			t.Errorf("%s.%s is called by %s, want only %s (%s): a path settles what the call holds itself; answer through call.record, or call.release", s.pkg, s.method, got, s.want, s.why)
		}
	}
	backHalf := map[string]string{
		"hold.attempt":    "call.record",
		"hold.release":    "call.release call.unrecorded",
		"hold.unsaved":    "call.unrecorded",
		"recordRetrying":  "call.record",
		"call.unrecorded": "call.record",
		// Through the hold only, but for a proposal another registration
		// made, which beginApply took before its tool was known: no call
		// holds it, so it is given back at once.
		"applying.release": "serviceTools.beginApply",
		"applying.attempt": "", "applying.unsaved": "",
		"claim.attempt": "", "claim.release": "", "claim.unsaved": "",
	}
	for callee, want := range backHalf {
		if got := strings.Join(callers[callee], " "); got != want {
			t.Errorf("%s is called by %q, want only %q: a path settles what the call holds itself; answer through call.record, or call.release", callee, got, want)
		}
	}
	for _, path := range []string{"call.run", "serviceTools.applyHandler"} {
		if !slices.Contains(calls[path], "call.record") {
			t.Errorf("%s calls %v, want call.record among them: every path that holds something ends in the back half", path, calls[path])
		}
	}
}
