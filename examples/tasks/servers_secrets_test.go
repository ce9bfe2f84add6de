package tasks_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Every example server besides archimate (which has its own test) takes the
// id secret and the confirmation signing key by the one rule of
// runtime/secret: from -id-secret-file / MCPWRITE_ID_SECRET and
// -signing-key-file / MCPWRITE_SIGNING_KEY, weak values refused with the
// reason, missing ones reported with the fix.
func TestEveryExampleServerReadsItsSecretsByTheRule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binaries")
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(good, []byte("ef2d127de37b942baad06145e54b0c619a1f22327b2ebbcfbec78f5564afe39d\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, []byte("0123456789abcdef0123456789abcde\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const fixKey = "write at least 32 random bytes (e.g. `openssl rand -hex 32`) to a file and pass -signing-key-file <file>, or set MCPWRITE_SIGNING_KEY"
	const fixID = "write at least 32 random bytes (e.g. `openssl rand -hex 32`) to a file and pass -id-secret-file <file>, or set MCPWRITE_ID_SECRET"
	names := []string{"crm-server", "purchasing-server", "tasks-server", "neotoma-server"}
	// One go command builds the four, linked in parallel, without the
	// symbol table and debug information nothing here reads.
	build := []string{"build", "-ldflags=-s -w", "-o", dir + string(filepath.Separator)}
	for _, name := range names {
		build = append(build, "github.com/mcpwrite/protoc-gen-mcpwrite/examples/"+strings.TrimSuffix(name, "-server")+"/cmd/"+name)
	}
	if out, err := exec.Command("go", build...).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(dir, name)
			refused := []struct {
				env  string
				args []string
				want string
			}{
				{"MCPWRITE_SIGNING_KEY=   ", nil, "signing key from MCPWRITE_SIGNING_KEY refused: it is only white space; " + fixKey},
				{"MCPWRITE_SIGNING_KEY=" + strings.Repeat("q", 32), nil, "signing key from MCPWRITE_SIGNING_KEY refused: it has only 1 distinct byte values, want at least 8: it is not random; " + fixKey},
				{"", []string{"-id-secret-file", short}, "ID secret from -id-secret-file " + short + " refused: it has 31 bytes, want at least 32; " + fixID},
				{"MCPWRITE_ID_SECRET=x", []string{"-id-secret-file", good}, "ID secret: both -id-secret-file and MCPWRITE_ID_SECRET are set; set one"},
			}
			for _, c := range refused {
				cmd := exec.Command(bin, c.args...)
				cmd.Env = []string{"PATH=/usr/bin:/bin", c.env}
				out, err := cmd.CombinedOutput()
				if _, exited := err.(*exec.ExitError); !exited || !strings.HasSuffix(string(out), c.want+"\n") {
					t.Errorf("%q %v: %v, output %q; want an exit with ...%q", c.env, c.args, err, out, c.want)
				}
			}
			// With both secrets from files the server starts and serves.
			cmd := exec.Command(bin, "-id-secret-file", good, "-signing-key-file", good)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "agent", Version: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			cs.Close()
			if strings.Contains(stderr.String(), "ID secret not set") || strings.Contains(stderr.String(), "signing key not set") {
				t.Errorf("notices although both secrets were given: %s", stderr.String())
			}
		})
	}
}
