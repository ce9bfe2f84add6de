// Command archimate-server serves the reference example's MCP write tools
// over stdio (default) or streamable HTTP (-http 127.0.0.1:8080).
//
// Over stdio every call acts as -tenant/-principal (a local, single-user
// tool). Over HTTP with -tokens (token=tenant:principal,...) each request
// authenticates with a bearer token and requests without a valid one get
// 401; without -tokens (local development) every call acts as
// -tenant/-principal. Origin is always checked against cross-site requests.
//
// Request-scoped ids (createRelationship, the template tools) are keyed with
// a secret: -id-secret-file, else the MCPWRITE_ID_SECRET environment
// variable, else a random secret per process. Confirmation round trips are
// signed with a key: -signing-key-file, else MCPWRITE_SIGNING_KEY, else a
// random key per process. Both are at least 32 random bytes (package
// runtime/secret refuses white space, short and patterned values). Give
// every instance and restart the same secrets; -postgres (stores shared by
// instances and restarts) and -stateless (any instance serves any request)
// refuse to start without them.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/pgdomain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/redisstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	proposalpg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/secret"
)

func main() { os.Exit(serve()) }

// serve runs the server until it stops and returns the exit code, after the
// telemetry exporters flushed.
func serve() (exitCode int) {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8080) instead of stdio")
	tenant := flag.String("tenant", "tenant-dev", "stdio: tenant of every call")
	principal := flag.String("principal", "user-dev", "stdio: principal of every call")
	tokens := flag.String("tokens", "", "HTTP: bearer tokens as token=tenant:principal, comma-separated (empty: every call acts as -tenant/-principal)")
	pgDSN := flag.String("postgres", "", "PostgreSQL DSN for the durable idempotency and proposal stores (empty: in memory)")
	redisAddr := flag.String("redis", "", "Redis address of the idempotency cache shared by instances (needs -postgres)")
	var secrets secret.Flags
	secrets.Register(flag.CommandLine)
	stateless := flag.Bool("stateless", false, "HTTP: serve without sessions, so a load balancer may send each request to any instance (needs -http, -postgres and the shared -id-secret-file and -signing-key-file)")
	pgPrefix := flag.String("pg-prefix", "", "with -postgres: name every table <prefix>_elements, _relationships, _properties, _outbox, _schema_migrations, _idem, _proposals (default: archimate_elements, ... and the stores' default tables)")
	lease := flag.Duration("lease", 0, "how long a claimed client_request_id stays in progress before a retry takes it over (default 30s)")
	applyLease := flag.Duration("apply-lease", 0, "with -postgres: how long a proposal's apply may run before another apply takes it over (default 2m; the one taken over cannot commit)")
	sdk := flag.String("sdk", "go-sdk", "the MCP SDK that serves the tools: go-sdk (the official modelcontextprotocol/go-sdk) or mcp-go (mark3labs/mcp-go through runtime/mcpgo; over HTTP always stateless)")
	otelStdout := flag.Bool("otel-stdout", false, "export OpenTelemetry traces and metrics of every tool call as JSON to standard output (standard error when serving stdio, whose standard output carries the protocol)")
	flag.Parse()
	if *sdk != "go-sdk" && *sdk != "mcp-go" {
		log.Fatalf("-sdk %q: want go-sdk or mcp-go", *sdk)
	}
	secretOpt, err := loadSecrets(&secrets, *stateless, *httpAddr, *pgDSN)
	if err != nil {
		log.Fatal(err)
	}
	repo, stores, err := durableStores(context.Background(), *pgDSN, *redisAddr, *pgPrefix, *applyLease)
	if err != nil {
		log.Fatal(err)
	}
	stores = append(stores, secretOpt)
	if *lease > 0 {
		stores = append(stores, runtime.WithIdempotency(runtime.IdempotencyOptions{Lease: *lease}))
	}
	if *otelStdout {
		out := os.Stdout
		if *httpAddr == "" {
			out = os.Stderr
		}
		opt, shutdown, err := stdoutTelemetry(out, 10*time.Second, slog.New(slog.NewJSONHandler(os.Stderr, nil)))
		if err != nil {
			log.Fatal(err)
		}
		defer func() { _ = shutdown(context.Background()) }()
		stores = append(stores, opt)
	}
	switch {
	case *sdk == "mcp-go":
		err = serveMCPGo(repo, *httpAddr, *tokens, runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}, stores)
	case *httpAddr == "":
		err = serveStdio(repo, runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}, stores)
	default:
		var httpOpts []mcphttp.Option
		if *stateless {
			httpOpts = append(httpOpts, mcphttp.WithStateless())
		}
		err = serveHTTP(repo, *httpAddr, *tokens, runtime.RequestContext{TenantID: *tenant, PrincipalID: *principal}, stores, httpOpts...)
	}
	if err != nil {
		log.Print(err)
		return 1
	}
	return 0
}

