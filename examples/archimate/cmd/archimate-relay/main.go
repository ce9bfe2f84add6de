// Command archimate-relay delivers the facts of the reference server's
// committed writes: it reads the outbox table archimate-server -postgres
// fills (<prefix>_outbox) and publishes each row to a Redis stream, at least
// once, in (txid, id) order (see package runtime/outbox for exactly what
// that order guarantees), then marks it delivered. Each stream entry names
// its fact (ElementCreated, RelationshipCreated, ...) and carries the
// outbox id consumers deduplicate by; archimate-facts is such a consumer.
//
// Run it next to the servers; several relays may run at once (one
// publishes, the others take over when it goes away).
//
//	archimate-relay -postgres postgres://... -redis 127.0.0.1:6379
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox/redisstream"
)

// DefaultStream is the stream of the reference server's facts.
const DefaultStream = "archimate:facts"

// factNames names the fact each write tool's committed write emits.
var factNames = map[string]string{
	"createElement":             "ElementCreated",
	"createRelationship":        "RelationshipCreated",
	"updateElement":             "ElementUpdated",
	"deleteElement":             "ElementDeleted",
	"createCapability":          "CapabilityCreated",
	"createCapabilityStructure": "CapabilityStructureCreated",
	"addComponentToCapability":  "ComponentAddedToCapability",
	// A batch import commits one row per item written, each holding the
	// createElement request and answer of that item.
	"createElements": "ElementImported",
}

// FactName is the fact of a tool's committed write; a tool this relay does
// not know (a newer server) keeps its tool name, so nothing is dropped.
func FactName(tool string) string {
	if f, ok := factNames[tool]; ok {
		return f
	}
	return tool
}

type config struct {
	dsn, redisAddr, prefix, stream, perTenant string
	batch, waitReplicas                       int
	poll, backlogEvery, waitTimeout           time.Duration
	maxLen                                    int64
}

func main() {
	var c config
	flag.StringVar(&c.dsn, "postgres", "", "PostgreSQL DSN of the servers' database (required)")
	flag.StringVar(&c.redisAddr, "redis", "", "Redis address to publish to (required)")
	flag.StringVar(&c.prefix, "pg-prefix", "archimate", "table prefix the servers use (-pg-prefix of archimate-server): the relay reads <prefix>_outbox")
	flag.StringVar(&c.stream, "stream", DefaultStream, "stream every fact goes to")
	flag.StringVar(&c.perTenant, "stream-per-tenant", "", "instead of -stream, send each tenant's facts to <this prefix><tenant>")
	flag.IntVar(&c.batch, "batch", outbox.DefaultBatchSize, "rows per batch")
	flag.DurationVar(&c.poll, "poll", outbox.DefaultPollInterval, "wait between batches when the outbox is drained")
	flag.Int64Var(&c.maxLen, "maxlen", 0, "trim each stream to about this many entries (0: keep all)")
	flag.IntVar(&c.waitReplicas, "wait-replicas", 0, "count a batch as published only once this many Redis replicas acknowledged it (WAIT)")
	flag.DurationVar(&c.waitTimeout, "wait-timeout", time.Second, "with -wait-replicas: how long to wait for them")
	flag.DurationVar(&c.backlogEvery, "backlog-every", 30*time.Second, "log the undelivered backlog this often (0: never)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, log); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "archimate-relay:", err)
		os.Exit(1)
	}
}

// run relays until ctx ends.
func run(ctx context.Context, c config, log *slog.Logger) error {
	if c.dsn == "" || c.redisAddr == "" {
		return errors.New("-postgres and -redis are required")
	}
	pool, err := pgxpool.New(ctx, c.dsn)
	if err != nil {
		return fmt.Errorf("-postgres: %w", err)
	}
	defer pool.Close()
	rdb := redis.NewClient(&redis.Options{Addr: c.redisAddr})
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("-redis %s: %w", c.redisAddr, err)
	}
	popts := []redisstream.Option{redisstream.WithStream(c.stream), redisstream.WithMaxLen(c.maxLen)}
	if c.waitReplicas > 0 {
		popts = append(popts, redisstream.WithWaitReplicas(c.waitReplicas, c.waitTimeout))
	}
	if c.perTenant != "" {
		popts = append(popts, redisstream.WithStreamPerTenant(c.perTenant))
	}
	relay, err := outbox.New(pool, c.prefix+"_outbox", redisstream.New(rdb, popts...),
		outbox.WithBatchSize(c.batch), outbox.WithPollInterval(c.poll), outbox.WithFactName(FactName), outbox.WithLogger(log))
	if err != nil {
		return err
	}
	if err := relay.Check(ctx); err != nil {
		return err
	}
	if c.backlogEvery > 0 {
		go reportBacklog(ctx, relay, c.backlogEvery, log)
	}
	log.Info("archimate-relay: publishing", "table", relay.Table(), "stream", c.stream, "stream_per_tenant", c.perTenant)
	return relay.Run(ctx)
}

// reportBacklog logs what waits to be delivered: the figures to alert on.
func reportBacklog(ctx context.Context, relay *outbox.Relay, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b, err := relay.Backlog(ctx)
			if err != nil {
				log.Error("archimate-relay: backlog", "error", err)
				continue
			}
			log.Info("archimate-relay: backlog", "undelivered", b.Undelivered, "oldest_age", b.OldestAge.Round(time.Millisecond))
		}
	}
}
