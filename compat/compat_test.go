package compat_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/compat"
)

func doc(tools, svc string) []byte {
	return []byte(`{"source":"b.proto","services":[{"name":"b.v1.S",` + svc + `"tools":[` + tools + `]}]}`)
}

func tool(name, class, conf, schema string) string {
	return toolOut(name, class, conf, schema, `{"type":"object"}`)
}

func toolOut(name, class, conf, schema, output string) string {
	return `{"name":"` + name + `","method":"m","description":"d","kind":"CREATE","classification":"` + class + `","confirmation":"` + conf +
		`","hints":{"read_only":false,"destructive":false,"idempotent":false,"open_world":false},"input_schema":` + schema + `,"output_schema":` + output + `,"required_fields":[],"optional_fields":[]}`
}

const oldOutput = `{"type":"object","properties":{"booking":{"type":"object","properties":{
	"booking_id":{"type":"string"},"minutes":{"type":"integer"},"room":{"type":"string"}}}}}`

const oldSchema = `{"type":"object","additionalProperties":false,"required":["room","title"],"properties":{
	"room":{"type":"string","enum":["Boardroom","Focus","Quiet"]},
	"title":{"type":"string","minLength":1,"maxLength":120},
	"minutes":{"type":"integer","minimum":15,"maximum":480,"default":60},
	"code":{"type":"string","pattern":"^[A-Z]+$"},
	"notes":{"type":"string"},
	"tags":{"type":"array","items":{"type":"string"},"maxItems":5}}}`

