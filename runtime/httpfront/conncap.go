package httpfront

import (
	"container/list"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/httpbase"
)

// connCap counts open connections in total and per client address (an
// IPv4 address, or the /64 of an IPv6 one), and keeps apart the pending
// ones: connections that have not yet finished the headers of their first
// request, and, behind BearerAuth, connections whose token has not been
// accepted yet (BearerAuth answers a refused token 401 and closes the
// connection). Pending connections have a budget of their own
// (WithMaxPendingConnections), smaller than the total: a new connection
// past it, or past the total, closes a pending one (the oldest of the
// address holding the most), never an authenticated one. A connection
// accepted past a cap that nothing could make room for is marked; its
// first request is answered 503 with Retry-After and the connection
// closed, before any body byte is read.
type connCap struct {
	max, perAddr, maxPending int
	trusted                  []netip.Prefix
	logger                   *slog.Logger

	mu       sync.Mutex
	total    int
	byAddr   map[string]int
	conns    map[net.Conn]*connSlot
	pending  map[string]*list.List // address -> its pending slots, oldest first
	nPending int
	inFlight map[string]int // forwarded client address -> requests in flight
	seq      uint64         // orders pending connections by when they became pending
}

type connSlot struct {
	owner      *connCap
	conn       net.Conn
	peer       netip.Addr    // the remote IP, when it parses
	addr       string        // the address the caps count (IPv6: its /64)
	proxy      bool          // the peer is a trusted proxy: its clients are counted per request
	over       string        // why the connection is refused; empty when within the caps
	released   bool          // no longer counted (refused or closed to make room)
	pendingAt  *list.Element // its place among its address's pending connections; nil when not pending
	pendingSeq uint64
	// authenticated: a request on it carried a token BearerAuth accepted;
	// it is never pending again.
	authenticated bool
}

type connSlotKey struct{}

func newConnCap(c httpbase.Config) *connCap {
	return &connCap{max: c.MaxConns, perAddr: c.MaxConnsPerAddr, maxPending: min(c.MaxPendingConns, c.MaxConns), trusted: c.TrustedProxies,
		logger: c.Logger, byAddr: map[string]int{}, conns: map[net.Conn]*connSlot{}, pending: map[string]*list.List{}, inFlight: map[string]int{}}
}

// addrKey is the address a cap counts for ip: IPv4 as is, IPv6 by its /64
// (one client commonly holds a whole /64).
func addrKey(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.WithZone("").Prefix(64) // never fails for an IPv6 address
	return p.String()
}

// peerAddr is the IP of a connection's remote address.
func peerAddr(a net.Addr) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(a.String()); err == nil {
		return ap.Addr().Unmap(), true
	}
	ip, err := netip.ParseAddr(a.String())
	return ip.Unmap(), err == nil
}

// connContext (http.Server.ConnContext) counts a new connection, closing a
// pending one when the new one would pass the pending budget or the total.
func (c *connCap) connContext(ctx context.Context, conn net.Conn) context.Context {
	slot := &connSlot{owner: c, conn: conn, addr: conn.RemoteAddr().String()}
	if ip, ok := peerAddr(conn.RemoteAddr()); ok {
		slot.peer, slot.addr = ip, addrKey(ip)
		slot.proxy = trustedPeer(c.trusted, ip)
	}
	c.mu.Lock()
	var closing []net.Conn
	if c.nPending >= c.maxPending {
		closing = append(closing, c.evictLocked())
	}
	if c.total >= c.max && c.nPending > 0 {
		closing = append(closing, c.evictLocked())
	}
	switch {
	case c.total >= c.max:
		slot.over = fmt.Sprintf("too many connections: the server holds its limit of %d; retry later", c.max)
	case !slot.proxy && c.byAddr[slot.addr] >= c.perAddr:
		slot.over = fmt.Sprintf("too many connections from your address: it holds its limit of %d; reuse a connection or retry later", c.perAddr)
	}
	c.total++
	if !slot.proxy {
		c.byAddr[slot.addr]++
	}
	c.conns[conn] = slot
	c.markPendingLocked(slot)
	c.mu.Unlock()
	for _, victim := range closing {
		if victim != nil {
			_ = victim.Close()
		}
	}
	return context.WithValue(ctx, connSlotKey{}, slot)
}

