package impl

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// valueOf parses one JSON value (as the member "v" of an object).
func valueOf(t testing.TB, js string) *Value {
	t.Helper()
	obj, errs := Parse([]byte(`{"v":`+js+`}`), Limits{})
	if errs != nil {
		t.Fatalf("parse %s: %q", js, linesOf(errs))
	}
	return obj.Get("v")
}

func TestDecoderReadersReportExactErrors(t *testing.T) {
	type read func(d *Decoder, v *Value) (any, bool)
	str := func(d *Decoder, v *Value) (any, bool) { return d.String(v, "v") }
	boolean := func(d *Decoder, v *Value) (any, bool) { return d.Bool(v, "v") }
	i32 := func(d *Decoder, v *Value) (any, bool) { return d.Int32(v, "v") }
	u32 := func(d *Decoder, v *Value) (any, bool) { return d.Uint32(v, "v") }
	i64 := func(d *Decoder, v *Value) (any, bool) { return d.Int64(v, "v") }
	u64 := func(d *Decoder, v *Value) (any, bool) { return d.Uint64(v, "v") }
	f32 := func(d *Decoder, v *Value) (any, bool) { return d.Float32(v, "v") }
	f64 := func(d *Decoder, v *Value) (any, bool) { return d.Float64(v, "v") }
	byt := func(d *Decoder, v *Value) (any, bool) { return d.Bytes(v, "v") }
	arr := func(d *Decoder, v *Value) (any, bool) { a, ok := d.Array(v, "v"); return len(a), ok }
	obj := func(d *Decoder, v *Value) (any, bool) {
		o, ok := d.Object(v, "v")
		if !ok {
			return "", false
		}
		return o.Get("k").Str, ok
	}
	cv := func(m string) []errLine { return []errLine{{CodeConstraintViolation, m, "v"}} }
	it := func(m string) []errLine { return []errLine{{CodeInvalidType, m, "v"}} }

	tests := []struct {
		name   string
		js     string
		read   read
		want   any
		wantOK bool
		errs   []errLine
	}{
		{"string", `"héllo"`, str, "héllo", true, nil},
		{"string given a number", `42`, str, "", false, it("expected string, got number")},
		{"null is absent for string", `null`, str, "", false, nil},
		{"bool", `true`, boolean, true, true, nil},
		{"bool given a string", `"true"`, boolean, false, false, it("expected boolean, got string")},
		{"null is absent for bool", `null`, boolean, false, false, nil},
		{"int32", `-2147483648`, i32, int32(-2147483648), true, nil},
		{"int32 integral float forms", `1.0e2`, i32, int32(100), true, nil},
		{"int32 fraction", `1.5`, i32, int32(0), false, it("expected integer, got 1.5")},
		{"int32 out of range", `2147483648`, i32, int32(0), false, cv("value 2147483648 is out of range for int32 (-2147483648 to 2147483647)")},
		{"int32 exponent out of range", `1e10`, i32, int32(0), false, cv("value 1e10 is out of range for int32 (-2147483648 to 2147483647)")},
		{"int32 given a string", `"5"`, i32, int32(0), false, it("expected integer, got string")},
		{"null is absent for int32", `null`, i32, int32(0), false, nil},
		{"uint32", `4294967295`, u32, uint32(4294967295), true, nil},
		{"uint32 negative", `-1`, u32, uint32(0), false, cv("value -1 is out of range for uint32 (0 to 4294967295)")},
		{"int64 from a string", `"-9223372036854775808"`, i64, int64(-9223372036854775808), true, nil},
		{"int64 given a number", `42`, i64, int64(0), false, it("expected string, got number")},
		{"int64 not digits", `"4x2"`, i64, int64(0), false, it(`expected a decimal integer string, got "4…"`)},
		{"int64 out of range", `"9223372036854775808"`, i64, int64(0), false, cv("value 9223372036854775808 is out of range for int64 (-9223372036854775808 to 9223372036854775807)")},
		{"uint64 from a string", `"18446744073709551615"`, u64, uint64(18446744073709551615), true, nil},
		{"uint64 negative", `"-1"`, u64, uint64(0), false, cv("value -1 is out of range for uint64 (0 to 18446744073709551615)")},
		{"null is absent for uint64", `null`, u64, uint64(0), false, nil},
		{"float32", `0.5`, f32, float32(0.5), true, nil},
		{"float32 out of range", `1e39`, f32, float32(0), false, cv("number 1e39 is out of range for float")},
		{"float64", `-1.25e-3`, f64, -1.25e-3, true, nil},
		{"float64 out of range", `1e999`, f64, 0.0, false, cv("number 1e999 is out of range for double")},
		{"float64 underflow rounds to zero", `1e-400`, f64, 0.0, true, nil},
		{"float64 given a bool", `false`, f64, 0.0, false, it("expected number, got boolean")},
		{"bytes standard padded", `"aGk/Pw=="`, byt, []byte("hi??"), true, nil},
		{"bytes url unpadded", `"aGk_Pw"`, byt, []byte("hi??"), true, nil},
		{"bytes empty", `""`, byt, []byte{}, true, nil},
		{"bytes invalid", `"a$b"`, byt, []byte(nil), false, it("expected base64 data, got an invalid character at offset 1")},
		{"bytes of length 4n+1", `"aGk/P"`, byt, []byte(nil), false, it("expected base64 data, got 5 characters (base64 is groups of 4, the last padded with = or cut to 2 or 3)")},
		{"bytes padded to no group", `"aGk="`, byt, []byte("hi"), true, nil},
		{"bytes with too much padding", `"aGk/Pw="`, byt, []byte(nil), false, it("expected base64 data, got 7 characters (base64 is groups of 4, the last padded with = or cut to 2 or 3)")},
		{"bytes with padding alone", `"=="`, byt, []byte(nil), false, it("expected base64 data, got 2 characters (base64 is groups of 4, the last padded with = or cut to 2 or 3)")},
		{"bytes mixing alphabets", `"a+b_"`, byt, []byte(nil), false, it("expected base64 data, got an invalid character at offset 1")},
		{"array", `[1,2,3]`, arr, 3, true, nil},
		{"array given an object", `{}`, arr, 0, false, it("expected array, got object")},
		{"object", `{"k":"x"}`, obj, "x", true, nil},
		{"object given an array", `[]`, obj, "", false, it("expected object, got array")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(Limits{})
			got, ok := tt.read(d, valueOf(t, tt.js))
			if !reflect.DeepEqual(got, tt.want) || ok != tt.wantOK {
				t.Errorf("got (%#v, %v), want (%#v, %v)", got, ok, tt.want, tt.wantOK)
			}
			if es := linesOf(d.Errors()); !reflect.DeepEqual(es, tt.errs) {
				t.Errorf("errors:\n got %q\nwant %q", es, tt.errs)
			}
		})
	}
}

