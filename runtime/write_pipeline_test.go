package runtime_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

func TestValidCallReturnsCanonicalEntityNextStepsAndWarnings(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	got := h.call(alice, "create_note", `{"title":"Buy milk","priority":2}`)
	want := compact(`{"success":true,
		"note":{"id":"note-01010101","title":"Buy milk","priority":2,"model_id":"model-1"},
		"suggestions":["Call delete_note to delete a note"],
		"warnings":[{"code":"MISSING_DESCRIPTION","message":"Note has no description","field":"description","suggestion":"Add a description for better discoverability"}]}`)
	if got.isError || got.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, want)
	}
}

func TestDescriptionGivenMeansNoWarning(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	got := h.call(alice, "create_note", `{"title":"Buy milk","description":"Semi-skimmed"}`)
	want := compact(`{"success":true,
		"note":{"id":"note-01010101","title":"Buy milk","description":"Semi-skimmed","model_id":"model-1"},
		"suggestions":["Call delete_note to delete a note"],"warnings":[]}`)
	if got.isError || got.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, want)
	}
}

func TestInvalidArgumentsReportEveryErrorAtOnce(t *testing.T) {
	msg, _ := json.Marshal(idempotency.ValidateKey("has space").Error())
	keyMsg := string(msg)
	tests := []struct {
		name, args, want string
	}{{
		name: "unknown field and wrong type",
		args: `{"title":5,"colour":"red"}`,
		want: `{"success":false,
			"error":{"code":"INVALID_TYPE","message":"expected string, got number","field":"title"},
			"errors":[{"code":"INVALID_TYPE","message":"expected string, got number","field":"title"},
			          {"code":"UNKNOWN_FIELD","message":"unknown field \"colour\"","field":"colour","suggestions":{"valid_values":["title","description","priority"]}}]}`,
	}, {
		name: "bad idempotency key and missing title",
		args: `{"client_request_id":"has space","dry_run":"yes"}`,
		want: `{"success":false,
			"error":{"code":"INVALID_IDEMPOTENCY_KEY","message":` + keyMsg + `,"field":"client_request_id","suggestions":{"hint":"Use 1-255 characters of A-Z, a-z, 0-9, '_' and '-', e.g. create_element-7f3a9c."}},
			"errors":[{"code":"INVALID_IDEMPOTENCY_KEY","message":` + keyMsg + `,"field":"client_request_id","suggestions":{"hint":"Use 1-255 characters of A-Z, a-z, 0-9, '_' and '-', e.g. create_element-7f3a9c."}},
			          {"code":"INVALID_TYPE","message":"dry_run must be a boolean","field":"dry_run","details":{"expected":"boolean","got":"string"}},
			          {"code":"MISSING_REQUIRED_FIELD","message":"missing required field \"title\"","field":"title"}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			got := h.call(alice, "create_note", tt.args)
			if !got.isError || got.text != compact(tt.want) {
				t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, compact(tt.want))
			}
			if n := h.dom.count("create_note"); n != 0 {
				t.Fatalf("handler called %d times for invalid input", n)
			}
		})
	}
}

func TestReplayReturnsStoredResult(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	args := `{"title":"Buy milk","client_request_id":"req-1"}`
	first := h.call(alice, "create_note", args)
	h.clock.Advance(90 * 1e9)
	second := h.call(alice, "create_note", args)
	if n := h.dom.count("create_note"); n != 1 {
		t.Fatalf("handler called %d times, want 1", n)
	}
	want := strings.TrimSuffix(first.text, "}") + `,"idempotent_replay":true,"original_request_time":"2025-01-02T03:04:05Z"}`
	if second.isError || second.text != want {
		t.Fatalf("replay:\n%s\nwant\n%s", second.text, want)
	}
	// Another tenant's identical key is another key.
	third := h.call(caller{"globex", "bob"}, "create_note", args)
	if strings.Contains(third.text, "idempotent_replay") || h.dom.count("create_note") != 2 {
		t.Fatalf("other tenant was served a replay: %s", third.text)
	}
}

func TestBusinessErrorsReplayButTransientOnesRunAgain(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.call(alice, "create_note", `{"title":"missing","client_request_id":"k1"}`)
	again := h.call(alice, "create_note", `{"title":"missing","client_request_id":"k1"}`)
	if !again.isError || !strings.Contains(again.text, `"idempotent_replay":true`) || h.dom.count("create_note") != 1 {
		t.Fatalf("NOT_FOUND was not replayed (calls %d): %s", h.dom.count("create_note"), again.text)
	}
	h.call(alice, "create_note", `{"title":"secret","client_request_id":"k2"}`)
	h.call(alice, "create_note", `{"title":"secret","client_request_id":"k2"}`)
	if n := h.dom.count("create_note"); n != 3 {
		t.Fatalf("internal error was stored: handler calls %d, want 3", n)
	}
}

func TestReusedKeyWithOtherPayloadIsRejected(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.call(alice, "create_note", `{"title":"Buy milk","client_request_id":"req-1"}`)
	got := h.call(alice, "create_note", `{"title":"Buy bread","client_request_id":"req-1"}`)
	want := compact(`{"success":false,
		"error":{"code":"IDEMPOTENCY_KEY_REUSED","message":"client_request_id \"req-1\" was already used for a different request","field":"client_request_id","details":{"client_request_id":"req-1"},"suggestions":{"hint":"Use a new client_request_id for a new request; resend the original arguments unchanged to get the original result."}},
		"errors":[{"code":"IDEMPOTENCY_KEY_REUSED","message":"client_request_id \"req-1\" was already used for a different request","field":"client_request_id","details":{"client_request_id":"req-1"},"suggestions":{"hint":"Use a new client_request_id for a new request; resend the original arguments unchanged to get the original result."}}]}`)
	if !got.isError || got.text != want {
		t.Fatalf("got\n%s\nwant\n%s", got.text, want)
	}
	if n := h.dom.count("create_note"); n != 1 {
		t.Fatalf("handler called %d times, want 1", n)
	}
}

func TestConcurrentCallsWithOneKeyExecuteOnce(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	var wg sync.WaitGroup
	results := make([]result, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = h.call(alice, "create_note", `{"title":"Buy milk","client_request_id":"same"}`)
		}()
	}
	wg.Wait()
	if n := h.dom.count("create_note"); n != 1 {
		t.Fatalf("handler called %d times, want 1", n)
	}
	for _, r := range results {
		if !strings.Contains(r.text, `"success":true`) && !strings.Contains(r.text, `"IDEMPOTENCY_IN_PROGRESS"`) {
			t.Fatalf("unexpected result: %s", r.text)
		}
	}
}

func TestDomainStatusMapsToEnvelopeCodes(t *testing.T) {
	tests := []struct {
		name, title, want string
	}{{
		name: "not found keeps the status message", title: "missing",
		want: `{"success":false,"error":{"code":"NOT_FOUND","message":"model model-1 not found"},"errors":[{"code":"NOT_FOUND","message":"model model-1 not found"}]}`,
	}, {
		name: "bad request gives one entry per violation", title: "bad",
		want: `{"success":false,"error":{"code":"VALIDATION_ERROR","message":"title must not be a reserved word","field":"title"},
			"errors":[{"code":"VALIDATION_ERROR","message":"title must not be a reserved word","field":"title"},
			          {"code":"VALIDATION_ERROR","message":"priority must be at most 3","field":"priority"}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			got := h.call(alice, "create_note", `{"title":"`+tt.title+`"}`)
			if !got.isError || got.text != compact(tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", got.text, compact(tt.want))
			}
		})
	}
}

