package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	mgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
)

// The durable benchmarks' load driver is a minimal MCP client over
// streamable HTTP, the transport archimate-server serves in production
// (-http -stateless behind a load balancer, bearer tokens naming tenant and
// principal). It sends what the official Go client sends, byte for byte
// (server/discover once, then each tools/call with the protocol's _meta and
// the Mcp-Method, Mcp-Name and Mcp-Protocol-Version headers), so the server
// does all the work an agent's client costs it; and it decodes only the
// answer's envelope (a JSON-RPC error or isError). An agent's client runs on
// another machine; this one shares the cores of the server and PostgreSQL,
// so it does no more than that (the official client would also decode the
// whole result into Go values here). Ours and the trivial go-sdk tool
// (mcp-floor) are driven by the same client over the same handler.

// driverProtocol is the protocol version the official Go client speaks.
const driverProtocol = "2026-07-28"

// driverMeta is the _meta every request of the official client carries.
const driverMeta = `"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"test"},` +
	`"io.modelcontextprotocol/protocolVersion":"` + driverProtocol + `"`

// benchPrincipal acts in every tenant of the durable benchmarks.
const benchPrincipal = "user-bench"

// tenantToken is the bearer token of tenant.
func tenantToken(tenant string) string { return "tok-" + tenant }

// benchTokens maps the token of every benchmark tenant to it, as
// archimate-server -tokens does.
func benchTokens() map[string]server.Identity {
	t := make(map[string]server.Identity, durableTenants+2)
	for i := range durableTenants {
		name := fmt.Sprintf("tenant-%04d", i)
		t[tenantToken(name)] = server.Identity{Tenant: name, Principal: benchPrincipal}
	}
	for _, name := range []string{"tenant-small", "tenant-large"} {
		t[tenantToken(name)] = server.Identity{Tenant: name, Principal: benchPrincipal}
	}
	return t
}

// serveStateless serves s on a loopback port as archimate-server -http
// -stateless -tokens does: mcphttp's handler and server bounds, bearer
// tokens for every benchmark tenant. It returns the endpoint.
func serveStateless(b *testing.B, s *mcp.Server) string {
	b.Helper()
	h := server.HTTPHandler(s, benchTokens(), mcphttp.WithStateless())
	ts := httptest.NewUnstartedServer(h)
	ts.Config = mcphttp.NewServer(h)
	ts.Start()
	b.Cleanup(ts.Close)
	return ts.URL
}

// serveStatelessMCPGo serves s as archimate-server -sdk mcp-go -http
// -tokens does, on a loopback port: the mcp-go stateless handler behind the
// same bearer tokens and the same HTTP server bounds as serveStateless.
func serveStatelessMCPGo(b *testing.B, s *mgoserver.MCPServer) string {
	b.Helper()
	h := server.MCPGoHTTPHandler(s, benchTokens())
	ts := httptest.NewUnstartedServer(h)
	ts.Config = mcphttp.NewServer(h)
	ts.Start()
	b.Cleanup(ts.Close)
	return ts.URL
}

// mcpDriver is one client: one keep-alive connection, one call at a time.
// It writes HTTP/1.1 requests itself and reads the answers with
// http.ReadResponse, without net/http's client machinery (connection pool,
// per-connection goroutines), which on these shared cores would take CPU
// from the server and the database.
type mcpDriver struct {
	addr string // host:port
	conn net.Conn
	br   *bufio.Reader
	id   atomic.Int64
	req  []byte
	buf  bytes.Buffer
}

// newDriver connects a client to url: server/discover, as the official
// client starts, answered without an error.
func newDriver(b *testing.B, url string) *mcpDriver {
	b.Helper()
	d := &mcpDriver{addr: strings.TrimPrefix(url, "http://")}
	b.Cleanup(d.close)
	body := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(d.id.Add(1), 10) + `,"method":"server/discover","params":{"_meta":{` + driverMeta + `}}}`
	if _, err := d.post(tenantToken("tenant-0000"), "server/discover", "", body); err != nil {
		b.Fatalf("server/discover: %v", err)
	}
	return d
}

func (d *mcpDriver) close() {
	if d.conn != nil {
		_ = d.conn.Close()
		d.conn = nil
	}
}

// callTool calls tool with args (a JSON object) as the tenant of token; a
// JSON-RPC error or a tool error is an error.
func (d *mcpDriver) callTool(token, tool, args string) error {
	body := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(d.id.Add(1), 10) + `,"method":"tools/call","params":{"_meta":{` + driverMeta +
		`},"name":"` + tool + `","arguments":` + args + `}}`
	res, err := d.post(token, "tools/call", tool, body)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	var r struct {
		IsError bool            `json:"isError"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return fmt.Errorf("%s: result: %w", tool, err)
	}
	if r.IsError {
		return fmt.Errorf("%s answered an error: %s", tool, r.Content)
	}
	return nil
}

// post sends one JSON-RPC request and returns its result: the data of the
// server's one SSE message, or the JSON body.
func (d *mcpDriver) post(token, method, name, body string) (json.RawMessage, error) {
	if d.conn == nil {
		c, err := net.Dial("tcp", d.addr)
		if err != nil {
			return nil, err
		}
		d.conn, d.br = c, bufio.NewReader(c)
	}
	r := append(d.req[:0], "POST / HTTP/1.1\r\nHost: "...)
	r = append(r, d.addr...)
	r = append(r, "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer "...)
	r = append(r, token...)
	r = append(r, "\r\nMcp-Protocol-Version: "+driverProtocol+"\r\nMcp-Method: "...)
	r = append(r, method...)
	if name != "" {
		r = append(r, "\r\nMcp-Name: "...)
		r = append(r, name...)
	}
	r = append(r, "\r\nContent-Length: "...)
	r = strconv.AppendInt(r, int64(len(body)), 10)
	r = append(r, "\r\n\r\n"...)
	r = append(r, body...)
	d.req = r
	if _, err := d.conn.Write(r); err != nil {
		d.close()
		return nil, err
	}
	resp, err := http.ReadResponse(d.br, nil)
	if err != nil {
		d.close()
		return nil, err
	}
	d.buf.Reset()
	_, err = d.buf.ReadFrom(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.Close {
		d.close()
	}
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(d.buf.Bytes()))
	}
	msg := d.buf.Bytes()
	if i := bytes.Index(msg, []byte("data: ")); i >= 0 { // text/event-stream
		msg = msg[i+len("data: "):]
		if j := bytes.IndexByte(msg, '\n'); j >= 0 {
			msg = msg[:j]
		}
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		return nil, fmt.Errorf("answer %q: %w", msg, err)
	}
	if env.Error != nil || env.Result == nil {
		return nil, fmt.Errorf("JSON-RPC error: %s", msg)
	}
	return env.Result, nil
}

// drivers connects n clients to url.
func drivers(b *testing.B, url string, n int) []*mcpDriver {
	d := make([]*mcpDriver, n)
	for i := range d {
		d[i] = newDriver(b, url)
	}
	return d
}
