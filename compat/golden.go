package compat

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// UpdateEnv is the environment variable that makes CheckGolden record the
// current surface as the new golden one: MCPWRITE_UPDATE_SURFACE=1 go test.
const UpdateEnv = "MCPWRITE_UPDATE_SURFACE"

// TB is the part of testing.TB that CheckGolden uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// CheckGolden keeps a capability's tool surface under a golden test: it
// compares the generated document at current with the committed one at
// golden and fails the test on any difference, listing each change as
// breaking or compatible, so a reviewer sees what agents already prompted
// with the recorded surface would meet. With MCPWRITE_UPDATE_SURFACE=1 it
// records current as the golden document instead (and still lists the
// changes).
//
//	func TestToolSurface(t *testing.T) {
//		compat.CheckGolden(t, "testdata/booking.mcpwrite.json", "gen/booking/v1/bookingv1mcpwrite/booking.mcpwrite.json")
//	}
func CheckGolden(t TB, golden, current string) {
	t.Helper()
	cur, err := os.ReadFile(current)
	if err != nil {
		t.Errorf("tool surface: %v", err)
		return
	}
	update := os.Getenv(UpdateEnv) == "1"
	old, err := os.ReadFile(golden)
	switch {
	case errors.Is(err, fs.ErrNotExist) && update:
		if err := write(golden, cur); err != nil {
			t.Errorf("tool surface: %v", err)
			return
		}
		t.Logf("tool surface: recorded %s", golden)
		return
	case errors.Is(err, fs.ErrNotExist):
		t.Errorf("tool surface: no golden document %s; record it with %s=1 go test", golden, UpdateEnv)
		return
	case err != nil:
		t.Errorf("tool surface: %v", err)
		return
	}
	if bytes.Equal(old, cur) {
		return
	}
	changes, err := Compare(old, cur)
	if err != nil {
		t.Errorf("tool surface: %v", err)
		return
	}
	report := Report(changes)
	if update {
		if err := write(golden, cur); err != nil {
			t.Errorf("tool surface: %v", err)
			return
		}
		t.Logf("tool surface: recorded %s:\n%s", golden, report)
		return
	}
	if Breaking(changes) {
		t.Errorf("tool surface %s differs from %s and breaks agents prompted with it:\n%s\nkeep the old tool, field or value beside the new one; if the break is intended, record it with %s=1 go test",
			current, golden, report, UpdateEnv)
		return
	}
	t.Errorf("tool surface %s differs from %s, compatibly:\n%s\nrecord it with %s=1 go test", current, golden, report, UpdateEnv)
}

// Report is the changes one a line, or "no changes to the tools agents see"
// when the documents differ only in what agents are not shown.
func Report(changes []Change) string {
	if len(changes) == 0 {
		return "no changes to the tools agents see"
	}
	lines := make([]string, len(changes))
	for i, c := range changes {
		lines[i] = c.String()
	}
	return strings.Join(lines, "\n")
}

func write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("recording %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("recording %s: %w", path, err)
	}
	return nil
}