func TestInt64AsNumberHintsStrings(t *testing.T) {
	d := NewDecoder(Limits{})
	d.Int64(valueOf(t, `42`), "size")
	es := d.Errors()
	if len(es) != 1 || es[0].Suggestions == nil || es[0].Suggestions.Hint != `send 64-bit integers as strings, e.g. "42"` {
		t.Fatalf("errors = %+v", es)
	}
}

func TestDecoderWellKnownTypes(t *testing.T) {
	tests := []struct {
		name string
		js   string
		read func(d *Decoder, v *Value) (proto.Message, bool)
		want proto.Message // nil: failed
		errs []errLine
	}{
		{"timestamp UTC", `"2024-05-01T12:00:00Z"`, readTimestamp, timestamppb.New(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)), nil},
		{"timestamp offset and nanos", `"2024-05-01T14:00:00.123456789+02:00"`, readTimestamp, &timestamppb.Timestamp{Seconds: 1714564800, Nanos: 123456789}, nil},
		{"timestamp date only", `"2024-05-01"`, readTimestamp, nil,
			[]errLine{{CodeInvalidType, `expected an RFC 3339 timestamp such as "2024-05-01T12:00:00Z", got "2024-…"`, "v"}}},
		{"timestamp given a number", `1714564800`, readTimestamp, nil, []errLine{{CodeInvalidType, "expected string, got number", "v"}}},
		{"duration protobuf form", `"1.5s"`, readDuration, &durationpb.Duration{Seconds: 1, Nanos: 500000000}, nil},
		{"duration negative fraction", `"-0.25s"`, readDuration, &durationpb.Duration{Nanos: -250000000}, nil},
		{"duration Go form", `"1h30m"`, readDuration, &durationpb.Duration{Seconds: 5400}, nil},
		{"duration beyond 10000 years", `"315576000001s"`, readDuration, nil,
			[]errLine{{CodeConstraintViolation, `duration "315576…" is outside ±315576000000s`, "v"}}},
		{"duration word", `"soon"`, readDuration, nil,
			[]errLine{{CodeInvalidType, `expected a duration such as "1.5s" or "90m", got "so…"`, "v"}}},
		{"field mask camel and snake", `"displayName, owner.teamId,parent_id"`, readMask, &fieldmaskpb.FieldMask{Paths: []string{"display_name", "owner.team_id", "parent_id"}}, nil},
		{"field mask empty", `""`, readMask, &fieldmaskpb.FieldMask{}, nil},
		{"field mask bad path", `"name,,x"`, readMask, nil,
			[]errLine{{CodeInvalidType, `expected a field mask such as "name,description", got invalid path ""`, "v"}}},
		{"struct", `{"a":1,"b":[true,null,"x"],"c":{}}`, readStruct, mustStruct(t, map[string]any{"a": 1, "b": []any{true, nil, "x"}, "c": map[string]any{}}), nil},
		{"struct with out-of-range number", `{"a":{"b":[1e999]}}`, readStruct, nil,
			[]errLine{{CodeConstraintViolation, "number 1e999 is out of range for double", "v.a.b[0]"}}},
		{"struct given an array", `[]`, readStruct, nil, []errLine{{CodeInvalidType, "expected object, got array", "v"}}},
		{"struct value as JSON text of a string", `"\"x\""`, readStructValue, structpb.NewStringValue("x"), nil},
		{"struct value as JSON text of an object", `"{\"a\":[1,null]}"`, readStructValue, structpb.NewStructValue(mustStruct(t, map[string]any{"a": []any{1, nil}})), nil},
		{"struct value as JSON text null is a null value", `"null"`, readStructValue, structpb.NewNullValue(), nil},
		{"struct value given directly", `{"a":true}`, readStructValue, structpb.NewStructValue(mustStruct(t, map[string]any{"a": true})), nil},
		{"struct value text that is not JSON is that string", `"OK"`, readStructValue, structpb.NewStringValue("OK"), nil},
		{"struct value JSON text of a string is that string", `"\"OK\""`, readStructValue, structpb.NewStringValue("OK"), nil},
		{"struct value e-mail address is a string", `"ada@new.org"`, readStructValue, structpb.NewStringValue("ada@new.org"), nil},
		{"struct value broken JSON is a string", `"{\"a\":"`, readStructValue, structpb.NewStringValue(`{"a":`), nil},
		{"struct value text that parses as JSON is that JSON", `"42"`, readStructValue, structpb.NewNumberValue(42), nil},
		{"struct text that is not JSON", `"x"`, readStruct, nil,
			[]errLine{{CodeInvalidJSON, "v must be JSON text (invalid JSON at byte 0: unexpected word \"…\"; strings must be in double quotes)", "v"}}},
		{"struct as JSON text", `"{\"k\":\"v\"}"`, readStruct, mustStruct(t, map[string]any{"k": "v"}), nil},
		{"struct as JSON text of an array", `"[]"`, readStruct, nil,
			[]errLine{{CodeInvalidType, "v must be JSON text of an object, got an array", "v"}}},
		{"list value as JSON text", `"[true]"`, readList, mustList(t, []any{true}), nil},
		{"list value", `[1,"a"]`, readList, mustList(t, []any{1, "a"}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(Limits{})
			got, ok := tt.read(d, valueOf(t, tt.js))
			if ok != (tt.want != nil) || (tt.want != nil && !proto.Equal(got, tt.want)) {
				t.Errorf("got (%v, %v), want %v", got, ok, tt.want)
			}
			if es := linesOf(d.Errors()); !reflect.DeepEqual(es, tt.errs) {
				t.Errorf("errors:\n got %q\nwant %q", es, tt.errs)
			}
		})
	}
	t.Run("null is absent for every well-known type but Value", func(t *testing.T) {
		d := NewDecoder(Limits{})
		null := valueOf(t, `null`)
		for _, read := range []func(*Decoder, *Value) (proto.Message, bool){readTimestamp, readDuration, readMask, readStruct, readList} {
			if _, ok := read(d, null); ok {
				t.Error("null was read as a value")
			}
		}
		if d.Errors() != nil {
			t.Errorf("errors = %q", linesOf(d.Errors()))
		}
	})
	t.Run("a null Value (a list element or map value) is kept as a null value", func(t *testing.T) {
		d := NewDecoder(Limits{})
		got, ok := readStructValue(d, valueOf(t, `null`))
		if !ok || !proto.Equal(got, structpb.NewNullValue()) || d.Errors() != nil {
			t.Fatalf("got %v %v, errors %q", got, ok, linesOf(d.Errors()))
		}
	})
}

