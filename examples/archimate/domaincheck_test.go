package archimate_test

import (
	"testing"
)

// validate_write and dry_run answer what the write would answer: a name
// the model already has is DUPLICATE_NAME from all three, and nothing is
// written by the first two.
func TestValidateAnswersWhatTheWriteWould(t *testing.T) {
	repo, cs := staleSession(t)
	if out, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"d"}`); isErr {
		t.Fatalf("create: %v", out)
	}
	codeOf := func(errs any) string {
		es, _ := errs.([]any)
		if len(es) == 0 {
			return ""
		}
		return es[0].(map[string]any)["code"].(string)
	}
	v, isErr := call(t, cs, "validateWrite", `{"operation":"createElement","payload":{"type":"Node","name":"OrderService"}}`)
	if isErr || v["valid"] != false || codeOf(v["errors"]) != "DUPLICATE_NAME" {
		t.Fatalf("validateWrite: %v", v)
	}
	d, isErr := call(t, cs, "createElement", `{"type":"Node","name":"OrderService","dry_run":true}`)
	if isErr || d["valid"] != false || codeOf(d["errors"]) != "DUPLICATE_NAME" {
		t.Fatalf("dry_run: %v", d)
	}
	w, isErr := call(t, cs, "createElement", `{"type":"Node","name":"OrderService"}`)
	if !isErr || w["error"].(map[string]any)["code"] != "DUPLICATE_NAME" {
		t.Fatalf("write: %v", w)
	}
	if n := len(repo.Received()); n != 1 { // only the first create was accepted
		t.Fatalf("domain accepted %d requests, want 1 (validate and dry run write nothing)", n)
	}
	ok, isErr := call(t, cs, "validateWrite", `{"operation":"createElement","payload":{"type":"Node","name":"Billing"}}`)
	if isErr || ok["valid"] != true {
		t.Fatalf("a valid payload: %v", ok)
	}
}
