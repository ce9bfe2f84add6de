package gen_test

import (
	"strings"
	"testing"
)

// TestNoFollowOnErrors: a field refused for its own mistake is reported
// once; the checks that name it (examples, preview_unless, from_enum,
// CONTENT_HASH, message oneof rules) do not report it again as unknown.
func TestNoFollowOnErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "examples naming refused fields",
			src: `
service S {
  rpc Export(ExportRequest) returns (Resp) {
    option (mcpwrite.v1.tool) = {
      kind: ACTION
      examples: {input: "{\"format\": \"csv\", \"limit\": 3, \"title\": \"Q3\"}"}
    };
  }
}
message Resp { string id = 1; }
message ExportRequest {
  string format = 1 [(mcpwrite.v1.field).agent = {minimum: 1}];
  int32 limit = 2 [(mcpwrite.v1.field).agent = {pattern: "^[0-9]+$"}];
  string title = 3;
}`,
			want: []string{
				`bad.proto:19:3: message bad.v1.ExportRequest: field format: minimum and maximum apply to numeric fields, not a string field; remove them, or use min_length and max_length on a string`,
				`bad.proto:20:3: message bad.v1.ExportRequest: field limit: min_length, max_length and pattern apply to string fields, not an int32 field; remove them, or use minimum and maximum on a number`,
			},
		},
		{
			name: "preview_unless naming a refused field",
			src: `
service S {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE preview_unless: "confirm"}; }
}
message Resp { string id = 1; }
message Req {
  string name = 1;
  bool confirm = 2 [(mcpwrite.v1.field).agent = {max_length: 3}];
}`,
			want: []string{
				`bad.proto:15:3: message bad.v1.Req: field confirm: min_length, max_length and pattern apply to string fields, not a bool field; remove them, or use minimum and maximum on a number`,
			},
		},
		{
			name: "from_enum and CONTENT_HASH naming refused fields",
			src: service + layerEnums + `
message Req {
  Layer kind = 1 [(mcpwrite.v1.field).agent = {minimum: 0}];
  string title = 2 [(mcpwrite.v1.field).agent = {minimum: 0}];
  Layer layer = 3 [(mcpwrite.v1.field).derived = {from_enum: "kind"}];
  string hash = 4 [(mcpwrite.v1.field).generated = {kind: CONTENT_HASH from: "title"}];
}`,
			want: []string{
				`bad.proto:21:3: message bad.v1.Req: field kind: minimum and maximum apply to numeric fields, not enum bad.v1.Layer; remove them, or use min_length and max_length on a string`,
				`bad.proto:22:3: message bad.v1.Req: field title: minimum and maximum apply to numeric fields, not a string field; remove them, or use min_length and max_length on a string`,
			},
		},
		{
			name: "a message oneof rule naming a refused field",
			src: `import "buf/validate/validate.proto";` + service + `
message Req {
  option (buf.validate.message).oneof = {fields: ["email", "phone"]};
  string email = 1 [(mcpwrite.v1.field).agent = {min_items: 1}];
  string phone = 2;
}`,
			want: []string{
				`bad.proto:16:3: message bad.v1.Req: field email: min_items and max_items apply to repeated and google.protobuf.ListValue fields, not a string field; remove them`,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, files := generate(t, tc.src, "")
			if g, w := strings.Split(got, "\n"), tc.want; strings.Join(g, "\n") != strings.Join(w, "\n") {
				t.Errorf("errors:\n got: %q\nwant: %q", g, w)
			}
			if files != 0 {
				t.Errorf("emitted %d files next to errors; want none", files)
			}
		})
	}
}
