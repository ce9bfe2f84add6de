package gen_test

import "testing"

// identityWarning is the warning for an unannotated identity-like field.
// at is the field's position in bad.proto (line:col).
func identityWarning(at, tool, path, full, key string) string {
	return "bad.proto:" + at + ": tool " + tool + ": field " + path + " (bad.v1." + full + ") looks like a tenant or principal but has no annotation, so the agent supplies it and could name another tenant or user; " +
		"annotate it [(mcpwrite.v1.field).derived = {context: " + key + "}] to take it from the request context, or [(mcpwrite.v1.field).agent = {}] if the agent really chooses it"
}

// A forgotten annotation on a tenant or principal field made it an optional
// agent-supplied argument without a word: the plugin now says so.
func TestUnannotatedIdentityFieldsWarn(t *testing.T) {
	const w = "protoc-gen-mcpwrite: warning: "
	cases := []struct {
		name, src, want string
	}{
		{
			name: "tenant_id without annotation",
			src: service + `
message Req {
  string tenant_id = 1;
  string name = 2;
}`,
			want: w + identityWarning("15:3", "do", "tenant_id", "Req.tenant_id", "TENANT_ID") + "\n",
		},
		{
			name: "every identity name, proto and JSON spellings",
			src: service + `
message Req {
  string tenant = 1;
  string org_id = 2;
  string organizationId = 3;
  string principal_id = 4;
  string userId = 5;
  string owner_id = 6;
  string name = 7;
}`,
			want: w + identityWarning("15:3", "do", "tenant", "Req.tenant", "TENANT_ID") + "\n" +
				w + identityWarning("16:3", "do", "org_id", "Req.org_id", "TENANT_ID") + "\n" +
				w + identityWarning("17:3", "do", "organizationId", "Req.organizationId", "TENANT_ID") + "\n" +
				w + identityWarning("18:3", "do", "principal_id", "Req.principal_id", "PRINCIPAL_ID") + "\n" +
				w + identityWarning("19:3", "do", "userId", "Req.userId", "PRINCIPAL_ID") + "\n" +
				w + identityWarning("20:3", "do", "owner_id", "Req.owner_id", "PRINCIPAL_ID") + "\n",
		},
		{
			name: "nested message, hidden = false",
			src: service + `
message Item {
  string user_id = 1 [(mcpwrite.v1.field).hidden = false];
  string name = 2;
}
message Req {
  repeated Item items = 1;
}`,
			want: w + identityWarning("15:3", "do", "items[].user_id", "Item.user_id", "PRINCIPAL_ID") + "\n",
		},
		{
			name: "an explicit agent annotation states the intent",
			src: service + `
message Req {
  string owner_id = 1 [(mcpwrite.v1.field).agent = {}];
  string user_id = 2 [(mcpwrite.v1.field).agent = {required: true}];
}`,
		},
		{
			name: "derived and hidden fields are the server's",
			src: service + `
message Req {
  string tenant_id = 1 [(mcpwrite.v1.field).derived = {context: TENANT_ID}];
  string principal_id = 2 [(mcpwrite.v1.field).derived = {context: PRINCIPAL_ID}];
  string org_id = 3 [(mcpwrite.v1.field).hidden = true];
}`,
		},
		{
			name: "names that only resemble an identity",
			src: service + `
message Req {
  string tenant_name = 1;
  string user = 2;
  string owner = 3;
  string user_ids = 4;
}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := lintIDsWarnings(t, tc.src); got != tc.want {
				t.Errorf("warnings:\n got: %q\nwant: %q", got, tc.want)
			}
		})
	}
}

func TestStrictTurnsTheIdentityWarningIntoAnError(t *testing.T) {
	src := service + `
message Req {
  string tenant_id = 1;
  string name = 2;
}`
	got, files := generate(t, src, "strict=true")
	if want := identityWarning("15:3", "do", "tenant_id", "Req.tenant_id", "TENANT_ID"); got != want || files != 0 {
		t.Errorf("strict: error %q and %d files; want %q and none", got, files, want)
	}
	src = service + `
message Req {
  string tenant_id = 1 [(mcpwrite.v1.field).agent = {}];
  string name = 2;
}`
	if got, files := generate(t, src, "strict=true"); got != "" || files == 0 {
		t.Errorf("strict with an explicit agent annotation: error %q and %d files; want none and the files", got, files)
	}
}
