package runtime

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

func TestResolveReferenceAnswersTheIdOrACorrectableError(t *testing.T) {
	billing := Referent{ID: "el-1", Name: "Billing Service", Type: "ApplicationService"}
	billing2 := Referent{ID: "el-2", Name: "Billing Service", Type: "BusinessService"}
	orders := Referent{ID: "el-3", Name: "Order Service", Type: "ApplicationService"}
	tests := []struct {
		name, text string
		ref        Reference
		err        error
		id, want   string
	}{{
		name: "one match is its id",
		text: "Billing Service",
		ref:  Reference{Matches: []Referent{billing}},
		id:   "el-1",
	}, {
		name: "several matches need disambiguation",
		text: "Billing Service",
		ref:  Reference{Matches: []Referent{billing, billing2}},
		want: `{"code":"NEEDS_DISAMBIGUATION","message":"\"Billing…\" names 2 elements; send the id of the one you mean","field":"source_id",` +
			`"suggestions":{"valid_values":["el-1","el-2"],"hint":"ask the user which element they mean if the candidates do not tell",` +
			`"candidates":[{"id":"el-1","name":"Billing Service","type":"ApplicationService"},{"id":"el-2","name":"Billing Service","type":"BusinessService"}]}}`,
	}, {
		name: "no match offers the closest names, best first",
		text: "Biling Servce",
		ref:  Reference{Known: []Referent{orders, billing, billing2}},
		want: `{"code":"NOT_FOUND","message":"no element has the id or name \"Biling…\"","field":"source_id",` +
			`"suggestions":{"did_you_mean":["Billing Service","Order Service"],"hint":"send the id or the exact name of one of the candidates",` +
			`"candidates":[{"id":"el-1","name":"Billing Service","type":"ApplicationService"},{"id":"el-2","name":"Billing Service","type":"BusinessService"},` +
			`{"id":"el-3","name":"Order Service","type":"ApplicationService"}]}}`,
	}, {
		name: "no match and nothing alike",
		text: "zzqx",
		ref:  Reference{Known: []Referent{orders}},
		want: `{"code":"NOT_FOUND","message":"no element has the id or name \"zz…\"","field":"source_id"}`,
	}, {
		name: "a domain error from the resolver keeps its code",
		text: "x",
		err:  &ErrorEntry{Code: impl.CodePermissionDenied, Message: "no model"},
		want: `{"code":"PERMISSION_DENIED","message":"no model","field":"source_id"}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &impl.Call{}
			id, err := c.ResolveReference("source_id", "element", tt.text, tt.ref, tt.err)
			if id != tt.id {
				t.Errorf("id %q, want %q", id, tt.id)
			}
			got := ""
			if err != nil {
				var e *impl.ErrorEntry
				if !errors.As(err, &e) {
					t.Fatalf("error %T %v is not an entry", err, err)
				}
				b, merr := json.Marshal(entryJSON(e))
				if merr != nil {
					t.Fatal(merr)
				}
				got = string(b)
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// A reference in a nested message names its whole path.
func TestResolveReferenceNamesTheNestedPath(t *testing.T) {
	c := &impl.Call{}
	c.Enter("labels")
	c.EnterIndex(1)
	_, err := c.ResolveReference("owner", "person", "Nobody", Reference{}, nil)
	c.Leave()
	c.Leave()
	var e *impl.ErrorEntry
	if !errors.As(err, &e) || e.Field != "labels[1].owner" || e.Message != `no person has the id or name "Nob…"` {
		t.Fatalf("got %v", err)
	}
	if _, err := c.ResolveReference("owner", "person", "Nobody", Reference{}, nil); !errors.As(err, &e) || e.Field != "owner" {
		t.Fatalf("after Leave: %v", err)
	}
}

// A resolver's answer crosses into the decoder as a runtime.Reference; one
// of any other type is a server bug, answered INTERNAL at the field.
func TestResolveReferenceTakesTheUsersReference(t *testing.T) {
	c := &impl.Call{}
	id, err := c.ResolveReference("owner", "person", "Ada", Reference{Matches: []Referent{{ID: "p1", Name: "Ada"}}}, nil)
	if id != "p1" || err != nil {
		t.Fatalf("got %q, %v; want p1", id, err)
	}
	_, err = c.ResolveReference("owner", "person", "Ada", "p1", nil)
	var e *impl.ErrorEntry
	if !errors.As(err, &e) || e.Code != impl.CodeInternal || e.Field != "owner" || e.Message != "could not resolve owner" {
		t.Fatalf("got %v", err)
	}
}
