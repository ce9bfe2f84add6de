package golden

import (
	"os"
	"regexp"
	"strconv"
	"strings"
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
// report; an "Unreleased" section above it lists what the next one adds.
func TestChangelogNamesTheVersion(t *testing.T) {
	b, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	var newest []byte
	for _, m := range regexp.MustCompile(`(?m)^## (\S+)`).FindAllSubmatch(b, -1) {
		if string(m[1]) != "Unreleased" {
			newest = m[1]
			break
		}
	}
	if string(newest) != runtime.Version {
		t.Fatalf("CHANGELOG.md's newest release heading %q, want %s", newest, runtime.Version)
	}
}

// Generated code asserts at compile time that the runtime it links is at
// least the version it names; the runtime defines that assertion for its own
// version (each release adds one and never removes an older one), and the
// plugin names a version no newer than itself.
func TestGeneratedCodeAssertsARuntimeVersion(t *testing.T) {
	src, err := os.ReadFile("../runtime/version.go")
	if err != nil {
		t.Fatal(err)
	}
	own := "IsAtLeastVersion" + strings.ReplaceAll(runtime.Version, ".", "_")
	if !regexp.MustCompile(`(?m)^const ` + own + ` = true$`).Match(src) {
		t.Fatalf("runtime/version.go does not define %s for runtime.Version %s", own, runtime.Version)
	}
	gen, err := os.ReadFile("../examples/archimate/gen/archimate/v1/archimatev1mcpwrite/archimate.mcpwrite.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const _ = runtime\.IsAtLeastVersion(\d+)_(\d+)_(\d+)$`).FindSubmatch(gen)
	if m == nil {
		t.Fatal("generated code asserts no runtime version")
	}
	named := string(m[1]) + "." + string(m[2]) + "." + string(m[3])
	if compareVersions(named, runtime.Version) > 0 {
		t.Fatalf("generated code asserts runtime %s, newer than the plugin's %s", named, runtime.Version)
	}
}

func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range 3 {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x - y
		}
	}
	return 0
}