// loadSecrets reads the id secret and the signing key (package
// runtime/secret). Missing ones are reported with the fix where the process
// keeps its state to itself; with -postgres (instances and restarts share
// the stores, so each must verify what another signed and key ids alike)
// and -stateless the server refuses to start without them.
func loadSecrets(f *secret.Flags, stateless bool, httpAddr, dsn string) (runtime.Option, error) {
	required := ""
	switch {
	case stateless && (httpAddr == "" || dsn == ""):
		return nil, fmt.Errorf("-stateless serves HTTP from several instances sharing their stores: set -http and -postgres too")
	case stateless:
		required = "-stateless: any instance serves any request, so every instance needs the same secrets"
	case dsn != "":
		required = "-postgres: instances and restarts share the stores, so every process needs the same secrets"
	}
	return f.RuntimeOption(os.Getenv, required, func(n string) { fmt.Fprintln(os.Stderr, "archimate-server: "+n) })
}

// durableStores wires the repository and the two-layer idempotency of the
// design: in memory without -postgres; with it, the repository on
// PostgreSQL (pgdomain: claim, write, outbox row and idempotency outcome in one
// transaction), an in-process cache, optionally Redis shared by instances,
// and PostgreSQL as the authoritative idempotency store (7 days);
// proposals live in PostgreSQL too.
func durableStores(ctx context.Context, dsn, redisAddr, prefix string, applyLease time.Duration) (server.Domain, []runtime.Option, error) {
	if dsn == "" {
		if redisAddr != "" {
			return nil, nil, fmt.Errorf("-redis is a cache in front of PostgreSQL: set -postgres too")
		}
		return domain.New(), nil, nil
	}
	// Crash tests: the process kills itself at this point of a keyed write.
	// A bad value is refused before anything touches the database.
	var crash func(string)
	if point := os.Getenv("MCPWRITE_CRASH_AT"); point != "" {
		var err error
		if crash, err = crashAt(point); err != nil {
			return nil, nil, err
		}
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("-postgres: %w", err)
	}
	pgdomain.GenericPlans(cfg) // each statement planned once per connection; every statement of the pool reads by the same index under any plan
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("-postgres: %w", err)
	}
	var idemOpts []idempg.Option
	propOpts := []proposalpg.Option{proposalpg.WithApplyLease(applyLease)}
	domainPrefix := "archimate"
	if prefix != "" {
		idemOpts = append(idemOpts, idempg.WithTable(prefix+"_idem"))
		propOpts = append(propOpts, proposalpg.WithTable(prefix+"_proposals"))
		domainPrefix = prefix
	}
	idem, props := idempg.New(pool, idemOpts...), proposalpg.New(pool, propOpts...)
	if err := idem.Migrate(ctx); err != nil {
		return nil, nil, fmt.Errorf("migrate idempotency table: %w", err)
	}
	if err := props.Migrate(ctx); err != nil {
		return nil, nil, fmt.Errorf("migrate proposal table: %w", err)
	}
	repo, err := pgdomain.New(pool, idem, domainPrefix, pgdomain.WithProposals(props))
	if err != nil {
		return nil, nil, err
	}
	if err := repo.Migrate(ctx); err != nil {
		return nil, nil, err
	}
	var authoritative idempotency.Store = idem
	if crash != nil {
		repo.Fault = crash
		authoritative = crashStore{Store: idem, crash: crash}
	}
	var cache idempotency.Store = idempotency.NewMemoryStore()
	if redisAddr != "" {
		cache = idempotency.NewLayered(cache, redisstore.New(redis.NewClient(redisstore.ClientOptions(redisAddr))))
	}
	return repo, []runtime.Option{
		// Writes that need no confirmation claim their key in the
		// repository's transaction: claim, write, outbox row and outcome
		// commit once, and the caches stay off that path.
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idempotency.NewLayered(cache, authoritative), TTL: idempotency.DefaultDurableTTL, ClaimInHandler: true}),
		runtime.WithProposals(props, 0),
	}, nil
}

