// Command archimate-facts follows the facts archimate-relay publishes and
// prints each one once, as a JSON line, dropping the copies an
// at-least-once relay may publish (by outbox position: the outbox id and
// its transaction id).
//
//	archimate-facts -redis 127.0.0.1:6379 [-stream archimate:facts] [-from 0] [-count N]
//
// A consumer that must not apply a fact twice across its own restarts
// stores the last position (printed as "txid" and "outbox_id") together
// with its effect, in one transaction, and starts from it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox/redisstream"
)

func main() {
	addr := flag.String("redis", "", "Redis address (required)")
	stream := flag.String("stream", "archimate:facts", "stream to follow")
	from := flag.String("from", "0", "stream entry id to start after (0: the beginning, $: only new entries)")
	count := flag.Int("count", 0, "exit after this many facts (0: follow for ever)")
	flag.Parse()
	if *addr == "" {
		fmt.Fprintln(os.Stderr, "archimate-facts: -redis is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: *addr})
	defer rdb.Close()
	f := follower{rdb: rdb, stream: *stream, from: *from, block: 5 * time.Second}
	if err := f.follow(ctx, *count, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "archimate-facts:", err)
		os.Exit(1)
	}
}

// fact is one printed line.
type fact struct {
	Fact      string          `json:"fact"`
	OutboxID  int64           `json:"outbox_id"`
	TxID      uint64          `json:"txid"`
	Tenant    string          `json:"tenant"`
	Tool      string          `json:"tool"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	CreatedAt time.Time       `json:"created_at"`
}

type follower struct {
	rdb    *redis.Client
	stream string
	from   string
	block  time.Duration
	dedup  redisstream.Dedup
	copies int // copies dropped
}

// follow prints new facts to out until count were printed (0: until ctx
// ends). An entry that is not an outbox message stops it with the reason.
func (f *follower) follow(ctx context.Context, count int, out io.Writer) error {
	enc := json.NewEncoder(out)
	printed := 0
	for count == 0 || printed < count {
		res, err := f.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{f.stream, f.from}, Count: 100, Block: f.block}).Result()
		if errors.Is(err, redis.Nil) {
			continue // nothing new within the block time
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("read %s: %w", f.stream, err)
		}
		for _, s := range res {
			for _, e := range s.Messages {
				f.from = e.ID
				m, err := redisstream.Decode(e)
				if err != nil {
					return err
				}
				if !f.dedup.Take(m) {
					f.copies++
					continue
				}
				if err := enc.Encode(fact{m.Fact, m.ID, m.TxID, m.Tenant, m.Tool, m.Request, m.Response, m.CreatedAt}); err != nil {
					return err
				}
				if printed++; count > 0 && printed == count {
					return nil
				}
			}
		}
	}
	return nil
}
