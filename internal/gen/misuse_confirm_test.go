package gen_test

import "testing"

// confirmService is a service with one destructive tool whose options are opts.
func confirmService(opts string) string {
	return `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: DELETE ` + opts + `}; }
}
message Line { string sku = 1; int32 qty = 2; }
message Req {
  string id = 1;
  repeated Line lines = 2;
  Line first = 3;
  map<string, string> labels = 4;
}
message Resp { string id = 1; }
`
}

func TestConfirmationMessageMisuseIsReportedWithTheFix(t *testing.T) {
	const at = `bad.proto:10:3: method bad.v1.S.Do: confirmation_message: `
	cases := []struct {
		name, tpl, want string
	}{
		{"unknown field", `Delete {nope}?`, at + `{nope}: bad.v1.Req has no field "nope" (placeholders use proto field names)`},
		{"list without #", `Delete {lines}?`, at + `{lines}: lines holds many values; write {#lines} for how many`},
		{"# on a scalar", `Delete {#id}?`, at + `{#id}: id is not a repeated or map field; drop the #`},
		{"message leaf", `Delete {first}?`, at + `{first}: first is a message; name one of its scalar fields, e.g. {first.sku}`},
		{"descend into a list", `Delete {lines.sku}?`, at + `{lines.sku}: lines is not a singular message field to descend into`},
		{"unclosed", `Delete {id?`, at + `the placeholder at byte 7 is not closed with }`},
		{"lone closing brace", `Delete id}?`, at + `a lone } at byte 9; write }} for a literal brace`},
		{"empty preview key", `Delete {preview.}?`, at + `{preview.}: an empty preview key`},
		{"empty placeholder", `Delete {}?`, at + `{}: name a request field, e.g. {id}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, files := generate(t, confirmService(`confirmation_message: "`+tc.tpl+`"`), "")
			if got != tc.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tc.want)
			}
			if files != 0 {
				t.Errorf("emitted %d files next to an error; want none", files)
			}
		})
	}
	// The accepted forms generate.
	if got, _ := generate(t, confirmService(`confirmation_message: "Delete {id}, {#lines} lines, {#labels} labels, first {first.sku} x{first.qty}, {preview.total} {{ok}}?"`), ""); got != "" {
		t.Fatalf("valid template refused: %s", got)
	}
}

func TestPreviewUnlessMisuseIsReportedWithTheFix(t *testing.T) {
	src := func(opt, fields string) string {
		return `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE preview_unless: "` + opt + `"}; }
}
message Req {
  string name = 1;
` + fields + `
}
message Resp { string id = 1; }
`
	}
	const at = `bad.proto:10:3: method bad.v1.S.Do: `
	cases := []struct{ name, src, want string }{
		{"not a field", src("confirm", ""), at + `preview_unless names "confirm", which is not a field of bad.v1.Req; add one, e.g. bool confirm = 99;`},
		{"not a bool", src("confirm", `  string confirm = 2;`), at + `preview_unless names confirm, a string field; it must name a singular bool field such as ` + "`bool confirm`"},
		{"repeated bool", src("confirm", `  repeated bool confirm = 2;`), at + `preview_unless names confirm, a repeated field; it must name a singular bool field such as ` + "`bool confirm`"},
		{"server-filled", src("confirm", `  bool confirm = 2 [(mcpwrite.v1.field).derived = {constant: "true"}];`), at + `preview_unless names confirm, which the agent does not set; make it agent-supplied`},
		{"hidden", src("confirm", `  bool confirm = 2 [(mcpwrite.v1.field).hidden = true];`), at + `preview_unless names confirm, which the agent does not set; make it agent-supplied`},
		{"default true", src("confirm", `  bool confirm = 2 [(mcpwrite.v1.field).agent = {default: "true"}];`), at + `preview_unless names confirm, whose default is true: every call would write without a preview; drop the default`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, files := generate(t, tc.src, "")
			if got != tc.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tc.want)
			}
			if files != 0 {
				t.Errorf("emitted %d files next to an error; want none", files)
			}
		})
	}
}
