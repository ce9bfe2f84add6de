package layering

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// goSDK is the module path of github.com/modelcontextprotocol/go-sdk.
const goSDK = "github.com/modelcontextprotocol/go-sdk"

// goSDKDeps lists the go-sdk packages the build of patterns links (go list
// -deps, test files excluded), sorted.
func goSDKDeps(t *testing.T, patterns ...string) []string {
	t.Helper()
	return goSDKPackages(t, "", append([]string{"-deps"}, patterns...)...)
}

// goSDKPackages runs go list with the format (none: the import paths) and
// args, and returns the go-sdk packages it names, sorted.
func goSDKPackages(t *testing.T, format string, args ...string) []string {
	t.Helper()
	if format != "" {
		args = append([]string{"-f", format}, args...)
	}
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	found := []string{}
	for _, p := range strings.Fields(string(out)) {
		if p == goSDK || strings.HasPrefix(p, goSDK+"/") {
			found = append(found, p)
		}
	}
	slices.Sort(found)
	return found
}

// An mcp-go build links no go-sdk: package runtime, the generated code's
// runtime/mcpwriteimpl, the HTTP front and the mcp-go adapter, and the
// end-to-end server generated with sdk=mcp-go, list none of its packages.
// runtime/gosdk, the go-sdk adapter, does (the check can fail).
func TestAnMCPGoBuildLinksNoGoSDK(t *testing.T) {
	for _, p := range []string{
		"./runtime",
		"./runtime/mcpwriteimpl",
		"./runtime/httpfront",
		"./runtime/mcpgo",
		"./golden/e2e/mcpgoonly/...",
	} {
		if got := goSDKDeps(t, p); len(got) != 0 {
			t.Errorf("go list -deps %s links go-sdk: %s", p, strings.Join(got, " "))
		}
	}
	// The control: runtime/gosdk imports go-sdk's mcp package itself, and
	// its build links it.
	if got, want := goSDKPackages(t, "{{join .Imports \"\\n\"}}", "./runtime/gosdk"), []string{goSDK + "/mcp"}; !reflect.DeepEqual(got, want) {
		t.Errorf("runtime/gosdk imports %q of go-sdk, want %q", got, want)
	}
	if got := goSDKDeps(t, "./runtime/gosdk"); !slices.Contains(got, goSDK+"/mcp") {
		t.Errorf("go list -deps ./runtime/gosdk links %q of go-sdk, want its mcp package among them", got)
	}
}
