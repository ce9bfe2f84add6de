package mcptest

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// forbidden are the values no answer may carry (ForbidInAnswers).
var forbidden struct {
	sync.Mutex
	values []string
}

// ForbidInAnswers makes every client Connect or NewClient opens afterwards,
// in this test binary, fail its test (Errorf) when a tool answer, a
// resource read, an error result, or a protocol error carries one of values as a whole token: an identifier
// bounded by characters other than letters, digits, '-' and '_'. A test
// package calls it from TestMain with the tenant and principal IDs its
// request contexts carry, so every answer of every test is scanned for
// them. Empty values are ignored.
func ForbidInAnswers(values ...string) {
	forbidden.Lock()
	defer forbidden.Unlock()
	for _, v := range values {
		if v != "" && !slices.Contains(forbidden.values, v) {
			forbidden.values = append(forbidden.values, v)
		}
	}
}

// forbiddenPattern matches any of the forbidden values as a token, nil when
// none is forbidden.
func forbiddenPattern() *regexp.Regexp {
	forbidden.Lock()
	defer forbidden.Unlock()
	if len(forbidden.values) == 0 {
		return nil
	}
	alt := ""
	for i, v := range forbidden.values {
		if i > 0 {
			alt += "|"
		}
		alt += regexp.QuoteMeta(v)
	}
	return regexp.MustCompile(`(^|[^A-Za-z0-9_-])(` + alt + `)($|[^A-Za-z0-9_-])`)
}

// NewClient makes an MCP Go SDK client whose tools/call and resources/read
// answers are scanned as Connect's are (ScanAnswers): the one way a test that connects
// its own client (over HTTP, stdio or to a cluster) makes it, so that no
// answer it receives escapes the scan.
func NewClient(tb testing.TB, impl *mcp.Implementation, opts *mcp.ClientOptions) *mcp.Client {
	client := mcp.NewClient(impl, opts)
	ScanAnswers(tb, client)
	return client
}

// ScanAnswers makes client, an MCP Go SDK client a test made itself rather
// than with Connect or NewClient, fail tb (Errorf) when a tools/call or
// resources/read answer carries a value ForbidInAnswers names, as
// Connect's clients do. Call it before client.Connect.
func ScanAnswers(tb testing.TB, client *mcp.Client) {
	if p := forbiddenPattern(); p != nil {
		client.AddSendingMiddleware(scanAnswers(tb, p))
	}
}

// CheckAnswer fails tb (Errorf) when answer, the text of tool's answer as
// a client other than the MCP Go SDK's received it (its JSON or its error
// text), carries a value ForbidInAnswers names.
func CheckAnswer(tb testing.TB, tool, answer string) {
	tb.Helper()
	if p := forbiddenPattern(); p != nil {
		if m := p.FindStringSubmatch(answer); m != nil {
			tb.Errorf("mcptest: the answer of %s carries the forbidden value %q: %s", tool, m[2], answer)
		}
	}
}

// scanAnswers is a client middleware that reports, on tb, every tools/call
// and resources/read answer that carries a value of pattern.
func scanAnswers(tb testing.TB, pattern *regexp.Regexp) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/call" && method != "resources/read" {
				return res, err
			}
			tool := ""
			switch p := req.GetParams().(type) {
			case *mcp.CallToolParams:
				tool = p.Name
			case *mcp.CallToolParamsRaw:
				tool = p.Name
			case *mcp.ReadResourceParams:
				tool = p.URI
			}
			var text string
			if err != nil {
				text = err.Error()
			} else if b, mErr := json.Marshal(res); mErr == nil {
				text = string(b)
			}
			if m := pattern.FindStringSubmatch(text); m != nil {
				tb.Errorf("mcptest: the answer of %s carries the forbidden value %q: %s", tool, m[2], text)
			}
			return res, err
		}
	}
}
