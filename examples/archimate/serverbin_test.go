package archimate_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// serverBin is cmd/archimate-server, built by the first test that needs it
// and run by every test of the package that starts the server as a process
// (it does not change between them); TestMain removes it.
var serverBin struct {
	once      sync.Once
	dir, path string
	out       []byte
	err       error
}

// serverBinary builds cmd/archimate-server once per test binary and returns
// its path.
func serverBinary(t *testing.T) string {
	t.Helper()
	serverBin.once.Do(func() {
		serverBin.dir, serverBin.err = os.MkdirTemp("", "archimate-server-")
		if serverBin.err != nil {
			return
		}
		serverBin.path = filepath.Join(serverBin.dir, "archimate-server")
		serverBin.out, serverBin.err = exec.Command("go", "build", "-ldflags=-s -w", "-o", serverBin.path, "./cmd/archimate-server").CombinedOutput()
	})
	if serverBin.err != nil {
		t.Fatalf("build: %v\n%s", serverBin.err, serverBin.out)
	}
	return serverBin.path
}

// removeServerBinary removes what serverBinary built.
func removeServerBinary() {
	if serverBin.dir != "" {
		os.RemoveAll(serverBin.dir)
	}
}
