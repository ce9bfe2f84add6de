package plugintest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The fixed directory is emptied when taken, a second taker while it is
// held gets its own temporary directory, and release removes each.
func TestCompileDir(t *testing.T) {
	parent := t.TempDir()
	want := filepath.Join(parent, "compile-cache")
	if err := os.MkdirAll(filepath.Join(want, "stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, release, err := CompileDir(parent, "compile-cache")
	if err != nil {
		t.Fatal(err)
	}
	flock := runtime.GOOS == "linux" || runtime.GOOS == "darwin"
	if flock {
		if dir != want {
			t.Fatalf("dir = %s, want %s", dir, want)
		}
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
			t.Fatalf("dir holds %v (%v), want it emptied", entries, err)
		}
	}
	other, releaseOther, err := CompileDir(parent, "compile-cache")
	if err != nil {
		t.Fatal(err)
	}
	if other == dir || !strings.HasPrefix(filepath.Base(other), "compile-cache-") {
		t.Fatalf("second taker got %s while %s is held; want a compile-cache-* temporary directory", other, dir)
	}
	releaseOther()
	release()
	for _, d := range []string{dir, other} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Fatalf("%s after release: %v, want it removed", d, err)
		}
	}
	if flock {
		again, releaseAgain, err := CompileDir(parent, "compile-cache")
		if err != nil {
			t.Fatal(err)
		}
		defer releaseAgain()
		if again != want {
			t.Fatalf("after release: dir = %s, want %s again", again, want)
		}
	}
}