var traceRE = regexp.MustCompile(`"trace_id":"([0-9a-f]{32})"`)

func TestInternalErrorHidesMessageAndCarriesTraceID(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	got := h.call(alice, "create_note", `{"title":"secret"}`)
	if !got.isError || strings.Contains(got.text, "hunter2") || strings.Contains(got.text, "pq:") {
		t.Fatalf("internal error leaked: %s", got.text)
	}
	m := traceRE.FindStringSubmatch(got.text)
	if m == nil {
		t.Fatalf("no trace_id: %s", got.text)
	}
	want := compact(`{"success":false,
		"error":{"code":"INTERNAL","message":"internal error","trace_id":"` + m[1] + `","suggestions":{"hint":"This is a server problem, not a problem with the arguments. Retry later; quote the trace_id when reporting it."}},
		"errors":[{"code":"INTERNAL","message":"internal error","trace_id":"` + m[1] + `","suggestions":{"hint":"This is a server problem, not a problem with the arguments. Retry later; quote the trace_id when reporting it."}}]}`)
	if got.text != want {
		t.Fatalf("got\n%s\nwant\n%s", got.text, want)
	}
	if logs := h.logs(); !strings.Contains(logs, "trace_id="+m[1]) || !strings.Contains(logs, "hunter2") {
		t.Fatalf("the server log lacks the trace_id and cause:\n%s", logs)
	}
}

