package neotoma_test

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// neotoma-server takes its file URL key by the secret rule and serves the
// URLs it signs as verified resources.
func TestServerSignsAndServesFileURLsWithItsKey(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary")
	}
	bin := filepath.Join(t.TempDir(), "neotoma-server")
	if out, err := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, "./cmd/neotoma-server").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "NEOTOMA_FILE_URL_KEY="+strings.Repeat("z", 40))
	out, err := cmd.CombinedOutput()
	const want = "file URL key from NEOTOMA_FILE_URL_KEY refused: it has only 1 distinct byte values, want at least 8: it is not random; write at least 32 random bytes (e.g. `openssl rand -hex 32`) to a file and pass -file-url-key-file <file>, or set NEOTOMA_FILE_URL_KEY\n"
	if _, exited := err.(*exec.ExitError); !exited || !strings.HasSuffix(string(out), want) {
		t.Fatalf("weak key: %v, %q; want an exit with ...%q", err, out, want)
	}

	keyFile := filepath.Join(t.TempDir(), "url-key")
	if err := os.WriteFile(keyFile, []byte("4e07408562bedb8b60ce05c1decfe3ad16b72230967de01f640b7e4729b49fce\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, "-file-url-key-file", keyFile)
	cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "agent", Version: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	stored := mcptest.Call(t, cs, "store", `{"file_content":"`+base64.StdEncoding.EncodeToString([]byte("hello file"))+`","mime_type":"text/plain"}`)
	src, _ := stored.Body["source_id"].(string)
	signed := mcptest.Call(t, cs, "retrieve_file_url", `{"file_path":"neotoma://files/`+src+`"}`)
	url, _ := signed.Body["signed_url"].(string)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: url})
	if err != nil || len(res.Contents) != 1 || string(res.Contents[0].Blob) != "hello file" {
		t.Fatalf("read %s: %v %+v", url, err, res)
	}
	tampered := strings.Replace(url, "expires=", "expires=1", 1)
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: tampered}); err == nil || !strings.Contains(err.Error(), "not a signed URL of one of your stored files") {
		t.Fatalf("tampered URL: %v", err)
	}
}
