package runtime_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// newRegionsHarness registers the notes service twice on one server, as
// eu_* and us_*, each with its own domain.
func newRegionsHarness(t *testing.T, extra ...runtime.Option) (eu, us *harness) {
	t.Helper()
	clock := &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	log, mu := &strings.Builder{}, &sync.Mutex{}
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil)
	eu = &harness{t: t, dom: newDomain(), clock: clock, log: log, logMu: mu}
	us = &harness{t: t, dom: newDomain(), clock: clock, log: log, logMu: mu}
	for _, reg := range []struct {
		h      *harness
		prefix string
	}{{eu, "eu_"}, {us, "us_"}} {
		opts := append([]runtime.Option{runtime.WithClock(clock.Now), runtime.WithRequestContextFunc(metaContext),
			runtime.WithLogger(slogTo(log, mu)), runtime.WithToolNames(reg.prefix, "")}, extra...)
		err := gosdk.Register(server, reg.h.dom.service(), opts...)
		if err != nil {
			t.Fatalf("Register %s: %v", reg.prefix, err)
		}
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0.0.1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	eu.cs, us.cs = cs, cs
	return eu, us
}

func TestServiceRegisteredTwiceUnderTwoPrefixesReachesItsOwnHandler(t *testing.T) {
	eu, us := newRegionsHarness(t)
	tools := listTools(t, eu)
	want := "eu_apply_proposal,eu_create_note,eu_delete_note,eu_discard_proposal,eu_get_write_schema,eu_list_priorities,eu_validate_write," +
		"us_apply_proposal,us_create_note,us_delete_note,us_discard_proposal,us_get_write_schema,us_list_priorities,us_validate_write"
	if got := tools["_names"]; got != want {
		t.Fatalf("tools\n%s\nwant\n%s", got, want)
	}
	res := eu.call(alice, "eu_create_note", `{"title":"Buy milk","description":"d"}`)
	if res.isError {
		t.Fatalf("eu_create_note: %s", res.text)
	}
	id := field(t, res.text, "note.id")
	if want := `{"success":true,"note":{"id":"` + id + `","title":"Buy milk","description":"d","model_id":"model-1"},"suggestions":["Call eu_delete_note to delete a note"],"warnings":[]}`; res.text != want {
		t.Fatalf("eu_create_note answered\n%s\nwant\n%s", res.text, want)
	}
	if eu.dom.count("create_note") != 1 || us.dom.count("create_note") != 0 {
		t.Fatalf("eu call reached eu %d times, us %d times; want 1 and 0", eu.dom.count("create_note"), us.dom.count("create_note"))
	}
	if res := us.call(alice, "us_create_note", `{"title":"Buy bread","description":"d"}`); res.isError {
		t.Fatalf("us_create_note: %s", res.text)
	}
	if eu.dom.count("create_note") != 1 || us.dom.count("create_note") != 1 {
		t.Fatalf("after the us call: eu %d, us %d; want 1 and 1", eu.dom.count("create_note"), us.dom.count("create_note"))
	}
}

func TestPrefixedServiceToolsNameThePrefixedTools(t *testing.T) {
	eu, _ := newRegionsHarness(t)
	tools := listTools(t, eu)
	for _, want := range []string{
		`"enum":["eu_create_note","eu_delete_note"]`,
	} {
		if !strings.Contains(tools["eu_validate_write"], want) {
			t.Errorf("eu_validate_write lacks %s:\n%s", want, tools["eu_validate_write"])
		}
	}
	if want := `"enum":["eu_create_note","eu_delete_note"]`; !strings.Contains(tools["eu_get_write_schema"], want) {
		t.Errorf("eu_get_write_schema lacks %s:\n%s", want, tools["eu_get_write_schema"])
	}
	res := eu.call(alice, "eu_validate_write", `{"operation":"create_note","payload":"{}"}`)
	want := `{"success":false,"error":{"code":"UNKNOWN_OPERATION","message":"unknown operation \"create_note\"","field":"operation","suggestions":{"did_you_mean":["eu_create_note"],"valid_values":["eu_create_note","eu_delete_note"]}},"errors":[{"code":"UNKNOWN_OPERATION","message":"unknown operation \"create_note\"","field":"operation","suggestions":{"did_you_mean":["eu_create_note"],"valid_values":["eu_create_note","eu_delete_note"]}}]}`
	if !res.isError || res.text != want {
		t.Fatalf("eu_validate_write of an unprefixed name answered (isError %v)\n%s\nwant\n%s", res.isError, res.text, want)
	}
	res = eu.call(alice, "eu_get_write_schema", `{"operation":"eu_delete_note"}`)
	if res.isError || field(t, res.text, "operation") != "eu_delete_note" {
		t.Fatalf("eu_get_write_schema answered %s", res.text)
	}
}

