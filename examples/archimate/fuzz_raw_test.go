package archimate_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// rawPeer delivers bytes no MCP client would send: as raw JSON-RPC bodies
// in a streamable HTTP session of the reference server, and as the raw
// arguments of the same tools through the Preparer (the path gateways and
// batch importers take), so that they reach the decoder.
type rawPeer struct {
	url     string
	session string
	prep    *runtime.Preparer
	id      int
}

func newRawPeer(tb testing.TB) *rawPeer {
	tb.Helper()
	s, err := server.New(domain.New(), runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall))
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(server.HTTPHandler(s, map[string]server.Identity{"tok-fuzz": {Tenant: "tenant-fuzz", Principal: "user-fuzz"}}))
	tb.Cleanup(ts.Close)
	prep, err := runtime.NewPreparer(archimatev1mcpwrite.NewArchitectureService(domain.New()))
	if err != nil {
		tb.Fatal(err)
	}
	p := &rawPeer{url: ts.URL, prep: prep}
	status, _, hdr := p.post([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	if p.session = hdr.Get("Mcp-Session-Id"); status != http.StatusOK || p.session == "" {
		tb.Fatalf("initialize: status %d, session %q", status, p.session)
	}
	if status, body, _ := p.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); status != http.StatusAccepted {
		tb.Fatalf("initialized: status %d: %s", status, body)
	}
	return p
}

// post sends one raw body in the session and returns the status, the first
// JSON-RPC message of the answer (or the plain body) and the headers.
func (p *rawPeer) post(body []byte) (int, string, http.Header) {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, p.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer tok-fuzz")
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error(), nil
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp.StatusCode, string(b), resp.Header
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
			return resp.StatusCode, data, resp.Header
		}
	}
	return resp.StatusCode, "", resp.Header
}

// call posts a tools/call whose arguments are args, byte for byte, and
// scans the answer (mcptest.CheckAnswer, failing tb).
func (p *rawPeer) call(tb testing.TB, tool string, args []byte) (int, string) {
	tb.Helper()
	p.id++
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":`, p.id, tool)
	b.Write(args)
	b.WriteString("}}")
	status, body, _ := p.post(b.Bytes())
	mcptest.CheckAnswer(tb, tool, body)
	return status, body
}

// deliverRaw checks what the server does with arguments that are not JSON
// an MCP client can send: the decoder answers them with an error envelope;
// over HTTP the message is refused as a whole (400), never run, and the session
// serves the next call.
func deliverRaw(t *testing.T, p *rawPeer, tool string, args []byte) {
	t.Helper()
	if json.Valid(args) && jsonDepth(args) <= maxArgumentDepth {
		t.Fatalf("deliverRaw is for arguments a client cannot send; %q is deliverable", short(args))
	}
	_, es := p.prep.Prepare(context.Background(), tool, args, runtime.RequestContext{TenantID: "tenant-fuzz", PrincipalID: "user-fuzz"})
	if len(es) == 0 {
		t.Fatalf("%s: the decoder accepted arguments that are not valid JSON within limits: %q", tool, short(args))
	}
	for _, e := range es {
		if e == nil || e.Code == "" || e.Message == "" {
			t.Fatalf("%s(%q): incomplete error entry %+v", tool, short(args), e)
		}
	}
	if b, err := json.Marshal(es); err == nil {
		mcptest.CheckAnswer(t, tool, string(b))
	}
	status, body := p.call(t, tool, args)
	// Spliced into a message, the bytes may close it early and leave a
	// message the SDK's lenient framing reads (trailing bytes ignored):
	refused := status == http.StatusBadRequest && strings.HasPrefix(body, "malformed payload: ")
	// then what the server received is refused: a JSON-RPC error or an
	// isError tool result.
	var msg struct {
		Error  *struct{ Code int } `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	answered := status == http.StatusOK && json.Unmarshal([]byte(body), &msg) == nil &&
		(msg.Error != nil || msg.Result != nil && msg.Result.IsError)
	if !refused && !answered {
		t.Fatalf("%s(%q): status %d %q, want 400 malformed payload, a JSON-RPC error or an isError result", tool, short(args), status, body)
	}
	status, body = p.call(t, "createElement", []byte(`{"type":"Node","name":"probe"}`))
	if status != http.StatusOK || !strings.Contains(body, `"result"`) {
		t.Fatalf("after %s(%q) the session no longer serves calls: status %d: %s", tool, short(args), status, body)
	}
}

// checkAgreesWithPreparer is the tool path's differential oracle: a write
// tool answers exactly the decode and enrichment errors the Preparer finds
// in the same arguments, in the same order; arguments the Preparer accepts
// either succeed or fail in the domain, never in decoding.
func checkAgreesWithPreparer(t *testing.T, prep *runtime.Preparer, tool string, args []byte, res *mcp.CallToolResult) {
	t.Helper()
	if tool == "validateWrite" {
		return
	}
	_, es := prep.Prepare(context.Background(), tool, args, runtime.RequestContext{TenantID: "tenant-fuzz", PrincipalID: "user-fuzz", CorrelationID: "corr-fuzz"})
	var got struct {
		Errors []struct {
			Code string `json:"code"`
		} `json:"errors"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s(%q): %v", tool, short(args), err)
	}
	var codes []string
	for _, e := range got.Errors {
		codes = append(codes, e.Code)
	}
	if len(es) > 0 {
		var want []string
		for _, e := range es {
			want = append(want, e.Code)
		}
		if !res.IsError || !slices.Equal(codes, want) {
			t.Fatalf("%s(%q): the tool answered codes %v (isError %v), the Preparer %v", tool, short(args), codes, res.IsError, want)
		}
		return
	}
	for _, c := range codes {
		switch c {
		case runtime.CodeInvalidJSON, runtime.CodeUnknownField, runtime.CodeMissingRequired, runtime.CodeInvalidType, runtime.CodeInvalidEnumValue, runtime.CodeConstraintViolation, runtime.CodePayloadTooLarge, runtime.CodeInvalidIdempotencyKey:
			t.Fatalf("%s(%q): the Preparer accepts these arguments, the tool answered the decode error %s", tool, short(args), c)
		}
	}
}
