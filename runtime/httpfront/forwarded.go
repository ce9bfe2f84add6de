package httpfront

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// trustedPeer reports whether ip is within one of the trusted proxy
// prefixes.
func trustedPeer(trusted []netip.Prefix, ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// forwardedClient is the client address of a request that reached the
// server through the trusted proxy peer. The rule: read the hops the
// proxies appended (the for= parameters of Forwarded when that header is
// present, else X-Forwarded-For; every header line, in order), walk them
// from the right, and take the first address that is not a trusted proxy.
// Anything left of it was written by the client or by proxies nobody
// trusts, so it is never read. When every hop is trusted, the leftmost is
// the client; when a hop does not parse (unknown, an obfuscated name, a
// malformed value), the walk stops and the last trusted hop to its right
// (in the end the peer itself) stands for the client.
func forwardedClient(h http.Header, trusted []netip.Prefix, peer netip.Addr) netip.Addr {
	hops := forwardedHops(h)
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		ip, ok := parseHop(hops[i])
		if !ok {
			return client
		}
		client = ip
		if !trustedPeer(trusted, ip) {
			return ip
		}
	}
	return client
}

// forwardedHops lists the client addresses the proxies recorded, left to
// right: Forwarded's for= values when that header is present (RFC 7239),
// else X-Forwarded-For's entries.
func forwardedHops(h http.Header) []string {
	var hops []string
	if fwd := h.Values("Forwarded"); len(fwd) > 0 {
		for _, line := range fwd {
			for elem := range strings.SplitSeq(line, ",") {
				hop := "unknown" // an element without for= names no address
				for pair := range strings.SplitSeq(elem, ";") {
					k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
					if ok && strings.EqualFold(k, "for") {
						hop = strings.Trim(v, `"`)
					}
				}
				hops = append(hops, hop)
			}
		}
		return hops
	}
	for _, line := range h.Values("X-Forwarded-For") {
		for hop := range strings.SplitSeq(line, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

// parseHop reads one hop: an IP, an IP with a port, or a bracketed IPv6
// address with or without a port.
func parseHop(s string) (netip.Addr, bool) {
	if ip, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return ip.Unmap(), true
	}
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(host)
	return ip.Unmap(), err == nil
}
