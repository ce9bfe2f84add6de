package neotoma_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// flaky is the memory with a store that fails, when told to, the way a
// database can.
type flaky struct {
	*domain.Memory
	fail atomic.Bool
}

func (f *flaky) Store(ctx context.Context, req *neotomav1.StoreRequest) (*neotomav1.StoreResponse, error) {
	if f.fail.Load() {
		return nil, errors.New("insert into sources: connection reset by peer")
	}
	return f.Memory.Store(ctx, req)
}

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The document's constraint "No PII in error messages or logs", for the
// logs: a session that stores personal data, sends values the server
// refuses, has a merge proposed, a forged file URL refused and a storage
// failure logs at every level without any value an agent sent.
func TestLogsCarryNoStoredValues(t *testing.T) {
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	mem := &flaky{Memory: domain.New(func() time.Time { return fixedNow })}
	srv := mcp.NewServer(&mcp.Implementation{Name: "neotoma", Version: "test"}, nil)
	err := neotomav1mcpwrite.RegisterMemoryServiceTools(srv, mem,
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithRand(rand.NewChaCha8([32]byte{7})),
		runtime.WithLogger(logger),
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithVocabulary(mem.EntityTypeVocabulary()),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(ada)))
	if err != nil {
		t.Fatal(err)
	}
	domain.AddFileResource(srv, mem.Memory, func(context.Context, *mcp.ReadResourceRequest) (string, string, bool) {
		return ada.TenantID, ada.PrincipalID, true
	}, logger)
	cs := mcptest.Connect(t, srv, mcptest.Options{})
	personal := []string{"Ada Lovelace", "ada@example.org", "+44 20 7946 0000", "Acme Supplies", "1250.5", "EUR 1,300", "ada at example"}
	for _, c := range []struct{ tool, args string }{
		{"store", `{"entities":[{"entity_type":"person","name":"Ada Lovelace","email":"ada@example.org","phone":"+44 20 7946 0000"},{"entity_type":"person","canonical_name":"A. Lovelace","email":"ada@example.org"}]}`},
		{"store", invoiceArgs},
		{"correct", `{"entity_id":"` + invoiceID + `","entity_type":"invoice","field":"amount","value":"EUR 1,300"}`},
		{"register_schema", `{"entity_type":"member","schema_definition":{"fields":{"email":{"type":"string","validator":"email"}}},"reducer_config":{},"activate":true}`},
		{"store", `{"entities":[{"entity_type":"member","email":"ada at example"}]}`},
		{"merge_entities", `{"from_entity_id":"` + entityID("user-ada", "person", "a. lovelace") + `","to_entity_id":"` + entityID("user-ada", "person", "email=ada@example.org") + `"}`},
	} {
		mcptest.Call(t, cs, c.tool, c.args)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "neotoma://files/src_1?expires=1&sig=ab"}); err == nil {
		t.Error("a forged file URL was read")
	}
	mem.fail.Store(true)
	if r := mcptest.Call(t, cs, "store", `{"entities":[{"entity_type":"person","name":"Ada Lovelace","email":"ada@example.org"}]}`); !r.IsError {
		t.Errorf("failing store = %s", r.Text)
	}
	got := logs.String()
	for _, want := range []string{"neotoma: signed file URL refused", "mcpwrite: internal error"} {
		if !strings.Contains(got, want) {
			t.Errorf("logs lack %q:\n%s", want, got)
		}
	}
	for _, v := range personal {
		if strings.Contains(got, v) {
			t.Errorf("logs carry %q:\n%s", v, got)
		}
	}
}
