package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox/redisstream"
)

func newStream(t *testing.T) (*redis.Client, string) {
	t.Helper()
	addr := os.Getenv("MCPWRITE_TEST_REDIS_ADDR")
	if addr == "" {
		t.Skip("set MCPWRITE_TEST_REDIS_ADDR to follow a Redis stream")
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	key := fmt.Sprintf("mcpwrite-test:facts:%d:%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { rdb.Del(context.Background(), key); rdb.Close() })
	return rdb, key
}

// The stream holds what a relay killed after publishing leaves: the first
// two facts twice. Each fact is printed once, in order.
func TestFollowPrintsEachFactOnce(t *testing.T) {
	ctx := context.Background()
	rdb, key := newStream(t)
	at := time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)
	msg := func(id int64, txid uint64, fact string) outbox.Message {
		return outbox.Message{ID: id, TxID: txid, Tenant: "tenant-acme", Tool: "createElement", Fact: fact,
			Request: []byte(`{"name":"N` + fmt.Sprint(id) + `"}`), Response: []byte(`{"ok":true}`), CreatedAt: at}
	}
	pub := redisstream.New(rdb, redisstream.WithStream(key))
	first := []outbox.Message{msg(9, 100, "ElementCreated"), msg(4, 101, "ElementCreated")}
	for _, batch := range [][]outbox.Message{first, first, {msg(4, 101, "ElementCreated"), msg(5, 102, "ElementUpdated")}} {
		if err := pub.Publish(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	f := follower{rdb: rdb, stream: key, from: "0", block: 100 * time.Millisecond}
	if err := f.follow(ctx, 3, &out); err != nil {
		t.Fatal(err)
	}
	want := `{"fact":"ElementCreated","outbox_id":9,"txid":100,"tenant":"tenant-acme","tool":"createElement","request":{"name":"N9"},"response":{"ok":true},"created_at":"2026-11-27T05:00:00Z"}
{"fact":"ElementCreated","outbox_id":4,"txid":101,"tenant":"tenant-acme","tool":"createElement","request":{"name":"N4"},"response":{"ok":true},"created_at":"2026-11-27T05:00:00Z"}
{"fact":"ElementUpdated","outbox_id":5,"txid":102,"tenant":"tenant-acme","tool":"createElement","request":{"name":"N5"},"response":{"ok":true},"created_at":"2026-11-27T05:00:00Z"}
`
	if out.String() != want || f.copies != 3 {
		t.Fatalf("printed (copies dropped %d):\n%s\nwant (3 copies dropped):\n%s", f.copies, out.String(), want)
	}
}

func TestFollowStopsAtAForeignEntry(t *testing.T) {
	ctx := context.Background()
	rdb, key := newStream(t)
	id, err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"hello", "world"}}).Result()
	if err != nil {
		t.Fatal(err)
	}
	f := follower{rdb: rdb, stream: key, from: "0", block: 100 * time.Millisecond}
	want := "redisstream: entry " + id + " has no outbox_id field: not an outbox message"
	if err := f.follow(ctx, 1, &bytes.Buffer{}); err == nil || err.Error() != want {
		t.Fatalf("follow = %v\nwant %s", err, want)
	}
}