func TestRegisterRefusesTakenAndUnportableToolNames(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil)
	quiet := runtime.WithRequestContextFunc(metaContext)
	if err := gosdk.Register(server, newDomain().service(), quiet, runtime.WithToolNames("eu_", "")); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 50)
	for _, tc := range []struct {
		name string
		opt  runtime.Option
		want string
	}{
		{"same prefix again", runtime.WithToolNames("eu_", ""),
			`runtime: service notes.v1.NoteService: tool "eu_create_note" is already registered on this server by service notes.v1.NoteService; register the service again with runtime.WithToolNames(prefix, suffix) to give its tools other names`},
		{"dot in prefix", runtime.WithToolNames("eu.", ""),
			`runtime: service notes.v1.NoteService: WithToolNames: prefix "eu." has "." at byte 2; use only letters, digits, '_' and '-'`},
		{"space in suffix", runtime.WithToolNames("", " 2"),
			`runtime: service notes.v1.NoteService: WithToolNames: suffix " 2" has " " at byte 0; use only letters, digits, '_' and '-'`},
		{"too long", runtime.WithToolNames(long, ""),
			`runtime: service notes.v1.NoteService: tool name "` + long + `get_write_schema" has 66 characters, at most 64 are allowed (a shorter runtime.WithToolNames prefix or suffix, or the service's tool_prefix, fixes it)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := gosdk.Register(server, newDomain().service(), quiet, tc.opt)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Register: %v\nwant %s", err, tc.want)
			}
		})
	}
	// A suffix is a second name space of its own.
	if err := gosdk.Register(server, newDomain().service(), quiet, runtime.WithToolNames("", "_2")); err != nil {
		t.Fatalf("Register with a suffix: %v", err)
	}
}

func TestPrefixedProposalIsAppliedByItsOwnApplyTool(t *testing.T) {
	eu, us := newRegionsHarness(t)
	eu.seedNote("n1")
	us.seedNote("n1")
	prop := eu.call(alice, "eu_delete_note", `{"id":"n1"}`)
	id := field(t, prop.text, "proposal.proposal_id")
	if got := field(t, prop.text, "proposal.apply_with"); got != "eu_apply_proposal" {
		t.Fatalf("apply_with %q in %s", got, prop.text)
	}
	if got, want := field(t, prop.text, "proposal.tool"), "eu_delete_note"; got != want {
		t.Fatalf("proposal.tool %q, want %q", got, want)
	}
	if r := us.call(alice, "us_apply_proposal", `{"proposal_id":"`+id+`"}`); !r.isError || !strings.Contains(r.text, `"code":"PROPOSAL_NOT_FOUND"`) {
		t.Fatalf("the other registration applied it: %s", r.text)
	}
	applied := eu.call(alice, "eu_apply_proposal", `{"proposal_id":"`+id+`"}`)
	if want := `{"success":true,"id":"n1","deleted":true,"suggestions":[],"warnings":[]}`; applied.isError || applied.text != want {
		t.Fatalf("eu_apply_proposal:\n%s\nwant\n%s", applied.text, want)
	}
	if eu.dom.count("delete_note") != 1 || us.dom.count("delete_note") != 0 {
		t.Fatalf("deletes: eu %d, us %d; want 1 and 0", eu.dom.count("delete_note"), us.dom.count("delete_note"))
	}
}

// Two registrations sharing one proposal store (one database for both
// regions): each apply tool applies its own registration's proposals and
// names the other's maker for the rest, without consuming them.
func TestSharedProposalStoreLeavesAProposalToItsOwnRegistration(t *testing.T) {
	eu, us := newRegionsHarness(t, runtime.WithProposals(proposal.NewMemoryStore(), 0))
	eu.seedNote("n1")
	id := field(t, eu.call(alice, "eu_delete_note", `{"id":"n1"}`).text, "proposal.proposal_id")
	r := us.call(alice, "us_apply_proposal", `{"proposal_id":"`+id+`"}`)
	entry := `{"code":"PROPOSAL_NOT_FOUND","message":"proposal \"` + id + `\" was made by eu_delete_note, which us_apply_proposal does not serve","field":"proposal_id","details":{"proposal_id":"` + id + `","tool":"eu_delete_note"},"suggestions":{"hint":"Apply it with the apply tool registered beside eu_delete_note."}}`
	if want := `{"success":false,"error":` + entry + `,"errors":[` + entry + `]}`; !r.isError || r.text != want {
		t.Fatalf("us_apply_proposal of an eu proposal:\n%s\nwant\n%s", r.text, want)
	}
	applied := eu.call(alice, "eu_apply_proposal", `{"proposal_id":"`+id+`"}`)
	if want := `{"success":true,"id":"n1","deleted":true,"suggestions":[],"warnings":[]}`; applied.isError || applied.text != want {
		t.Fatalf("eu_apply_proposal after the refused one:\n%s\nwant\n%s", applied.text, want)
	}
	// Once applied, the other registration still does not replay it.
	if r := us.call(alice, "us_apply_proposal", `{"proposal_id":"`+id+`"}`); !r.isError || !strings.Contains(r.text, `which us_apply_proposal does not serve`) {
		t.Fatalf("us_apply_proposal of an applied eu proposal: %s", r.text)
	}
	if eu.dom.count("delete_note") != 1 || us.dom.count("delete_note") != 0 {
		t.Fatalf("deletes: eu %d, us %d; want 1 and 0", eu.dom.count("delete_note"), us.dom.count("delete_note"))
	}
}
