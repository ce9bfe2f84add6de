package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// The test binary runs the plugin's main when asked to, so the tests below
// see what a user's shell sees.
func TestMain(m *testing.M) {
	if os.Getenv("MCPWRITE_RUN_PLUGIN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func plugin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MCPWRITE_RUN_PLUGIN_MAIN=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// The version the plugin prints is the runtime's: generated code and the
// runtime it links agree.
func TestVersionIsTheRuntimes(t *testing.T) {
	for _, arg := range []string{"--version", "-version"} {
		stdout, stderr, code := plugin(t, arg)
		if stdout != "protoc-gen-mcpwrite "+runtime.Version+"\n" || stderr != "" || code != 0 {
			t.Errorf("%s: stdout %q, stderr %q, exit %d", arg, stdout, stderr, code)
		}
	}
}

func TestRefusesArguments(t *testing.T) {
	stdout, stderr, code := plugin(t, "booking.proto")
	if stdout != "" || stderr != "protoc-gen-mcpwrite is a protoc plugin: run it through protoc or buf (or pass --version)\n" || code != 1 {
		t.Errorf("stdout %q, stderr %q, exit %d", stdout, stderr, code)
	}
}
