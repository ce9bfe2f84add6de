package runtime_test

import (
	"strings"
	"testing"
)

const validCreatePreview = `{"success":true,"valid":true,"errors":[],
	"warnings":[{"code":"MISSING_DESCRIPTION","message":"Note has no description","field":"description","suggestion":"Add a description for better discoverability"}],
	"suggestions":["Call create_note with this payload to commit the write"],
	"preview":{"request":{"id":"note-01010101","title":"Buy milk","model_id":"model-1",
	                      "meta":{"tenant_id":"acme","correlation_id":"corr-1","created_at":"2025-01-02T03:04:05Z"}},
	           "server_filled":["id","model_id","meta.tenant_id","meta.correlation_id","meta.created_at"]}}`

func TestValidateWriteReportsWithoutWriting(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
	}{{
		name: "valid payload previews the enriched request",
		tool: "validate_write", args: `{"operation":"create_note","payload":{"title":"Buy milk"}}`,
		want: validCreatePreview,
	}, {
		name: "dry_run on the write tool answers the same",
		tool: "create_note", args: `{"title":"Buy milk","dry_run":true}`,
		want: validCreatePreview,
	}, {
		name: "invalid payload lists every error",
		tool: "validate_write", args: `{"operation":"create_note","payload":{"titel":"Buy milk","priority":1.5}}`,
		want: `{"success":true,"valid":false,"errors":[
			{"code":"UNKNOWN_FIELD","message":"unknown field \"titel\"; did you mean \"title\"?","field":"titel","suggestions":{"did_you_mean":["title"],"valid_values":["title","description","priority"]}},
			{"code":"INVALID_TYPE","message":"expected integer, got 1.5","field":"priority"},
			{"code":"MISSING_REQUIRED_FIELD","message":"missing required field \"title\"","field":"title"}],
			"warnings":[{"code":"MISSING_DESCRIPTION","message":"Note has no description","field":"description","suggestion":"Add a description for better discoverability"}],
			"suggestions":[]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			got := h.call(alice, tt.tool, tt.args)
			if got.isError || got.text != compact(tt.want) {
				t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, compact(tt.want))
			}
			if n := h.dom.count("create_note"); n != 0 {
				t.Fatalf("handler called %d times by a dry run", n)
			}
		})
	}
}

func TestServiceToolArgumentErrors(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
	}{{
		name: "unknown operation suggests the closest tool",
		tool: "validate_write", args: `{"operation":"create_notes","payload":{}}`,
		want: `{"success":false,
			"error":{"code":"UNKNOWN_OPERATION","message":"unknown operation \"create_notes\"","field":"operation","suggestions":{"did_you_mean":["create_note"],"valid_values":["create_note","delete_note"]}},
			"errors":[{"code":"UNKNOWN_OPERATION","message":"unknown operation \"create_notes\"","field":"operation","suggestions":{"did_you_mean":["create_note"],"valid_values":["create_note","delete_note"]}}]}`,
	}, {
		name: "payload of the wrong type and operation missing",
		tool: "validate_write", args: `{"payload":7}`,
		want: `{"success":false,
			"error":{"code":"INVALID_TYPE","message":"payload must be an object","field":"payload","details":{"expected":"object","got":"number"}},
			"errors":[{"code":"INVALID_TYPE","message":"payload must be an object","field":"payload","details":{"expected":"object","got":"number"}},
			          {"code":"MISSING_REQUIRED_FIELD","message":"operation is required","field":"operation"}]}`,
	}, {
		name: "payload text that is not JSON",
		tool: "validate_write", args: `{"operation":"create_note","payload":"title=x"}`,
		want: `{"success":false,
			"error":{"code":"INVALID_JSON","message":"payload must be JSON text of an object (invalid JSON at byte 0: unexpected word \"ti…\"; strings must be in double quotes)","field":"payload"},
			"errors":[{"code":"INVALID_JSON","message":"payload must be JSON text of an object (invalid JSON at byte 0: unexpected word \"ti…\"; strings must be in double quotes)","field":"payload"}]}`,
	}, {
		name: "payload text of an array",
		tool: "validate_write", args: `{"operation":"create_note","payload":"[1]"}`,
		want: `{"success":false,
			"error":{"code":"INVALID_TYPE","message":"payload must be JSON text of an object, got an array","field":"payload","details":{"expected":"object","got":"array"}},
			"errors":[{"code":"INVALID_TYPE","message":"payload must be JSON text of an object, got an array","field":"payload","details":{"expected":"object","got":"array"}}]}`,
	}, {
		name: "unknown discovery group",
		tool: "list_priorities", args: `{"group":"NOW"}`,
		want: `{"success":false,
			"error":{"code":"INVALID_ENUM_VALUE","message":"unknown group \"N…\"","field":"group","suggestions":{"did_you_mean":["now"],"valid_values":["later","now"]}},
			"errors":[{"code":"INVALID_ENUM_VALUE","message":"unknown group \"N…\"","field":"group","suggestions":{"did_you_mean":["now"],"valid_values":["later","now"]}}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			got := h.call(alice, tt.tool, tt.args)
			if !got.isError || got.text != compact(tt.want) {
				t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, compact(tt.want))
			}
		})
	}
}

