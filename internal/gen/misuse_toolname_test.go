package gen_test

import "testing"

// A tool name longer than 64 characters is refused with the fix, never
// shortened: agents and next_steps name tools as the proto author reads them.
func TestToolNameOver64CharactersIsRefusedWithTheFix(t *testing.T) {
	const msgs = `
message Req { string name = 1; }
message Resp { string id = 1; }
`
	cases := []struct{ name, src, want string }{
		{
			"method name with the prefix",
			`
service A {
  option (mcpwrite.v1.service) = {tool_prefix: "enterprise_architecture_repository_"};
  rpc CreateApplicationComponentRealization(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE}; }
}` + msgs,
			`bad.proto:9:1: service bad.v1.A: tool name "enterprise_architecture_repository_create_application_component_realization" (method CreateApplicationComponentRealization) has 75 characters, at most 64 are allowed; name it with a shorter name option ((mcpwrite.v1.tool).name for a method) or a shorter tool_prefix`,
		},
		{
			"exactly 64 characters is accepted",
			`
service A {
  rpc Do(Req) returns (Resp) { option (mcpwrite.v1.tool) = {kind: CREATE, name: "` + "x234567890123456789012345678901234567890123456789012345678901234" + `"}; }
}` + msgs,
			"",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, files := generate(t, tc.src, "")
			if got != tc.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tc.want)
			}
			if tc.want != "" && files != 0 {
				t.Errorf("emitted %d files next to an error; want none", files)
			}
			if tc.want == "" && files == 0 {
				t.Error("emitted no file for a valid service")
			}
		})
	}
}
