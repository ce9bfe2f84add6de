// Package toolcall is the runtime's own view of an MCP tool, tool call and
// resource template, independent of any MCP library: package runtime builds
// its tools and handlers from these types, and each library's adapter
// (runtime/internal/sdkbind for go-sdk, runtime/mcpgo for mark3labs/mcp-go)
// converts them to and from its library's types. It imports no MCP library.
package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// Tool is one tool as tools/list shows it.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the tool's input JSON schema; OutputSchema its output
	// schema, nil when the tool declares none.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  *Annotations
	// Meta is the tool's _meta (nil: none).
	Meta map[string]any
}

// WireSchema is the schema raw as an SDK sends it: without insignificant
// whitespace, as encoding/json writes a json.RawMessage. Both SDKs
// marshal and parse a tool's whole input schema again on every call
// (checking x-mcp-header parameters), so the schema an adapter hands them
// is the compact one: the same bytes on the wire, read faster. raw is
// returned as it is when it is not valid JSON (the SDK reports it).
func WireSchema(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// Annotations are a tool's hints. ReadOnlyHint and IdempotentHint are
// always written; a nil DestructiveHint or OpenWorldHint is left out.
type Annotations struct {
	Title           string
	ReadOnlyHint    bool
	DestructiveHint *bool
	IdempotentHint  bool
	OpenWorldHint   *bool
}

// Handler answers one tool call. An error is a protocol error; a tool
// failure is a Result with IsError.
type Handler func(ctx context.Context, req *Request) (*Result, error)

// Request is one tools/call as the runtime reads it.
type Request struct {
	// Name is the called tool; Arguments the arguments as sent (nil:
	// absent).
	Name      string
	Arguments json.RawMessage
	// Meta is the request's _meta (nil: none).
	Meta map[string]any
	// Header are the HTTP headers of the request that carried the call
	// (nil: not over HTTP).
	Header http.Header
	// TokenExtra are the claims of the bearer token verified for the
	// request (auth.TokenInfo's Extra); nil when no token was verified.
	TokenExtra map[string]any
	// TokenTenant and TokenPrincipal are the tenant and principal of the
	// bearer token verified for the request, for an adapter that has them
	// as such rather than as claims (TokenExtra, read first when set).
	TokenTenant, TokenPrincipal string
	// HasToken: a bearer token was verified for the request.
	HasToken bool
	// SessionID is the MCP session's id ("": none).
	SessionID string
	// ProgressToken is the client's progress token (nil: none).
	ProgressToken any
	// RequestState and InputResponses are what a 2026-07-28 client sends
	// back when it retries a call that answered with input requests. A
	// response that is not an elicitation result is present with a nil
	// value.
	RequestState   string
	InputResponses map[string]*ElicitResult
	// Elicitor asks the calling client's user (nil: it cannot be asked).
	Elicitor Elicitor
	// Progress sends notifications/progress to the calling client (nil:
	// it cannot be notified).
	Progress func(ctx context.Context, token any, progress, total float64, message string) error
	// Native is the adapter's own request (for go-sdk a
	// *mcp.CallToolRequest), which WithRequestContextFunc hooks read.
	Native any
}

// ElicitMode is how a call can ask its user.
type ElicitMode uint8

const (
	// ElicitNone: the client cannot be asked.
	ElicitNone ElicitMode = iota
	// ElicitInCall: elicitation/create inside the call.
	ElicitInCall
	// ElicitRoundTrip: an input request, answered in a retried call
	// (protocol 2026-07-28).
	ElicitRoundTrip
)

// Elicitor asks the user of the calling client.
type Elicitor interface {
	// Mode is how this call can ask.
	Mode() ElicitMode
	// Elicit sends elicitation/create with message and the form schema
	// inside the call and returns the user's answer.
	Elicit(ctx context.Context, message string, schema json.RawMessage) (*ElicitResult, error)
}

// ElicitRequest is a form the client shows its user.
type ElicitRequest struct {
	Message string
	Schema  json.RawMessage
}

// ElicitResult is the user's answer to a form: Action is "accept",
// "decline" or "cancel".
type ElicitResult struct {
	Action  string
	Content map[string]any
}

// Result is a tool call's answer.
type Result struct {
	// Content are the text content blocks (nil: none).
	Content []string
	// StructuredContent is the answer's JSON (nil: none).
	StructuredContent json.RawMessage
	IsError           bool
	// InputRequests and RequestState make the result a 2026-07-28 input
	// request: the client asks its user and retries the call.
	InputRequests map[string]*ElicitRequest
	RequestState  string
}

// NeedsInput reports whether the result asks the client for input.
func (r *Result) NeedsInput() bool { return r != nil && len(r.InputRequests) > 0 }

// ResourceTemplate is one resource template as resources/templates/list
// shows it.
type ResourceTemplate struct {
	Name        string
	Title       string
	Description string
	URITemplate string
	MIMEType    string
}

// ResourceHandler answers one resources/read; a failure is an *Error.
type ResourceHandler func(ctx context.Context, req *ResourceRequest) (*ResourceResult, error)

// ResourceRequest is one resources/read.
type ResourceRequest struct {
	URI string
	// Call is the tool call the read runs as: the tool and its arguments,
	// with the read's _meta, headers, verified token and session.
	Call func(tool string, args json.RawMessage) *Request
}

// ResourceResult is a read's contents.
type ResourceResult struct {
	Contents []ResourceContents
}

// ResourceContents is one resource's text.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
}

// JSON-RPC error codes a resource read answers with.
const (
	CodeInvalidParams = -32602
	CodeInternalError = -32603
)

// Error is a JSON-RPC error: its message, code and data.
type Error struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

func (e *Error) Error() string { return e.Message }
