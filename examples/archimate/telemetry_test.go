package archimate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The server binary with -otel-stdout exports a span per tool call, the
// metrics and a log record (to standard error over stdio, where standard
// output carries the protocol), flushed when it stops.
func TestServerBinaryExportsTelemetry(t *testing.T) {
	bin := serverBinary(t)
	var stderr lockedBuffer
	cmd := exec.Command(bin, "-otel-stdout")
	cmd.Stderr = &stderr
	cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "otel-e2e", Version: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createElement", Arguments: json.RawMessage(`{"type":"Node","name":"db-1"}`)})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	out := stderr.String()
	for _, want := range []string{`"Name":"tools/call createElement"`, `"Key":"mcpwrite.outcome","Value":{"Type":"STRING","Value":"success"}`, `"Name":"mcpwrite.tool.calls"`, `"msg":"mcp tool call","tool":"createElement","outcome":"success"`} {
		if !strings.Contains(out, want) {
			t.Errorf("telemetry lacks %s:\n%.2000s", want, out)
		}
	}
}
