package runtime_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// A Preparer reuses each call's parse and decode storage: what one call
// decoded stays as it was after later calls, and one call's problems never
// show up in the next.
func TestPreparerCallsAreIndependent(t *testing.T) {
	p, err := runtime.NewPreparer(newDomain().service())
	if err != nil {
		t.Fatal(err)
	}
	first, es := p.Decode("create_note", []byte(`{"title":"First","description":"d1"}`))
	if len(es) != 0 {
		t.Fatalf("first: %v", es)
	}
	_, es = p.Decode("create_note", []byte(`{"titel":"x","priority":"high"}`))
	var got []string
	for _, e := range es {
		got = append(got, e.Code+" "+e.Field+": "+e.Message)
	}
	want := []string{
		`UNKNOWN_FIELD titel: unknown field "titel"; did you mean "title"?`,
		`INVALID_TYPE priority: expected integer, got string`,
		`MISSING_REQUIRED_FIELD title: missing required field "title"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("bad call errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	second, es := p.Decode("create_note", []byte(`{"title":"Second \u00e9","description":"d2"}`))
	if len(es) != 0 {
		t.Fatalf("second call inherited errors: %v", es)
	}
	if a, b := getStr(first, "title")+"/"+getStr(first, "description"), getStr(second, "title")+"/"+getStr(second, "description"); a != "First/d1" || b != "Second é/d2" {
		t.Fatalf("requests changed: %q, %q", a, b)
	}
}

// Concurrent calls on one Preparer each get their own request.
func TestPreparerConcurrentCallsKeepTheirOwnRequests(t *testing.T) {
	p, err := runtime.NewPreparer(newDomain().service())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				title := fmt.Sprintf("note %d-%d", g, i)
				args := fmt.Sprintf(`{"title":%q,"description":"%s"}`, title, strings.Repeat("x", i%40))
				if i%3 == 0 {
					args = `{"title":1}` // a failing call in between
				}
				m, es := p.Decode("create_note", []byte(args))
				if i%3 == 0 {
					if len(es) != 1 || es[0].Message != "expected string, got number" {
						errs <- fmt.Sprintf("failing call: %v", es)
						return
					}
					continue
				}
				if len(es) != 0 || getStr(m, "title") != title || getStr(m, "description") != strings.Repeat("x", i%40) {
					errs <- fmt.Sprintf("call %q: %v, title %q", args, es, getStr(m, "title"))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
