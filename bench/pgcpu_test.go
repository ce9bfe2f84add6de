package bench

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgCPU reads the CPU PostgreSQL's backends spent for this benchmark's
// pools (their connections carry the benchmark's prefix as
// application_name), from /proc/<pid>/stat: only where PostgreSQL runs on
// this machine. Its own connection is not one of them.
type pgCPU struct {
	conn *pgx.Conn
	app  string
	tick time.Duration
}

// newPGCPU connects the reader; it returns nil (no figure) where the
// backends' /proc entries cannot be read.
func newPGCPU(b *testing.B, dsn, app string) *pgCPU {
	b.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close(context.Background()) })
	var pid int
	if err := conn.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		b.Fatal(err)
	}
	if _, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil {
		return nil // PostgreSQL is elsewhere, or its processes are not ours to read
	}
	// Linux reports utime and stime in clock ticks of 1/100 s (USER_HZ).
	return &pgCPU{conn: conn, app: app, tick: 10 * time.Millisecond}
}

// snapshot is each backend's CPU so far, by pid.
func (p *pgCPU) snapshot(b *testing.B) map[int]time.Duration {
	b.Helper()
	rows, err := p.conn.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, p.app)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		b.Fatal(err)
	}
	out := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue // the backend ended between the query and the read
		}
		// Fields after the parenthesised command: state is field 3, utime 14, stime 15.
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		if len(f) < 13 {
			b.Fatalf("/proc/%d/stat: %q", pid, raw)
		}
		ut, err1 := strconv.ParseInt(f[11], 10, 64)
		st, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("/proc/%d/stat: %q", pid, raw)
		}
		out[pid] = time.Duration(ut+st) * p.tick
	}
	return out
}

// since is the CPU the backends spent since before (a backend that started
// since counts from zero).
func (p *pgCPU) since(b *testing.B, before map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range p.snapshot(b) {
		d += t - before[pid]
	}
	return d
}
