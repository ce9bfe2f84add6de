package domain

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Refusals of OpenFileURL. Every URL that is not a valid, live signature of
// one of the caller's files (forged, tampered, another user's or tenant's,
// malformed, or of a file that is gone) is ErrFileURLInvalid, answered
// alike; only a URL whose signature verifies but whose expiry has passed is
// ErrFileURLExpired.
var (
	ErrFileURLInvalid = errors.New("not a signed URL of one of your stored files")
	ErrFileURLExpired = errors.New("the signed URL has expired; call retrieve_file_url for a new one")
)

// File is a stored file as a signed URL serves it.
type File struct {
	SourceID, MIMEType, Filename string
	Content                      []byte
}

// OpenFileURL verifies a URL retrieve_file_url signed and returns the file
// it names. The URL must be exactly neotoma://files/<source id>?expires=
// <unix seconds>&sig=<hex>; the signature must be the one this memory's key
// gives for tenant, user, the source id and the expiry (compared in constant
// time), the expiry must be in the future, and the file must still be one
// of the user's.
func (m *Memory) OpenFileURL(tenant, user, signed string) (*File, error) {
	id, expires, sig, ok := parseFileURL(signed)
	if !ok {
		return nil, ErrFileURLInvalid
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	want := FileURLSignature(m.urlKey, tenant, user, id, expires)
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return nil, ErrFileURLInvalid
	}
	if m.now().Unix() >= expires {
		return nil, ErrFileURLExpired
	}
	u, exists := m.users[owner{tenant: tenant, user: user}]
	if !exists {
		return nil, ErrFileURLInvalid
	}
	for _, s := range u.sources {
		if s.id == id && s.content != nil {
			return &File{SourceID: s.id, MIMEType: s.mimeType, Filename: s.filename, Content: append([]byte(nil), s.content...)}, nil
		}
	}
	return nil, ErrFileURLInvalid
}

// parseFileURL splits a signed file URL into its parts; ok is false unless
// it has exactly the form RetrieveFileUrl makes.
func parseFileURL(signed string) (id string, expires int64, sig string, ok bool) {
	rest, found := strings.CutPrefix(signed, FileURLPrefix)
	if !found || len(signed) > 512 {
		return "", 0, "", false
	}
	id, rawQuery, found := strings.Cut(rest, "?")
	if !found || !validSourceID(id) {
		return "", 0, "", false
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil || len(q) != 2 || len(q["expires"]) != 1 || len(q["sig"]) != 1 {
		return "", 0, "", false
	}
	e := q.Get("expires")
	expires, err = strconv.ParseInt(e, 10, 64)
	if err != nil || expires <= 0 || strconv.FormatInt(expires, 10) != e {
		return "", 0, "", false
	}
	sig = q.Get("sig")
	if len(sig) != 64 || !isLowerHex(sig) {
		return "", 0, "", false
	}
	return id, expires, sig, true
}

func validSourceID(id string) bool {
	h, ok := strings.CutPrefix(id, "src_")
	return ok && len(h) == 32 && isLowerHex(h)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// FileURLTemplate is the URI template of the resource that serves signed
// file URLs.
const FileURLTemplate = FileURLPrefix + "{+signed}"

// Identity names the tenant and user reading a resource (from the
// transport's authentication, or a development server's flags); ok is
// false when nobody is authenticated.
type Identity func(ctx context.Context, req *mcp.ReadResourceRequest) (tenant, user string, ok bool)

// AddFileResource serves signed file URLs as an MCP resource template on
// server: resources/read of a URL retrieve_file_url signed for the reader
// answers the file's bytes; any other URL (forged, tampered, expired,
// another user's) answers "resource not found" with the reason, and the
// refusal is logged (nil logger: slog.Default()).
func AddFileResource(server *mcp.Server, m *Memory, who Identity, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	server.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: FileURLTemplate,
		Name:        "stored_file",
		Title:       "Stored file",
		Description: "A file stored with store, read through the signed, expiring URL retrieve_file_url returns.",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		tenant, user, ok := who(ctx, req)
		if !ok {
			return nil, fileURLError(uri, ErrFileURLInvalid)
		}
		f, err := m.OpenFileURL(tenant, user, uri)
		if err != nil {
			logger.WarnContext(ctx, "neotoma: signed file URL refused", "tenant", tenant, "user", user, "reason", err)
			return nil, fileURLError(uri, err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: f.MIMEType, Blob: f.Content}}}, nil
	})
}

// fileURLError is the JSON-RPC "resource not found" answer (invalid params,
// as the MCP specification has it) to a refused
// URL, with the reason as its message.
func fileURLError(uri string, err error) error {
	b, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resource not found: " + err.Error(), Data: b}
}
