package mcpgoonly_test

import (
	"os"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// TestMain scans every answer of every test of the package for the tenant
// and principal IDs the tests and the server act as: no answer may show
// them to an agent.
func TestMain(m *testing.M) {
	mcptest.ForbidInAnswers("tenant-p", "user-p", "tenant-dev", "user-dev")
	os.Exit(m.Run())
}
