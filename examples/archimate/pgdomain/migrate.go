package pgdomain

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
)

// migrations are the versioned schema scripts, NNN_name.sql, applied in
// order; their tables are named for the default prefix "archimate".
//
//go:embed migrations/*.sql
var migrations embed.FS

// SchemaVersion is the schema version this package reads and writes.
const SchemaVersion = 4

// migration is one versioned script, with an optional step in Go run after
// it in the same transaction.
type migration struct {
	version int
	name    string
	sql     string
	after   func(ctx context.Context, tx pgx.Tx, r *Repository) error
}

// steps are the Go parts of migrations, by version.
var steps = map[int]func(ctx context.Context, tx pgx.Tx, r *Repository) error{
	2: moveStateToRows,
}

func loadMigrations(prefix string) ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with its version, NNN_", base)
		}
		b, err := migrations.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: strings.ReplaceAll(string(b), "archimate_", prefix+"_"), after: steps[v]})
	}
	return out, nil
}

// Migrate brings the schema to SchemaVersion: it applies, in one
// transaction, every versioned script the database has not recorded in
// <prefix>_schema_migrations, and records them. It is idempotent; instances
// starting together are serialised by an advisory lock. A database made by
// version 1 (one jsonb state row per tenant, no migrations table) is
// upgraded: its state rows are moved into the element, property and
// relationship tables and the state table is dropped, all or nothing.
func (r *Repository) Migrate(ctx context.Context) error {
	ms, err := loadMigrations(r.prefix)
	if err != nil {
		return fmt.Errorf("pgdomain: migrations: %w", err)
	}
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "archimate.pgdomain.migrate:"+r.prefix); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+r.prefix+`_schema_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT version FROM `+r.prefix+`_schema_migrations`)
		if err != nil {
			return err
		}
		done, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			return err
		}
		if n := slices.Max(append(done, 0)); int(n) > SchemaVersion {
			return fmt.Errorf("the database is at schema version %d, newer than this server's %d: run the newer server", n, SchemaVersion)
		}
		for _, m := range ms {
			if slices.Contains(done, int32(m.version)) {
				continue
			}
			// No arguments: the simple protocol runs a multi-statement script.
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if m.after != nil {
				if err := m.after(ctx, tx, r); err != nil {
					return fmt.Errorf("%s: %w", m.name, err)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO `+r.prefix+`_schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pgdomain: migrate %s: %w", r.prefix, err)
	}
	return nil
}

// moveStateToRows copies every tenant's jsonb state (version 1) into rows
// and drops the state table. A state the domain cannot read stops the
// migration with the tenant named; nothing is changed then.
func moveStateToRows(ctx context.Context, tx pgx.Tx, r *Repository) error {
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, r.prefix+"_state").Scan(&exists); err != nil {
		return err
	}
	if !exists {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT tenant, state FROM `+r.prefix+`_state ORDER BY tenant`)
	if err != nil {
		return err
	}
	type tenantState struct {
		tenant string
		state  json.RawMessage
	}
	states, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (tenantState, error) {
		var s tenantState
		err := row.Scan(&s.tenant, &s.state)
		return s, err
	})
	if err != nil {
		return err
	}
	var maxBorn uint64
	for _, s := range states {
		mem := domain.New()
		if err := mem.Restore(s.tenant, s.state); err != nil {
			return fmt.Errorf("tenant %q: the stored state cannot be read, so it is not migrated: %w", s.tenant, err)
		}
		rows := mem.Rows(s.tenant)
		b := &pgx.Batch{}
		r.queueInsert(b, s.tenant, rows.Elements, rows.Born, rows.Relationships)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("tenant %q: %w", s.tenant, err)
		}
		for _, n := range rows.Born {
			maxBorn = max(maxBorn, n)
		}
	}
	if maxBorn > 0 {
		if _, err := tx.Exec(ctx, `SELECT setval($1, $2)`, r.prefix+"_births", int64(maxBorn)); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `DROP TABLE `+r.prefix+`_state`); err != nil {
		return err
	}
	return nil
}