func TestHandlerPanicBecomesInternalAndReleasesKey(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	args := `{"title":"panic","client_request_id":"p-1"}`
	for i := 1; i <= 2; i++ {
		got := h.call(alice, "create_note", args)
		if !got.isError || !strings.Contains(got.text, `"code":"INTERNAL"`) || !traceRE.MatchString(got.text) || strings.Contains(got.text, "hunter2") {
			t.Fatalf("call %d: %s", i, got.text)
		}
		// Released: the retry executes again instead of IDEMPOTENCY_IN_PROGRESS.
		if n := h.dom.count("create_note"); n != i {
			t.Fatalf("call %d: handler calls %d", i, n)
		}
	}
	if !strings.Contains(h.logs(), "handler exploded") {
		t.Fatalf("panic not logged:\n%s", h.logs())
	}
}

func TestAbortedIsRetriedWithFreshEnrichment(t *testing.T) {
	tests := []struct {
		name      string
		conflicts int
		wantCalls int
		want      string
	}{{
		name: "succeeds within the budget", conflicts: 2, wantCalls: 3,
		want: `{"success":true,"note":{"id":"note-03030303","title":"conflict","model_id":"model-1"},"suggestions":["Call delete_note to delete a note"],
			"warnings":[{"code":"MISSING_DESCRIPTION","message":"Note has no description","field":"description","suggestion":"Add a description for better discoverability"}]}`,
	}, {
		name: "gives up with CONFLICT and a hint", conflicts: 5, wantCalls: 3,
		want: `{"success":false,
			"error":{"code":"CONFLICT","message":"note version changed","suggestions":{"hint":"The target changed while writing; the server retried 2 time(s) with fresh values. Read its current state and retry."}},
			"errors":[{"code":"CONFLICT","message":"note version changed","suggestions":{"hint":"The target changed while writing; the server retried 2 time(s) with fresh values. Read its current state and retry."}}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.dom.conflicts = tt.conflicts
			got := h.call(alice, "create_note", `{"title":"conflict"}`)
			if got.text != compact(tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", got.text, compact(tt.want))
			}
			if n := h.dom.count("create_note"); n != tt.wantCalls {
				t.Fatalf("handler calls %d, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestResolverFailureDuringConflictRetryIsNotStored(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		want    func(text string) string
		wantLog []string
	}{{
		name: "internal failure is logged with its cause, never sent",
		err:  errors.New("dial tcp 10.0.0.5:5432: password=hunter2"),
		want: func(text string) string {
			return envelope(`{"code":"INTERNAL","message":"could not resolve model_id","field":"model_id","trace_id":"` + field(t, text, "error.trace_id") + `"}`)
		},
		wantLog: []string{"could not resolve model_id: dial tcp 10.0.0.5:5432: password=hunter2"},
	}, {
		name: "transient failure",
		err:  status.Error(codes.Unavailable, "model registry is restarting"),
		want: func(text string) string {
			return envelope(`{"code":"UNAVAILABLE","message":"service unavailable; retry later","trace_id":"` + field(t, text, "error.trace_id") + `","suggestions":{"hint":"This is a temporary problem, not a problem with the arguments. Retry in a few seconds with the same arguments; quote the trace_id if it persists."}}`)
		},
		wantLog: []string{"model registry is restarting"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.dom.mu.Lock()
			h.dom.conflicts = 1
			h.dom.resolveErr = func(n int) error {
				if n == 2 { // the re-enrichment after the first conflict
					return tt.err
				}
				return nil
			}
			h.dom.mu.Unlock()
			args := `{"title":"conflict","client_request_id":"c1"}`
			got := h.call(alice, "create_note", args)
			if want := tt.want(got.text); !got.isError || got.text != want {
				t.Fatalf("got\n%s\nwant\n%s", got.text, want)
			}
			if strings.Contains(got.text, "hunter2") {
				t.Fatalf("the cause reached the agent: %s", got.text)
			}
			if tt.wantLog != nil && !logLineHas(h.logs(), append([]string{"trace_id=" + field(t, got.text, "error.trace_id")}, tt.wantLog...)...) {
				t.Fatalf("cause not logged with the trace_id:\n%s", h.logs())
			}
			// The key was released, not recorded: the retry runs and succeeds.
			again := h.call(alice, "create_note", args)
			if again.isError || strings.Contains(again.text, "idempotent_replay") || !strings.HasPrefix(again.text, `{"success":true,"note":{`) {
				t.Fatalf("retry: %s", again.text)
			}
			if n := h.dom.count("create_note"); n != 2 {
				t.Fatalf("handler calls %d, want 2", n)
			}
		})
	}
}