func readTimestamp(d *Decoder, v *Value) (proto.Message, bool) { return d.Timestamp(v, "v") }
func readDuration(d *Decoder, v *Value) (proto.Message, bool)  { return d.Duration(v, "v") }
func readMask(d *Decoder, v *Value) (proto.Message, bool)      { return d.FieldMask(v, "v") }
func readStruct(d *Decoder, v *Value) (proto.Message, bool)    { return d.Struct(v, "v") }
func readStructValue(d *Decoder, v *Value) (proto.Message, bool) {
	return d.StructValue(v, "v")
}
func readList(d *Decoder, v *Value) (proto.Message, bool) { return d.ListValue(v, "v") }

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustList(t *testing.T, l []any) *structpb.ListValue {
	s, err := structpb.NewList(l)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDecoderPathsFollowEnterAndLeave(t *testing.T) {
	d := NewDecoder(Limits{})
	d.Enter("items")
	d.EnterIndex(2)
	d.String(valueOf(t, `7`), "sku")
	if got := d.Path("qty"); got != "items[2].qty" {
		t.Errorf("Path = %q", got)
	}
	d.Leave()
	d.Add(&ErrorEntry{Code: CodeValidation, Message: "element", Field: "[3]"})
	d.Add(&ErrorEntry{Code: CodeValidation, Message: "itself"})
	d.Leave()
	d.Enter("profile")
	d.Add(&ErrorEntry{Code: CodeValidation, Message: "nested", Field: "owner.name"})
	d.Enter("a.b")
	d.Missing("c")
	d.Leave()
	d.Leave()
	d.Leave() // one too many is harmless
	d.Add(&ErrorEntry{Code: CodeValidation, Message: "root", Field: "top"})
	want := []errLine{
		{CodeInvalidType, "expected string, got number", "items[2].sku"},
		{CodeValidation, "element", "items[3]"},
		{CodeValidation, "itself", "items"},
		{CodeValidation, "nested", "profile.owner.name"},
		{CodeMissingRequired, `missing required field "c"`, `profile["a.b"].c`},
		{CodeValidation, "root", "top"},
	}
	if got := linesOf(d.Errors()); !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

// An unknown key is never offered a field the agent already set: an agent
// taking the first suggestion would overwrite that field's value.
func TestKnownOffersOnlyFieldsNotYetSet(t *testing.T) {
	fields := []string{"notes", "note_id", "name"}
	obj, _ := Parse([]byte(`{"notes":"keep","notez":"x"}`), Limits{})
	d := NewDecoder(Limits{})
	d.Known(obj, fields)
	es := d.Errors()
	if len(es) != 1 || es[0].Message != `unknown field "notez"; did you mean "note_id"?` || !reflect.DeepEqual(es[0].Suggestions.DidYouMean, []string{"note_id"}) {
		t.Errorf("errors = %+v", es)
	}
}

func TestKnownReportsUnknownFieldsWithDidYouMean(t *testing.T) {
	fields := []string{"name", "parent_id", "description", "type"}
	obj, _ := Parse([]byte(`{"name":"x","parentId":"p","Name":"y","zqxj":1}`), Limits{})
	d := NewDecoder(Limits{})
	d.Known(obj, fields)
	es := d.Errors()
	type got struct {
		errLine
		dym, valid []string
	}
	var gs []got
	for _, e := range es {
		gs = append(gs, got{errLine{e.Code, e.Message, e.Field}, e.Suggestions.DidYouMean, e.Suggestions.ValidValues})
	}
	want := []got{
		{errLine{CodeUnknownField, `unknown field "parentId"; did you mean "parent_id"?`, "parentId"}, []string{"parent_id"}, fields},
		// name is set already: offering it would overwrite it.
		{errLine{CodeUnknownField, `unknown field "Name"; keys are case-sensitive, and "name" is already set`, "Name"}, nil, fields},
		{errLine{CodeUnknownField, `unknown field "zqxj"`, "zqxj"}, nil, fields},
	}
	if !reflect.DeepEqual(gs, want) {
		t.Errorf("errors:\n got %+v\nwant %+v", gs, want)
	}
}

// Under field_naming JSON_NAME the fields are protojson names, and an
// agent sending the proto name is pointed back to the camel one.
func TestKnownMapsProtoNamesToJSONNames(t *testing.T) {
	fields := []string{"title", "parentId", "workflowState", "archiveDate"}
	obj, _ := Parse([]byte(`{"parent_id":"p","workflow_state":"todo","ArchiveDate":"x"}`), Limits{})
	d := NewDecoder(Limits{})
	d.Known(obj, fields)
	var got []string
	for _, e := range d.Errors() {
		got = append(got, e.Field+" | "+e.Message+" | "+strings.Join(e.Suggestions.DidYouMean, ","))
	}
	want := []string{
		`parent_id | unknown field "parent_id"; did you mean "parentId"? | parentId`,
		`workflow_state | unknown field "workflow_state"; did you mean "workflowState"? | workflowState`,
		`ArchiveDate | unknown field "ArchiveDate"; keys are case-sensitive, did you mean "archiveDate"? | archiveDate`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

func TestKnownBoundsValidValues(t *testing.T) {
	var fields []string
	for i := 0; i < 30; i++ {
		fields = append(fields, "field_"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
	}
	obj, _ := Parse([]byte(`{"bogus":1}`), Limits{})
	d := NewDecoder(Limits{})
	d.Known(obj, fields)
	s := d.Errors()[0].Suggestions
	if !reflect.DeepEqual(s.ValidValues, fields[:25]) || s.Hint != "showing 25 of 30 fields; the tool's input schema lists all" {
		t.Errorf("suggestions = %+v", s)
	}
}

func TestErrorsFollowInputOrder(t *testing.T) {
	// Generated code visits fields in schema order; the agent reads the
	// errors against what it sent.
	obj, _ := Parse([]byte(`{"type":5,"bogus":1,"name":3,"items":[{"sku":1},{"sku":2}],"x.y":{"z":1}}`), Limits{})
	d := NewDecoder(Limits{})
	d.Known(obj, []string{"name", "description", "type", "items"})
	d.String(obj.Get("name"), "name")
	d.Missing("description")
	d.Enum(obj.Get("type"), "type", archimateTable())
	items, _ := d.Array(obj.Get("items"), "items")
	for i := len(items) - 1; i >= 0; i-- {
		d.Enter("items")
		d.EnterIndex(i)
		d.String(items[i].Obj.Get("sku"), "sku")
		d.Leave()
		d.Leave()
	}
	d.Add(&ErrorEntry{Code: CodeValidation, Message: "inside a dotted key", Field: `["x.y"].z`})
	var fields []string
	for _, e := range d.Errors() {
		fields = append(fields, e.Field)
	}
	want := []string{"type", "bogus", "name", "items[0].sku", "items[1].sku", `["x.y"]`, `["x.y"].z`, "description"}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("order = %q, want %q", fields, want)
	}
}

func TestMapKeys(t *testing.T) {
	d := NewDecoder(Limits{})
	d.Enter("counts")
	i32, ok1 := d.KeyInt32("-7")
	i64, ok2 := d.KeyInt64("9007199254740993")
	u32, ok3 := d.KeyUint32("4294967295")
	u64, ok4 := d.KeyUint64("18446744073709551615")
	b, ok5 := d.KeyBool("true")
	if i32 != -7 || i64 != 9007199254740993 || u32 != 4294967295 || u64 != 18446744073709551615 || !b || !(ok1 && ok2 && ok3 && ok4 && ok5) {
		t.Errorf("keys = %v %v %v %v %v", i32, i64, u32, u64, b)
	}
	d.KeyInt32("2147483648")
	d.KeyUint64("-1")
	d.KeyBool("yes")
	d.KeyInt64("1.5")
	d.KeyUint32("x")
	want := []errLine{
		{CodeInvalidType, `map key "2147483648" is not a valid int32`, "counts.2147483648"},
		{CodeInvalidType, `map key "-1" is not a valid uint64`, "counts.-1"},
		{CodeInvalidType, `map key "yes" is not a valid bool`, "counts.yes"},
		{CodeInvalidType, `map key "1.5" is not a valid int64`, `counts["1.5"]`},
		{CodeInvalidType, `map key "x" is not a valid uint32`, "counts.x"},
	}
	if got := linesOf(d.Errors()); !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

func TestConstraintsStateBoundAndActualValue(t *testing.T) {
	d := NewDecoder(Limits{})
	d.MinLength("name", "héé", 3) // 3 runes, 5 bytes: passes
	d.MinLength("name", "hé", 3)
	d.MaxLength("name", "héllo", 4)
	d.MaxLength("code", "ab", 1)
	d.Pattern("slug", "Hello World", regexp.MustCompile(`^[a-z-]+$`))
	d.Pattern("slug", "hello-world", regexp.MustCompile(`^[a-z-]+$`))
	d.Minimum("qty", 0, 1)
	d.Maximum("ratio", 1.5, 1)
	d.Maximum("ratio", 1, 1)
	d.MinItems("tags", 0, 1)
	d.MaxItems("tags", 12, 10)
	want := []errLine{
		{CodeConstraintViolation, "must be at least 3 characters, got 2", "name"},
		{CodeConstraintViolation, "must be at most 4 characters, got 5", "name"},
		{CodeConstraintViolation, "must be at most 1 character, got 2", "code"},
		{CodeConstraintViolation, `must match the pattern ^[a-z-]+$ (got 11 characters that do not)`, "slug"},
		{CodeConstraintViolation, "must be at least 1, got 0", "qty"},
		{CodeConstraintViolation, "must be at most 1, got 1.5", "ratio"},
		{CodeConstraintViolation, "must have at least 1 item, got 0", "tags"},
		{CodeConstraintViolation, "must have at most 10 items, got 12", "tags"},
	}
	if got := linesOf(d.Errors()); !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

// benchArgs is a typical create_element call.
var benchArgs = []byte(`{"type":"ApplicationComponent","name":"OrderService","description":"Handles orders","properties":{"team":"payments"}}`)

// benchRequest stands in for a generated request message.
type benchRequest struct {
	Type              int32
	Name, Description string
	Properties        map[string]string
}

func decodeBench(raw []byte, table *EnumTable, req *benchRequest) Errors {
	obj, errs := Parse(raw, Limits{})
	if errs != nil {
		return errs
	}
	d := NewDecoder(Limits{})
	d.Known(obj, benchFields)
	if v, ok := d.Enum(obj.Get("type"), "type", table); ok {
		req.Type = v
	}
	if v, ok := d.String(obj.Get("name"), "name"); ok {
		req.Name = v
	}
	if v, ok := d.String(obj.Get("description"), "description"); ok {
		req.Description = v
	}
	if po, ok := d.Object(obj.Get("properties"), "properties"); ok {
		d.Enter("properties")
		req.Properties = make(map[string]string, len(po.Keys))
		for i, k := range po.Keys {
			if s, ok := d.String(po.Vals[i], k); ok {
				req.Properties[k] = s
			}
		}
		d.Leave()
	}
	return d.Errors()
}

var benchFields = []string{"type", "name", "description", "properties"}

// The benchmark input decodes to exactly this request; what it costs is
// BenchmarkParseAndDecode's (and make bench's per-call row's) business.
func TestParseAndDecodeBenchmarkInput(t *testing.T) {
	table := archimateTable()
	var req benchRequest
	if errs := decodeBench(benchArgs, table, &req); errs != nil {
		t.Fatal(errs)
	}
	want := benchRequest{Type: 5, Name: "OrderService", Description: "Handles orders", Properties: map[string]string{"team": "payments"}}
	if !reflect.DeepEqual(req, want) {
		t.Fatalf("decoded %+v", req)
	}
}

func BenchmarkParseAndDecode(b *testing.B) {
	table := archimateTable()
	b.ReportAllocs()
	b.SetBytes(int64(len(benchArgs)))
	for b.Loop() {
		var req benchRequest
		if errs := decodeBench(benchArgs, table, &req); errs != nil {
			b.Fatal(errs)
		}
	}
}

// BenchmarkParseAndDecodeEncodingJSON is the baseline: lenient decoding of
// the same arguments with encoding/json (no duplicate, unknown-field, enum
// or path checks).
func BenchmarkParseAndDecodeEncodingJSON(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchArgs)))
	for b.Loop() {
		var req struct {
			Type        string            `json:"type"`
			Name        string            `json:"name"`
			Description string            `json:"description"`
			Properties  map[string]string `json:"properties"`
		}
		if err := json.Unmarshal(benchArgs, &req); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLongValuesAreClippedInMessages(t *testing.T) {
	d := NewDecoder(Limits{})
	d.Enum(valueOf(t, `"`+strings.Repeat("é", 50)+`"`), "type", archimateTable())
	d.Int32(valueOf(t, "1"+strings.Repeat("0", 50)), "n")
	want := []errLine{
		{CodeInvalidEnumValue, `invalid value "` + strings.Repeat("é", 12) + `…" for type`, "type"},
		{CodeConstraintViolation, "value 1" + strings.Repeat("0", 23) + "… is out of range for int32 (-2147483648 to 2147483647)", "n"},
	}
	if got := linesOf(d.Errors()); !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

// An unknown enum name keeps what the agent sent for error hooks, and the
// rendered entry never shows it twice.
func TestUnknownEnumKeepsTheRejectedValueForHooks(t *testing.T) {
	d := NewDecoder(Limits{})
	d.Enum(valueOf(t, `"AppComponent"`), "type", archimateTable())
	es := d.Errors()
	if len(es) != 1 || es[0].Code != CodeInvalidEnumValue || es[0].Rejected != "AppComponent" {
		t.Fatalf("errors %+v", es)
	}
	b, err := json.Marshal(es[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Rejected") || strings.Contains(string(b), "AppComponent") || !strings.Contains(string(b), `invalid value \"AppCom…\" for type`) {
		t.Fatalf("rendered %s", b)
	}
}
