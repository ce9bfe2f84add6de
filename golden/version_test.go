package golden

import (
	"os"
	"regexp"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

func TestPluginVersionMatchesRuntime(t *testing.T) {
	if gen.Version != runtime.Version {
		t.Fatalf("plugin version %s, runtime version %s: generated code would claim a runtime it was not built for", gen.Version, runtime.Version)
	}
}

// The changelog's newest release is the version the plugin and the runtime
// report.
func TestChangelogNamesTheVersion(t *testing.T) {
	b, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## (\S+)`).FindSubmatch(b)
	if m == nil || string(m[1]) != runtime.Version {
		t.Fatalf("CHANGELOG.md's newest release heading %q, want %s", m, runtime.Version)
	}
}
