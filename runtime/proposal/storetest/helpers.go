package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// base is a realistic creation time on a microsecond boundary in UTC, the
// form stores return.
var base = time.Now().UTC().Truncate(time.Second)

// sample returns a fully populated pending proposal with a fresh id.
func sample() *proposal.Proposal {
	return &proposal.Proposal{
		ID:             proposal.NewID(),
		Tenant:         tenant,
		Principal:      principal,
		Tool:           "delete_element",
		Classification: "DESTRUCTIVE_DELETE",
		Summary:        "Delete element \"Billing API\" (ApplicationComponent) — naïve ✓",
		Request:        []byte{0x0a, 0x03, 'a', 0x00, 'b', 0xff, 0x10, 0x01},
		Arguments:      json.RawMessage(`{"z": 1, "a": [true, null, "x\u00e9"],  "m": {"k": 1.50}}`),
		Preview:        json.RawMessage(`{"element_id":"el_1","changes":[{"field":"name","from":"Billing API","to":null}]}`),
		CreatedAt:      base.Add(123456 * time.Microsecond),
		ExpiresAt:      base.Add(ttl + 654321*time.Microsecond),
		State:          proposal.StatePending,
		Target:         "element el_1",
		StateDigest:    "sha256:3f0c",
		StateSummary:   "Billing API (ApplicationComponent), 2 relationships",
	}
}

func mustCreate(t *testing.T, s proposal.Store, p *proposal.Proposal) *proposal.Proposal {
	t.Helper()
	if err := s.Create(context.Background(), p); err != nil {
		t.Fatalf("Create(%s) = %v, want nil", p.ID, err)
	}
	return p
}

// clone deep-copies p without the normalisation stores apply, so expected
// values never share memory with what a store was given.
func clone(p *proposal.Proposal) *proposal.Proposal {
	c := *p
	c.Request = append([]byte(nil), p.Request...)
	c.Arguments = append(json.RawMessage(nil), p.Arguments...)
	c.Preview = append(json.RawMessage(nil), p.Preview...)
	c.Result = append([]byte(nil), p.Result...)
	return &c
}

// assertProposal fails unless got equals want exactly, naming each field
// that differs.
func assertProposal(t *testing.T, what string, got, want *proposal.Proposal) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got nil proposal, want %+v", what, want)
	}
	if reflect.DeepEqual(got, want) {
		return
	}
	gv, wv := reflect.ValueOf(*got), reflect.ValueOf(*want)
	var diffs []string
	for i := range gv.NumField() {
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if !reflect.DeepEqual(g, w) {
			diffs = append(diffs, fmt.Sprintf("%s: got %#v, want %#v", gv.Type().Field(i).Name, g, w))
		}
	}
	t.Fatalf("%s: proposal differs:\n%s", what, strings.Join(diffs, "\n"))
}

const (
	tenant    = "tenant-a"
	principal = "user-1"
	ttl       = 15 * time.Minute
)
