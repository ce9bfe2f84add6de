package main

import "testing"

const timedRun = `{"Time":"2026-11-28T10:00:00Z","Action":"start","Package":"p/a"}
{"Time":"2026-11-28T10:00:01Z","Action":"run","Package":"p/a","Test":"TestQuick"}
{"Time":"2026-11-28T10:00:01Z","Action":"pass","Package":"p/a","Test":"TestQuick","Elapsed":0.2}
{"Time":"2026-11-28T10:00:02Z","Action":"run","Package":"p/a","Test":"TestSlow"}
{"Time":"2026-11-28T10:00:40Z","Action":"pass","Package":"p/a","Test":"TestSlow/case","Elapsed":37.5}
{"Time":"2026-11-28T10:00:40Z","Action":"pass","Package":"p/a","Test":"TestSlow","Elapsed":38}
{"Time":"2026-11-28T10:00:41Z","Action":"pass","Package":"p/a","Elapsed":41.3}
{"Time":"2026-11-28T10:00:00Z","Action":"start","Package":"p/b"}
{"Time":"2026-11-28T10:01:30Z","Action":"fail","Package":"p/b","Test":"TestBroken","Elapsed":90}
{"Time":"2026-11-28T10:02:05Z","Action":"fail","Package":"p/b","Elapsed":125}
`

// -slowest lists the run's wall clock (first to last event), then the
// slowest packages and top-level tests (failed ones too, subtests not),
// slowest first, at most n of each.
func TestSlowestPackagesAndTests(t *testing.T) {
	got, code := verdictOf(t, timedRun, rules{slowest: 2})
	want := "ok   p/a                                                            41.3s  3 passed\n" +
		"FAIL p/b                                                           125.0s  1 failed\n" +
		"\nslowest packages of 2m5s wall clock (first to last event):\n" +
		"    125.0s  p/b\n" +
		"     41.3s  p/a\n" +
		"slowest tests:\n" +
		"     90.0s  p/b.TestBroken\n" +
		"     38.0s  p/a.TestSlow\n" +
		"\n--- FAIL: p/b.TestBroken\n" +
		"tests: 3 passed, 1 failed, 0 skipped in 2 packages\n"
	if got != want {
		t.Fatalf("output:\n%q\nwant:\n%q", got, want)
	}
	if code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	// Without -slowest nothing is listed.
	got, _ = verdictOf(t, timedRun, rules{})
	want = "ok   p/a                                                            41.3s  3 passed\n" +
		"FAIL p/b                                                           125.0s  1 failed\n" +
		"\n--- FAIL: p/b.TestBroken\n" +
		"tests: 3 passed, 1 failed, 0 skipped in 2 packages\n"
	if got != want {
		t.Fatalf("without -slowest:\n%q\nwant:\n%q", got, want)
	}
}
