package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
)

// reserveByLock reserves k in tx the way a caller that folds the lock into
// its own read does: a statement of the caller taking the key's lock
// (ReserveLock, its parameters after the caller's one), then the read of
// k's record (QueueReserved), in one round trip. The caller's statement
// must answer its own row.
func reserveByLock(ctx context.Context, tx pgx.Tx, s *pgstore.Store, k idempotency.Key, now time.Time) (idempotency.ClaimResult, error) {
	lock, ok := s.ReserveLock(2)
	if !ok {
		return idempotency.ClaimResult{}, errors.New("ReserveLock declined")
	}
	b := &pgx.Batch{}
	b.Queue("SELECT /* mcpwrite_idempotency_reserve */ $1::text WHERE (SELECT "+lock+")", append([]any{"caller's row"}, s.ReserveLockArgs(k)...)...)
	p := s.WithTx(tx).QueueReserved(b, k, now)
	br := tx.SendBatch(ctx, b)
	var row string
	if err := br.QueryRow().Scan(&row); err != nil || row != "caller's row" {
		_ = br.Close()
		return idempotency.ClaimResult{}, errors.Join(errors.New("the caller's statement did not answer its row"), err)
	}
	res, settled, err := p.Read(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && !settled {
		err = errors.New("a reservation was not settled")
	}
	return res, err
}

// A key reserved with its lock in the caller's statement (ReserveLock,
// QueueReserved) and one reserved by QueueReserve take the same lock: a
// second transaction reserving the key either way waits for the first,
// made the other way, then finds its completed record when it committed,
// or gets the key when it rolled back.
func TestReserveLockAndQueueReserveWaitForEachOther(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.newTable(t)
	side := sideTable(t, e, s)
	now := idempotency.TruncateTime(time.Now())
	type reserveFunc func(context.Context, pgx.Tx, *pgstore.Store, idempotency.Key, time.Time) (idempotency.ClaimResult, error)
	for _, order := range []struct {
		name          string
		first, second reserveFunc
	}{{"function then lock", reserveIn, reserveByLock}, {"lock then function", reserveByLock, reserveIn}, {"lock then lock", reserveByLock, reserveByLock}} {
		for _, commit := range []bool{true, false} {
			k := idempotency.Key{Tenant: "t", Tool: "x", Key: order.name + map[bool]string{true: " committed", false: " rolled back"}[commit]}
			first, holder := holdKey(t, e, func(tx pgx.Tx) error {
				if res, err := order.first(ctx, tx, s, k, now); err != nil || !res.Claimed {
					return fmt.Errorf("%s: reservation = %+v, %v; want the key", k.Key, res, err)
				}
				return nil
			})
			type result struct {
				res idempotency.ClaimResult
				err error
			}
			second := make(chan result, 1)
			go func() {
				var r result
				r.err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
					if r.res, r.err = order.second(ctx, tx, s, k, now); r.err != nil || !r.res.Claimed {
						return r.err
					}
					return completeWith(ctx, tx, s, side, k, "fp", k.Key+": second", now)
				})
				second <- r
			}()
			waitForReserveWaiter(t, e, holder)
			want := k.Key + ": first"
			if commit {
				if err := completeWith(ctx, first, s, side, k, "fp", want, now); err != nil {
					t.Fatal(err)
				}
				if err := first.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			} else if err := first.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			r := <-second
			if r.err != nil {
				t.Fatalf("%s: %v", k.Key, r.err)
			}
			if commit {
				if r.res.Claimed || r.res.Existing.State != idempotency.StateCompleted || string(r.res.Existing.Response) != want {
					t.Fatalf("%s: second reservation = %+v; want the completed record %q", k.Key, r.res, want)
				}
			} else {
				want = k.Key + ": second"
				if !r.res.Claimed {
					t.Fatalf("%s: second reservation = %+v; want the key", k.Key, r.res)
				}
			}
			got, err := s.Get(ctx, k, now)
			if err != nil || got.State != idempotency.StateCompleted || string(got.Response) != want {
				t.Fatalf("record of %s = %+v, %v; want completed %q", k.Key, got, err, want)
			}
			var rows int
			if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM "+side+" WHERE v LIKE $1", k.Key+":%").Scan(&rows); err != nil || rows != 1 {
				t.Fatalf("writes of %s = %d, %v; want 1", k.Key, rows, err)
			}
		}
	}
}

// ReserveLock declines, as QueueReserve does, for a store that counts a
// per-tenant quota or has invalid options.
func TestReserveLockDeclinesWhereQueueReserveDoes(t *testing.T) {
	for name, st := range map[string]*pgstore.Store{
		"quota":        pgstore.New(nil, pgstore.WithMaxRecordsPerTenant(5)),
		"invalid name": pgstore.New(nil, pgstore.WithTable("bad-name")),
	} {
		if expr, ok := st.ReserveLock(1); ok || expr != "" {
			t.Errorf("ReserveLock with %s = %q, %v; want declined", name, expr, ok)
		}
	}
	got, ok := pgstore.New(nil, pgstore.WithTable("app.idem")).ReserveLock(8)
	want := `true FROM pg_advisory_xact_lock(hashtextextended(concat_ws(':', $8::regclass::oid, length($9::text), $9::text, length($10::text), $10::text, $11::text), 0))`
	if !ok || got != want {
		t.Errorf("ReserveLock(8) = %q, %v; want %q", got, ok, want)
	}
	if args := pgstore.New(nil, pgstore.WithTable("app.idem")).ReserveLockArgs(idempotency.Key{Tenant: "t", Tool: "x", Key: "k"}); len(args) != 4 ||
		args[0] != `"app"."idem"` || args[1] != "t" || args[2] != "x" || args[3] != "k" {
		t.Errorf("ReserveLockArgs = %q; want the table, the tenant, the tool and the key", args)
	}
}