// evictLocked stops counting the oldest pending connection of the address
// holding the most pending connections and returns it for closing (nil
// when none is pending). Its client sees the connection closed without an
// answer, as at the header timeout; a client that sent its headers in time
// is never chosen.
func (c *connCap) evictLocked() net.Conn {
	var most *list.List
	for _, l := range c.pending {
		if most == nil || l.Len() > most.Len() ||
			(l.Len() == most.Len() && l.Front().Value.(*connSlot).pendingSeq < most.Front().Value.(*connSlot).pendingSeq) {
			most = l
		}
	}
	if most == nil {
		return nil
	}
	slot := most.Front().Value.(*connSlot)
	c.releaseLocked(slot)
	return slot.conn
}

// markPendingLocked counts slot as pending (newest of its address).
func (c *connCap) markPendingLocked(slot *connSlot) {
	if slot.pendingAt != nil || slot.released || slot.authenticated {
		return
	}
	l := c.pending[slot.addr]
	if l == nil {
		l = list.New()
		c.pending[slot.addr] = l
	}
	c.seq++
	slot.pendingAt, slot.pendingSeq = l.PushBack(slot), c.seq
	c.nPending++
}

// unmarkPendingLocked stops counting slot as pending.
func (c *connCap) unmarkPendingLocked(slot *connSlot) {
	if slot.pendingAt == nil {
		return
	}
	l := c.pending[slot.addr]
	l.Remove(slot.pendingAt)
	if l.Len() == 0 {
		delete(c.pending, slot.addr)
	}
	slot.pendingAt = nil
	c.nPending--
}

// connState (http.Server.ConnState) forgets a closed or hijacked
// connection.
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
	c.unmarkPendingLocked(slot)
	slot.released = true
	c.total--
	if slot.proxy {
		return
	}
	if c.byAddr[slot.addr]--; c.byAddr[slot.addr] <= 0 {
		delete(c.byAddr, slot.addr)
	}
}

// guard answers 503 on a connection accepted past a cap; otherwise it
// stops counting the connection as pending (its headers are in) and, on a
// trusted proxy's connection, counts the request under the client address
// the proxy forwarded.
func (c *connCap) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slot, ok := r.Context().Value(connSlotKey{}).(*connSlot)
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		c.mu.Lock()
		over := slot.over
		if over != "" {
			// Its answer is its last: it stops counting now, so a client
			// that has read the 503 finds the slot free.
			c.releaseLocked(slot)
		} else {
			c.unmarkPendingLocked(slot)
		}
		c.mu.Unlock()
		if over != "" {
			c.refuse(w, r, over)
			return
		}
		if !slot.proxy {
			h.ServeHTTP(w, r)
			return
		}
		client := forwardedClient(r.Header, c.trusted, slot.peer)
		key := addrKey(client)
		c.mu.Lock()
		if c.inFlight[key] >= c.perAddr {
			c.mu.Unlock()
			c.refuse(w, r, fmt.Sprintf("too many requests in flight from your address: it holds its limit of %d; retry later", c.perAddr))
			return
		}
		c.inFlight[key]++
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			if c.inFlight[key]--; c.inFlight[key] <= 0 {
				delete(c.inFlight, key)
			}
			c.mu.Unlock()
		}()
		r.RemoteAddr = netip.AddrPortFrom(client, 0).String()
		h.ServeHTTP(w, r)
	})
}

// refuse answers 503 with Retry-After and closes the connection unread.
func (c *connCap) refuse(w http.ResponseWriter, r *http.Request, why string) {
	c.logger.WarnContext(r.Context(), "mcpwrite: connection refused: connection limit reached", "remote", r.RemoteAddr, "reason", why)
	httpbase.RefuseUnread(w)
	w.Header().Set("Retry-After", "1")
	http.Error(w, why, http.StatusServiceUnavailable)
}

// verifyingToken counts the connection of ctx as pending while BearerAuth
// verifies its request's token, unless a token was accepted on it before:
// a client that sends headers with a token the auth hook is slow to refuse
// holds a pending connection, not an established one.
func verifyingToken(ctx context.Context) {
	if slot, ok := ctx.Value(connSlotKey{}).(*connSlot); ok {
		slot.owner.mu.Lock()
		slot.owner.markPendingLocked(slot)
		slot.owner.mu.Unlock()
	}
}

// tokenAccepted marks the connection of ctx authenticated: it is never
// closed to make room.
func tokenAccepted(ctx context.Context) {
	if slot, ok := ctx.Value(connSlotKey{}).(*connSlot); ok {
		slot.owner.mu.Lock()
		slot.authenticated = true
		slot.owner.unmarkPendingLocked(slot)
		slot.owner.mu.Unlock()
	}
}