func TestCompareReportsEveryBreakingChange(t *testing.T) {
	newSchema := `{"type":"object","additionalProperties":false,"required":["room","title","minutes","floor"],"properties":{
	"room":{"type":"string","enum":["Boardroom","Focus room"]},
	"title":{"type":"string","minLength":1,"maxLength":80},
	"minutes":{"type":"integer","minimum":30,"maximum":480,"default":30},
	"code":{"type":"string","pattern":"^[A-Z]{3}$"},
	"floor":{"type":"integer"},
	"tags":{"type":"array","items":{"type":"integer"},"maxItems":5}}}`
	newOutput := `{"type":"object","properties":{"booking":{"type":"object","properties":{
	"booking_id":{"type":"string"},"minutes":{"type":"string"}}}}}`
	old := doc(toolOut("book_room", "SAFE_CREATE", "DIRECT", oldSchema, oldOutput)+","+tool("cancel", "SAFE_UPDATE", "DIRECT", `{"type":"object"}`), `"validate_tool":"validate_write",`)
	cur := doc(toolOut("book_room", "DESTRUCTIVE_UPDATE", "ELICIT", newSchema, newOutput)+","+tool("extend", "SAFE_UPDATE", "DIRECT", `{"type":"object"}`), "")
	changes, err := compat.Compare(old, cur)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{
		"BREAKING: tool book_room: classification SAFE_CREATE -> DESTRUCTIVE_UPDATE",
		"BREAKING: tool book_room: confirmation DIRECT -> ELICIT",
		"BREAKING: tool book_room: code: pattern ^[A-Z]+$ -> ^[A-Z]{3}$",
		"BREAKING: tool book_room: minutes: now required",
		"BREAKING: tool book_room: minutes: default 60 -> 30",
		"BREAKING: tool book_room: minutes: minimum 15 -> 30",
		"BREAKING: tool book_room: notes: field removed",
		"BREAKING: tool book_room: room: value renamed Focus -> Focus room",
		"BREAKING: tool book_room: room: value Quiet no longer accepted",
		"BREAKING: tool book_room: tags[]: type string -> integer",
		"BREAKING: tool book_room: title: maxLength 120 -> 80",
		"BREAKING: tool book_room: floor: new required field",
		"BREAKING: tool book_room: output booking.minutes: type integer -> string",
		"BREAKING: tool book_room: output booking.room: field removed",
		"BREAKING: tool cancel: removed",
		"BREAKING: service tool validate_write removed",
		"compatible: tool extend: added",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !compat.Breaking(changes) {
		t.Fatal("Breaking = false")
	}
}

func TestCompareAcceptsCompatibleAdditions(t *testing.T) {
	newSchema := `{"type":"object","additionalProperties":false,"required":["room"],"properties":{
	"room":{"type":"string","enum":["Boardroom","Focus","Quiet","Auditorium"]},
	"title":{"type":"string","minLength":1,"maxLength":200,"default":"Meeting"},
	"minutes":{"type":"integer","minimum":5,"default":60},
	"code":{"type":"string"},
	"notes":{"type":"string","description":"changed"},
	"tags":{"type":"array","items":{"type":"string"},"maxItems":10},
	"floor":{"type":"integer"}}}`
	newOutput := `{"type":"object","properties":{"booking":{"type":"object","properties":{
	"booking_id":{"type":"string"},"minutes":{"type":"integer"},"room":{"type":"string"},"floor":{"type":"integer"}}},"warnings":{"type":"array"}}}`
	changes, err := compat.Compare(doc(toolOut("book_room", "SAFE_CREATE", "DIRECT", oldSchema, oldOutput), ""), doc(toolOut("book_room", "SAFE_CREATE", "DIRECT", newSchema, newOutput), `"validate_tool":"validate_write",`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{
		"compatible: tool book_room: code: pattern ^[A-Z]+$ removed",
		"compatible: tool book_room: minutes: minimum 15 -> 5",
		"compatible: tool book_room: minutes: maximum 480 removed",
		"compatible: tool book_room: room: 1 value(s) added",
		"compatible: tool book_room: tags: maxItems 5 -> 10",
		"compatible: tool book_room: title: now optional",
		`compatible: tool book_room: title: default "Meeting" added`,
		"compatible: tool book_room: title: maxLength 120 -> 200",
		"compatible: tool book_room: floor: new optional field",
		"compatible: tool book_room: output booking.floor: new field",
		"compatible: tool book_room: output warnings: new field",
		"compatible: service tool validate_write added",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || compat.Breaking(changes) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCompareRefusesWhatIsNotASurface(t *testing.T) {
	if _, err := compat.Compare([]byte("{"), []byte("{}")); err == nil || !strings.HasPrefix(err.Error(), "old surface: ") {
		t.Fatalf("err = %v", err)
	}
	if _, err := compat.Compare([]byte(`{"source":"a.proto"}`), []byte(`[]`)); err == nil || !strings.HasPrefix(err.Error(), "new surface: ") {
		t.Fatalf("err = %v", err)
	}
	if _, err := compat.Compare([]byte(`{}`), []byte(`{"source":"a.proto"}`)); err == nil || err.Error() != `old surface: not a .mcpwrite.json document (no "source")` {
		t.Fatalf("err = %v", err)
	}
	bad := doc(toolOut("t", "SAFE_CREATE", "DIRECT", `{"type":"object"}`, `[1]`), "")
	if _, err := compat.Compare(doc(tool("t", "SAFE_CREATE", "DIRECT", `{"type":"object"}`), ""), []byte(bad)); err == nil ||
		err.Error() != "new surface: tool t: output schema: json: cannot unmarshal array into Go value of type map[string]interface {}" {
		t.Fatalf("err = %v", err)
	}
}

// Every example's surface compared with itself has no changes: what the
// plugin writes is what Compare reads.
func TestCompareExampleSurfacesWithThemselves(t *testing.T) {
	files, err := filepath.Glob("../examples/*/gen/*/*/*mcpwrite/*.mcpwrite.json")
	if err != nil || len(files) != 5 {
		t.Fatalf("example surfaces: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		changes, err := compat.Compare(b, b)
		if err != nil || len(changes) != 0 {
			t.Errorf("%s: %v %v", f, changes, err)
		}
	}
}

// toolWhen is a tool whose input has a required_when rule for each of conds
// ("field|when|JSON value").
func toolWhen(name string, conds ...string) string {
	var rs []string
	for _, c := range conds {
		p := strings.Split(c, "|")
		rs = append(rs, `{"field":"`+p[0]+`","when":"`+p[1]+`","equals":[`+p[2]+`],"rule":"r"}`)
	}
	schema := `{"type":"object","additionalProperties":false,"properties":{"operation":{"type":"string","enum":["promote","extract","adopt"]},"parent_id":{"type":"string"},"target_parent_id":{"type":"string"}}}`
	t := tool(name, "SAFE_UPDATE", "DIRECT", schema)
	return strings.TrimSuffix(t, "}") + `,"required_when":[` + strings.Join(rs, ",") + `]}`
}

func TestCompareReportsNewRequiredWhenConditionsAsBreaking(t *testing.T) {
	old := doc(toolWhen("task_transform", `parent_id|operation|"extract"`, `target_parent_id|operation|"adopt"`), "")
	cur := doc(toolWhen("task_transform", `parent_id|operation|"extract"`, `parent_id|operation|"promote"`), "")
	changes, err := compat.Compare(old, cur)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{
		`BREAKING: tool task_transform: parent_id: now required when operation is "promote"`,
		`compatible: tool task_transform: target_parent_id: no longer required when operation is "adopt"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || !compat.Breaking(changes) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCompareReportsAFieldThatNoLongerTakesANameAsBreaking(t *testing.T) {
	withRefs := func(fields ...string) string {
		var rs []string
		for _, f := range fields {
			rs = append(rs, `{"field":"`+f+`","kind":"element"}`)
		}
		schema := `{"type":"object","additionalProperties":false,"properties":{"source_id":{"type":"string"},"target_id":{"type":"string"}}}`
		return strings.TrimSuffix(tool("create_relationship", "SAFE_CREATE", "DIRECT", schema), "}") + `,"references":[` + strings.Join(rs, ",") + `]}`
	}
	changes, err := compat.Compare(doc(withRefs("source_id"), ""), doc(withRefs("target_id"), ""))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{
		"BREAKING: tool create_relationship: source_id: no longer takes element names, only ids",
		"compatible: tool create_relationship: target_id: now takes element names as well as ids",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || !compat.Breaking(changes) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCompareReportsARefusingElicitFallbackAsBreaking(t *testing.T) {
	proposes := doc(tool("book_room", "DESTRUCTIVE_UPDATE", "ELICIT", oldSchema), "")
	refuses := []byte(strings.Replace(string(proposes), `"confirmation":"ELICIT"`, `"confirmation":"ELICIT","elicit_fallback":"REFUSE"`, 1))
	for _, tt := range []struct {
		name     string
		old, cur []byte
		want     string
	}{
		{"propose to refuse", proposes, refuses, "BREAKING: tool book_room: elicit_fallback PROPOSE -> REFUSE"},
		{"refuse to propose", refuses, proposes, "compatible: tool book_room: elicit_fallback REFUSE -> PROPOSE"},
		{"unchanged", refuses, refuses, ""},
	} {
		changes, err := compat.Compare(tt.old, tt.cur)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range changes {
			got = append(got, c.String())
		}
		if strings.Join(got, "\n") != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
