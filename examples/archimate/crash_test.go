package archimate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// crashServer is one archimate-server process on PostgreSQL over
// streamable HTTP.
type crashServer struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
}

func startCrashServer(t *testing.T, bin, dsn, prefix, crashAt string) *crashServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "-http", addr, "-postgres", dsn, "-pg-prefix", prefix, "-lease", "1s")
	cmd.Env = append(os.Environ(), "MCPWRITE_CRASH_AT="+crashAt)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &crashServer{cmd: cmd, url: "http://" + addr, stderr: &stderr}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not listen on %s: %s", addr, stderr.String())
		}
	}
}

// callOnce opens a session and calls createElement with key.
func (s *crashServer) callOnce(key string) (map[string]any, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "crash-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Timeout: 10 * time.Second}, MaxRetries: -1}, nil)
	if err != nil {
		return nil, false, err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "createElement",
		Arguments: json.RawMessage(`{"type":"Node","name":"db-crash","description":"d","client_request_id":"` + key + `"}`)})
	if err != nil {
		return nil, false, err
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out, res.IsError, nil
}

// At every point of a keyed write the process is killed (SIGKILL); after a
// restart the retry of the key either replays the committed answer or
// executes once, and the database (not the responses) holds exactly one
// element, one outbox row and one completed key: no duplicate, no loss, no
// key wedged past its 1 s lease.
func TestKillNineAtEveryPointOfAKeyedWrite(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run the crash tests against PostgreSQL")
	}
	bin := filepath.Join(t.TempDir(), "archimate-server")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/archimate-server").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for _, tt := range []struct {
		point      string
		wantReplay bool // the write committed before the crash: the retry replays it
	}{
		{"before-claim", false},
		{"after-claim", false},
		{"inside-tx", false},
		{"after-commit", true},
	} {
		t.Run(tt.point, func(t *testing.T) {
			prefix := fmt.Sprintf("crash_%s_%d", strings.ReplaceAll(tt.point, "-", "_"), time.Now().UnixNano()%1e9)
			t.Cleanup(func() {
				_, _ = pool.Exec(context.Background(), fmt.Sprintf("DROP TABLE IF EXISTS %[1]s_state, %[1]s_outbox, %[1]s_idem, %[1]s_proposals CASCADE", prefix))
			})
			first := startCrashServer(t, bin, dsn, prefix, tt.point)
			if out, _, err := first.callOnce("key-1"); err == nil {
				t.Fatalf("the call returned %v, but the process was to be killed at %s", out, tt.point)
			}
			if err := first.cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("process exit: %v; stderr: %s", err, first.stderr.String())
			}

			second := startCrashServer(t, bin, dsn, prefix, "")
			var out map[string]any
			var isErr bool
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				out, isErr, err = second.callOnce("key-1")
				if err != nil {
					t.Fatalf("retry: %v", err)
				}
				code, _ := func() (string, bool) {
					e, ok := out["error"].(map[string]any)
					if !ok {
						return "", false
					}
					c, ok := e["code"].(string)
					return c, ok
				}()
				if !isErr || code != "IDEMPOTENCY_IN_PROGRESS" || time.Now().After(deadline) {
					break
				}
			}
			if isErr || out["success"] != true {
				t.Fatalf("retry: %v", out)
			}
			if replay := out["idempotent_replay"] == true; replay != tt.wantReplay {
				t.Fatalf("retry replayed = %v, want %v: %v", replay, tt.wantReplay, out)
			}
			var elements, outbox, completed int
			ctx := context.Background()
			if err := pool.QueryRow(ctx, fmt.Sprintf(`SELECT coalesce(jsonb_array_length(state->'elements'), 0) FROM %s_state WHERE tenant = 'tenant-dev'`, prefix)).Scan(&elements); err != nil {
				t.Fatal(err)
			}
			if err := pool.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s_outbox`, prefix)).Scan(&outbox); err != nil {
				t.Fatal(err)
			}
			if err := pool.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s_idem WHERE state = 2`, prefix)).Scan(&completed); err != nil {
				t.Fatal(err)
			}
			if elements != 1 || outbox != 1 || completed != 1 {
				t.Fatalf("database after crash at %s and retry: %d elements, %d outbox rows, %d completed keys; want 1, 1, 1", tt.point, elements, outbox, completed)
			}
			t.Logf("kill -9 %s: 1 run, 0 duplicates, 0 losses (replayed: %v)", tt.point, tt.wantReplay)
		})
	}
}
