package runtime_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// NewPreparer takes only PreparerOptions: an option only a tool call uses
// (WithObserver, WithPolicy, ...) does not compile there instead of being
// silently ignored, and a []runtime.Option cannot be spread into it, while
// Register keeps taking every option. testdata/preparer_options must fail
// to build with exactly these errors.
func TestPreparerRefusesRegisterOnlyOptionsAtCompileTime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "build", "-o", os.DevNull, "./testdata/preparer_options").CombinedOutput()
	if err == nil {
		t.Fatal("testdata/preparer_options compiled; NewPreparer accepts an option it ignores")
	}
	const rt = `"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"`
	want := []string{
		"main.go:28:34: cannot use runtime.WithObserver(nil) (value of interface type " + rt + ".Option) as " + rt + ".PreparerOption value in argument to runtime.NewPreparer: " + rt + ".Option does not implement " + rt + ".PreparerOption (missing method preparerOption)",
		"main.go:29:72: cannot use runtime.WithPolicy(nil) (value of interface type " + rt + ".Option) as " + rt + ".PreparerOption value in argument to runtime.NewPreparer: " + rt + ".Option does not implement " + rt + ".PreparerOption (missing method preparerOption)",
		"main.go:31:34: cannot use opts (variable of type []" + rt + ".Option) as []" + rt + ".PreparerOption value in argument to runtime.NewPreparer",
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(line, "# ") {
			continue
		}
		if i := strings.Index(line, "main.go:"); i >= 0 {
			line = line[i:]
		}
		got = append(got, line)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("go build errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
