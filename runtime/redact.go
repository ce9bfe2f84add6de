package runtime

// Bottom layer: redaction of infrastructure details from the messages of
// errors a backend wrote (docs/production.md, "Backend errors").

import (
	"net"
	"regexp"
	"strings"
)

// Placeholders that replace what redact removes.
const (
	redactedAddress    = "[address]"
	redactedDSN        = "[dsn]"
	redactedCredential = "[redacted]"
)

var (
	// dsnURL is a URL that names a data store, or any URL with a user
	// (scheme://user[:password]@host...): replaced whole.
	dsnURL = regexp.MustCompile(`(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|sqlserver|mssql|clickhouse|cockroachdb|nats|kafka|memcached?|cassandra|neo4j|jdbc:[a-z]+)://\S*|\b[a-z][a-z0-9+.-]*://[^\s/@]+@\S*`)
	// bearer is an Authorization value: Bearer or Basic and its token.
	bearer = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	// secretPair is a credential written as key=value or key: value.
	secretPair = regexp.MustCompile(`(?i)\b((?:[a-z0-9]+[_-])*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth))("?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&]+)`)
	// knownKey is a credential recognisable by its form alone: JWTs, AWS
	// access key ids, GitHub, Slack and OpenAI-style keys.
	knownKey = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bsk-[A-Za-z0-9_-]{16,}`)
	// dsnPair is one key=value of a key/value DSN (libpq, ODBC, go-sql).
	dsnPair = regexp.MustCompile(`(?i)\b(?:host|hostaddr|port|dbname|database|user|username|uid|password|pwd|server|data source|initial catalog|sslmode|sslcert|sslkey|sslrootcert|application_name|connect_timeout|search_path|target_session_attrs)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s;]+)`)
	// socket is a unix socket: unix:path, unix://path, "unix /path", a
	// *.sock path or PostgreSQL's .s.PGSQL.<port>.
	socket = regexp.MustCompile(`(?i)\bunix:(?://)?[^\s:,;"']+|\bunix\s+/[^\s:,;"']+|/[\w./-]*(?:\.sock(?:et)?\b|\.s\.PGSQL\.\d+)`)
	// ipv4 is an IPv4 address with an optional port.
	ipv4 = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b`)
	// ipv6 is a candidate IPv6 address ([addr]:port, or bare), confirmed
	// with net.ParseIP so times such as 10:45:00 stay.
	ipv6 = regexp.MustCompile(`\[[0-9A-Fa-f:.%\w]+\](?::\d{1,5})?|[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?:%\w+)?`)
	// hostPort is a host name and port: a dotted name or localhost
	// anywhere, a one-label name after a network word ("dial tcp db:5432").
	hostPort      = regexp.MustCompile(`(?i)\b(?:localhost|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+):\d{1,5}\b`)
	namedHostPort = regexp.MustCompile(`(?i)\b(tcp[46]?|udp[46]?|dial|connect(?:ing)? to|address|addr|host|server|backend|upstream|to|at)(\s+)[a-z](?:[a-z0-9_-]*[a-z0-9])?:\d{1,5}\b`)
)

// redact removes from a message written by a backend what an agent must
// not see: data store URLs and key/value DSNs, credentials (bearer and basic
// tokens, password=, api keys, tokens of well-known forms), unix sockets,
// IP addresses and host:port pairs. What a domain wrote for its users (ids,
// names, reasons) is kept.
func redact(s string) string {
	if s == "" {
		return s
	}
	s = dsnURL.ReplaceAllString(s, redactedDSN)
	s = bearer.ReplaceAllString(s, "${1} "+redactedCredential)
	s = knownKey.ReplaceAllString(s, redactedCredential)
	s = redactDSNPairs(s)
	s = secretPair.ReplaceAllString(s, "${1}${2}"+redactedCredential)
	s = socket.ReplaceAllString(s, redactedAddress)
	s = ipv4.ReplaceAllStringFunc(s, func(m string) string {
		host := m
		if h, _, err := net.SplitHostPort(m); err == nil {
			host = h
		}
		if net.ParseIP(host) == nil {
			return m
		}
		return redactedAddress
	})
	s = ipv6.ReplaceAllStringFunc(s, func(m string) string {
		host := m
		if h, _, err := net.SplitHostPort(m); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		if i := strings.IndexByte(host, '%'); i >= 0 {
			host = host[:i]
		}
		if !strings.ContainsAny(host, "0123456789abcdefABCDEF") || net.ParseIP(host) == nil {
			return m
		}
		return redactedAddress
	})
	s = hostPort.ReplaceAllString(s, redactedAddress)
	return namedHostPort.ReplaceAllString(s, "${1}${2}"+redactedAddress)
}

// redactDSNPairs replaces a run of two or more DSN key=value pairs
// ("host=db port=5432 user=app") with one placeholder; a single pair such
// as "user=alice" in a business message stays.
func redactDSNPairs(s string) string {
	locs := dsnPair.FindAllStringIndex(s, -1)
	if len(locs) < 2 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(locs); {
		j := i
		// Extend the run while only spaces or semicolons separate pairs.
		for j+1 < len(locs) && strings.Trim(s[locs[j][1]:locs[j+1][0]], " ;\t") == "" {
			j++
		}
		if j > i {
			b.WriteString(s[last:locs[i][0]])
			b.WriteString(redactedDSN)
			last = locs[j][1]
		}
		i = j + 1
	}
	b.WriteString(s[last:])
	return b.String()
}
