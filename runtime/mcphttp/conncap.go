package mcphttp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
)

// connCap counts open connections in total and per remote IP. A connection
// accepted past either cap is marked; its first request is answered 503
// with Retry-After and the connection closed, before any body byte is read.
type connCap struct {
	max, perAddr int
	logger       *slog.Logger

	mu     sync.Mutex
	total  int
	byAddr map[string]int
	conns  map[net.Conn]*connSlot
}

type connSlot struct {
	addr     string
	over     string // why the connection is refused; empty when within the caps
	released bool   // no longer counted (refused: it closes after its answer)
}

type connSlotKey struct{}

func newConnCap(c httpConfig) *connCap {
	return &connCap{max: c.maxConns, perAddr: c.maxConnsPerAddr, logger: c.logger,
		byAddr: map[string]int{}, conns: map[net.Conn]*connSlot{}}
}

// connContext (http.Server.ConnContext) counts a new connection.
func (c *connCap) connContext(ctx context.Context, conn net.Conn) context.Context {
	addr := conn.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	slot := &connSlot{addr: addr}
	c.mu.Lock()
	switch {
	case c.total >= c.max:
		slot.over = fmt.Sprintf("too many connections: the server holds its limit of %d; retry later", c.max)
	case c.byAddr[addr] >= c.perAddr:
		slot.over = fmt.Sprintf("too many connections from your address: it holds its limit of %d; reuse a connection or retry later", c.perAddr)
	}
	c.total++
	c.byAddr[addr]++
	c.conns[conn] = slot
	c.mu.Unlock()
	return context.WithValue(ctx, connSlotKey{}, slot)
}

// connState (http.Server.ConnState) forgets a closed or hijacked connection.
func (c *connCap) connState(conn net.Conn, st http.ConnState) {
	if st != http.StateClosed && st != http.StateHijacked {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	slot, ok := c.conns[conn]
	if !ok {
		return
	}
	delete(c.conns, conn)
	c.releaseLocked(slot)
}

// releaseLocked stops counting slot's connection.
func (c *connCap) releaseLocked(slot *connSlot) {
	if slot.released {
		return
	}
	slot.released = true
	c.total--
	if c.byAddr[slot.addr]--; c.byAddr[slot.addr] <= 0 {
		delete(c.byAddr, slot.addr)
	}
}

// guard answers 503 on a connection accepted past a cap.
func (c *connCap) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slot, ok := r.Context().Value(connSlotKey{}).(*connSlot); ok && slot.over != "" {
			c.logger.WarnContext(r.Context(), "mcpwrite: connection refused: connection limit reached", "remote", r.RemoteAddr, "reason", slot.over)
			// Its answer is its last: it stops counting now, so a client
			// that has read the 503 finds the slot free.
			c.mu.Lock()
			c.releaseLocked(slot)
			c.mu.Unlock()
			refuseUnread(w)
			w.Header().Set("Retry-After", "1")
			http.Error(w, slot.over, http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}
