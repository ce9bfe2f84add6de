package runtime_test

import (
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Answers spell a classification as the service spells enum values: lower
// snake case for enum_output LOWER_SNAKE, the canonical name for every
// other choice and for none (the classification's alias, upper snake and
// proto name are all the canonical name).
func TestClassificationIsSpelledByTheServiceEnumOutput(t *testing.T) {
	for _, tt := range []struct{ output, in, want string }{
		{"", "SAFE_CREATE", "SAFE_CREATE"},
		{"ALIAS", "DESTRUCTIVE_DELETE", "DESTRUCTIVE_DELETE"},
		{"PROTO_NAME", "SAFE_UPDATE", "SAFE_UPDATE"},
		{"UPPER_SNAKE", "DESTRUCTIVE_UPDATE", "DESTRUCTIVE_UPDATE"},
		{"LOWER_SNAKE", "SAFE_CREATE", "safe_create"},
		{"LOWER_SNAKE", "SAFE_UPDATE", "safe_update"},
		{"LOWER_SNAKE", "DESTRUCTIVE_UPDATE", "destructive_update"},
		{"LOWER_SNAKE", "DESTRUCTIVE_DELETE", "destructive_delete"},
		{"LOWER_SNAKE", "READ_ONLY", "read_only"},
	} {
		if got := runtime.ClassificationForTest(tt.output, tt.in); got != tt.want {
			t.Errorf("enum_output %q: %s spelled %q; want %q", tt.output, tt.in, got, tt.want)
		}
	}
}