// crashAt returns a fault hook that kills the process (SIGKILL: no
// deferred work, no flush) when it reaches point; "point:N" kills it the
// Nth time it gets there, so the writes before it are acknowledged.
func crashAt(spec string) (func(string), error) {
	point, nth := spec, 1
	if p, n, ok := strings.Cut(spec, ":"); ok {
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("MCPWRITE_CRASH_AT=%q: the count after ':' must be a positive integer", spec)
		}
		point, nth = p, v
	}
	switch point {
	case "before-claim", "after-claim", "inside-tx", "after-commit":
	default:
		return nil, fmt.Errorf("MCPWRITE_CRASH_AT=%q: unknown point %q; use before-claim, after-claim, inside-tx or after-commit (optionally :N)", spec, point)
	}
	var seen atomic.Int64
	return func(at string) {
		if at == point && seen.Add(1) == int64(nth) {
			fmt.Fprintf(os.Stderr, "archimate-server: MCPWRITE_CRASH_AT=%s: killing the process\n", spec)
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal ends the process
		}
	}, nil
}

// crashStore kills the process before or after claiming a key the runtime
// claims (a write that needs confirmation); the repository calls the same
// hook around the claims it takes in its transaction.
type crashStore struct {
	idempotency.Store
	crash func(string)
}

func (c crashStore) Claim(ctx context.Context, k idempotency.Key, fp string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	c.crash("before-claim")
	res, err := c.Store.Claim(ctx, k, fp, now, lease)
	if err == nil && res.Claimed {
		c.crash("after-claim")
	}
	return res, err
}

func serveStdio(repo server.Domain, rc runtime.RequestContext, stores []runtime.Option) error {
	s, err := server.New(repo, append(stores, runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc)))...)
	if err != nil {
		return err
	}
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

func serveHTTP(repo server.Domain, addr, tokens string, dev runtime.RequestContext, stores []runtime.Option, opts ...mcphttp.Option) error {
	if err := mcphttp.CheckLoopback(addr); err != nil {
		return fmt.Errorf("-http: %w", err)
	}
	if tokens == "" {
		s, err := server.New(repo, append(stores, runtime.WithRequestContextFunc(runtime.StaticRequestContext(dev)))...)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "archimate MCP server on http://%s (development: every call acts as %s/%s)\n", addr, dev.TenantID, dev.PrincipalID)
		return mcphttp.ServeLoopback(context.Background(), addr, server.HTTPHandler(s, nil, opts...))
	}
	table, err := server.ParseTokens(tokens)
	if err != nil {
		return err
	}
	s, err := server.New(repo, append(stores, runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall))...)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "archimate MCP server on http://%s (bearer tokens: %d)\n", addr, len(table))
	return mcphttp.ServeLoopback(context.Background(), addr, server.HTTPHandler(s, table, opts...))
}
