package gen_test

import "testing"

func TestFieldNamingMisuseIsReportedWithTheFix(t *testing.T) {
	const msgs = `
message Req { string parent_id = 1; }
message Resp { string id = 1; }
`
	cases := []struct {
		name, src, want string
	}{
		{
			"services of one file disagree",
			`
service A {
  option (mcpwrite.v1.service) = {field_naming: JSON_NAME};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
service B {
  option (mcpwrite.v1.service) = {field_naming: PROTO_NAME};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}` + msgs,
			`bad.proto:13:1: service bad.v1.B: field_naming PROTO_NAME differs from service A's JSON_NAME in the same file; services of a file share its messages, so give them the same field_naming or move one to a file of its own`,
		},
		{
			"the default is PROTO_NAME",
			`
service A {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
service B {
  option (mcpwrite.v1.service) = {field_naming: JSON_NAME};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}` + msgs,
			`bad.proto:12:1: service bad.v1.B: field_naming JSON_NAME differs from service A's PROTO_NAME in the same file; services of a file share its messages, so give them the same field_naming or move one to a file of its own`,
		},
		{
			"an agent name collides with a protojson name",
			`
service A {
  option (mcpwrite.v1.service) = {field_naming: JSON_NAME};
  rpc Do(Req2) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
message Req2 {
  string parent_id = 1;
  string parent = 2 [(mcpwrite.v1.field).agent = {name: "parentId"}];
}
message Resp { string id = 1; }`,
			`bad.proto:15:3: message bad.v1.Req2: field parent: agent name "parentId" is already used by field parent_id; give this field a name of its own, e.g. [(mcpwrite.v1.field).agent = {name: "parentId_parent"}]`,
		},
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
	// Services that agree generate.
	if got, _ := generate(t, `
service A {
  option (mcpwrite.v1.service) = {field_naming: JSON_NAME};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}
service B {
  option (mcpwrite.v1.service) = {field_naming: JSON_NAME};
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}`+msgs, ""); got != "" {
		t.Fatalf("agreeing services refused: %s", got)
	}
}
