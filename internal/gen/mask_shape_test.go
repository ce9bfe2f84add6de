package gen_test

import (
	"strings"
	"testing"
)

// An update whose resource cannot be found by AIP-134 shape (not one
// message field beside update_mask) would pass its mask to the handler
// unchecked: the plugin says so, at the update_mask field, with the fix.
func TestUpdateMaskWithoutOneResourceWarnsWithTheFix(t *testing.T) {
	src := `import "google/protobuf/field_mask.proto";
service S {
  rpc UpdateArticle(UpdateArticleRequest) returns (Resp) { option (mcpwrite.v1.tool) = {kind: UPDATE}; }
}
message Resp { string id = 1; }
message Draft { string title = 1; }
message Audit { string note = 1; }
message UpdateArticleRequest {
  Draft draft = 1;
  Audit audit = 2;
  google.protobuf.FieldMask update_mask = 3;
}`
	want := "protoc-gen-mcpwrite: warning: bad.proto:18:3: method bad.v1.S.UpdateArticle: tool update_article: update_mask has several message fields (draft, audit) beside it to check its paths against, so paths reach the handler unchecked; " +
		"keep exactly one message field beside update_mask (the resource), or name its message after the method: Article article = 1;\n"
	if got := lintIDsWarnings(t, src); got != want {
		t.Errorf("warnings:\n got: %q\nwant: %q", got, want)
	}
	// Under strict the warning is an error, and nothing is emitted.
	got, files := generate(t, src, "strict=true")
	if want := strings.TrimPrefix(strings.TrimSuffix(want, "\n"), "protoc-gen-mcpwrite: warning: "); got != want || files != 0 {
		t.Errorf("strict: error %q and %d files; want %q and none", got, files, want)
	}
}
