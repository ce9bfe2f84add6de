package archimate_test

import (
	"os"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// TestMain scans every answer of every test of the package for the tenant
// and principal IDs the tests' request contexts carry: no preview, dry
// run, proposal, confirmation or error may show them to an agent.
func TestMain(m *testing.M) {
	mcptest.ForbidInAnswers(
		"tenant-acme", "tenant-fuzz", "tenant-a", "tenant-b", "tenant-mw", "tenant-globex",
		"tenant-stdio", "tenant-restart", "tenant-evil", "tenant-bad", "tenant-dev",
		"user-ada", "user-fuzz", "user-1", "user-2", "user-mw", "user-hank", "user-bob",
		"user-stdio", "user-dev",
	)
	code := m.Run()
	removeServerBinary()
	os.Exit(code)
}
