package gen_test

import (
	"strings"
	"testing"
)

// Under expose: ALL an unannotated enum whose derived aliases collide
// (CHECK_BOX and CHECKBOX both become CheckBox) leaves out the method whose
// request reaches it, and answers that carry it spell its proto value names;
// the clean method generates.
func TestExposeAllConfinesACollidingEnum(t *testing.T) {
	src := `
service S {
  option (mcpwrite.v1.service) = {expose: ALL};
  // Sets a control.
  rpc SetControl(SetControlRequest) returns (Control);
  // Gets a control.
  rpc GetControl(GetControlRequest) returns (Control);
}
enum ControlType { CONTROL_TYPE_UNSPECIFIED = 0; CHECK_BOX = 1; CHECKBOX = 2; }
message Control { string name = 1; ControlType type = 2; }
message SetControlRequest { string name = 1; ControlType type = 2; }
message GetControlRequest { string name = 1; }
`
	errText, warn, tools := generateWarn(t, src)
	if errText != "" {
		t.Fatalf("generation failed: %s", errText)
	}
	want := `protoc-gen-mcpwrite: warning: bad.proto:12:3: method bad.v1.S.SetControl left out: bad.proto:16:1: enum bad.v1.ControlType: alias or synonym "Checkbox" of CHECKBOX collides with CHECK_BOX; give CHECKBOX an alias of its own, e.g. [(mcpwrite.v1.value).alias = "CHECKBOX"], or drop the synonym; to leave it out without this warning add option (mcpwrite.v1.tool) = {omit: true}; to the method
protoc-gen-mcpwrite: warning: service bad.v1.S: answers spell bad.v1.ControlType as its proto value names: bad.proto:16:1: enum bad.v1.ControlType: alias or synonym "Checkbox" of CHECKBOX collides with CHECK_BOX; give CHECKBOX an alias of its own, e.g. [(mcpwrite.v1.value).alias = "CHECKBOX"], or drop the synonym; to choose agent aliases annotate the enum with (mcpwrite.v1.enum) and its values with (mcpwrite.v1.value)
`
	if warn != want {
		t.Errorf("warnings:\n got: %s\nwant: %s", warn, want)
	}
	if got := strings.Join(tools, ","); got != "get_control" {
		t.Errorf("tools: %s, want get_control", got)
	}
}
