package golden

import (
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

func TestPluginVersionMatchesRuntime(t *testing.T) {
	if gen.Version != runtime.Version {
		t.Fatalf("plugin version %s, runtime version %s: generated code would claim a runtime it was not built for", gen.Version, runtime.Version)
	}
}