func TestGetWriteSchemaReturnsTheDocumentEntry(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	got := h.call(alice, "get_write_schema", `{"operation":"create_note"}`)
	want := compact(`{"operation":"create_note","schema_hash":"` + noteHash(t, "create_note") + `","schema_version":"` + notesVersion + `","description":"Create a note in the active model.","kind":"CREATE",
		"classification":"SAFE_CREATE","confirmation":"DIRECT",
		"input_schema":{"type":"object","properties":{"title":{"type":"string","description":"Note title"},"description":{"type":"string","description":"What the note is about"},"priority":{"type":"integer"},"client_request_id":{"type":"string"},"dry_run":{"type":"boolean"}},"required":["title"],"additionalProperties":false},
		"output_schema":{"type":"object","properties":{"success":{"type":"boolean"},"note":{"type":"object"}},"required":["success"]},
		"examples":[{"description":"A plain note","input":{"title":"Buy milk"}}],
		"required_fields":["title"],"optional_fields":["description","priority"],
		"server_fills":[{"field":"id","source":"generated","how":"note- and 8 random hex digits"},
		                {"field":"model_id","source":"resolver","how":"resolver active_model","overridable":true},
		                {"field":"meta.tenant_id","source":"context","how":"tenant from the request context"},
		                {"field":"meta.correlation_id","source":"context","how":"correlation from the request context"},
		                {"field":"meta.created_at","source":"generated","how":"NOW"}],
		"control_arguments": ["client_request_id", "dry_run"]}`)
	if got.isError || got.text != want {
		t.Fatalf("got\n%s\nwant\n%s", got.text, want)
	}
}

func TestDiscoveryListsValuesAndGroups(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{{
		name: "all values grouped",
		args: `{}`,
		want: `{"values":[{"value":"Low","description":"Whenever there is time","group":"later"},
			{"value":"High","description":"Before the end of the day","group":"now"},{"value":"Critical","group":"now"}],
			"groups":{"later":["Low"],"now":["High","Critical"]}}`,
	}, {
		name: "one group",
		args: `{"group":"now"}`,
		want: `{"values":[{"value":"High","description":"Before the end of the day","group":"now"},{"value":"Critical","group":"now"}],
			"groups":{"now":["High","Critical"]}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			got := h.call(alice, "list_priorities", tt.args)
			if got.isError || got.text != compact(tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", got.text, compact(tt.want))
			}
		})
	}
}

func TestNoArgumentsAtAllIsAnEmptyObject(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	got := h.call(alice, "list_priorities", `null`)
	if got.isError || !strings.HasPrefix(got.text, `{"values":[{"value":"Low"`) {
		t.Fatalf("got %s", got.text)
	}
}
