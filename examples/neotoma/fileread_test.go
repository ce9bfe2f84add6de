package neotoma_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// withFileResource serves signed file URLs on s, the reader identified as
// its tool calls are (by client name).
func withFileResource(s *server) {
	domain.AddFileResource(s.srv, s.rec.Memory, func(_ context.Context, req *mcp.ReadResourceRequest) (string, string, bool) {
		ci := req.ClientInfo()
		if ci == nil {
			return "", "", false
		}
		rc, ok := s.users.Load(ci.Name)
		if !ok {
			return "", "", false
		}
		return rc.(runtime.RequestContext).TenantID, rc.(runtime.RequestContext).PrincipalID, true
	}, nil)
}

// readFile reads uri as a resource and returns its bytes, or the error's
// message when the read is refused with "resource not found" (invalid params).
func readFile(t *testing.T, cs *mcp.ClientSession, uri string) (string, string) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("read %s: %v, want a resource-not-found error", uri, err)
		}
		return "", je.Message
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	return string(res.Contents[0].Blob) + "|" + res.Contents[0].MIMEType, ""
}

// The URL retrieve_file_url signs is verified where the file is served:
// the signature (in constant time), the expiry, the tenant and the user. A
// forged, tampered, expired or someone else's URL never reads the file.
func TestSignedFileURLsAreVerified(t *testing.T) {
	s := newServer(t)
	key := []byte("0123456789abcdef0123456789abcdef")
	s.rec.SetURLKey(key)
	withFileResource(s)
	cs := s.connect(ada, nil)
	mustSucceed(t, cs, "store", `{"file_content":"`+base64.StdEncoding.EncodeToString([]byte(pdf))+`","mime_type":"application/pdf","original_filename":"sample_invoice.pdf"}`)
	mustSucceed(t, cs, "store", `{"file_content":"`+base64.StdEncoding.EncodeToString([]byte("another file"))+`","mime_type":"text/plain"}`)
	src, _ := fileSource(pdf)
	other, _ := fileSource("another file")
	signed := mustSucceed(t, cs, "retrieve_file_url", `{"file_path":"neotoma://files/`+src+`","expires_in":600}`)["signed_url"].(string)

	if got, refused := readFile(t, cs, signed); refused != "" || got != pdf+"|application/pdf" {
		t.Fatalf("valid URL: %q refused %q", got, refused)
	}

	const invalid = "resource not found: not a signed URL of one of your stored files"
	const expired = "resource not found: the signed URL has expired; call retrieve_file_url for a new one"
	exp := fixedNow.Unix() + 600
	sig := domain.FileURLSignature(key, ada.TenantID, ada.PrincipalID, src, exp)
	at := func(id string, expires int64, sig string) string {
		return "neotoma://files/" + id + "?expires=" + strconv.FormatInt(expires, 10) + "&sig=" + sig
	}
	grace2 := s.connect(grace, nil)
	otherTenant := s.connect(runtime.RequestContext{TenantID: "tenant-other", PrincipalID: ada.PrincipalID}, nil)
	anonymous := s.connect(runtime.RequestContext{}, nil)
	cases := []struct {
		name string
		cs   *mcp.ClientSession
		uri  string
		want string
	}{
		{"forged signature", cs, at(src, exp, strings.Repeat("ab", 32)), invalid},
		{"signed with another key", cs, at(src, exp, domain.FileURLSignature([]byte("another-process-key-0123456789ab"), ada.TenantID, ada.PrincipalID, src, exp)), invalid},
		{"expiry extended", cs, at(src, exp+3600, sig), invalid},
		{"other file, same signature", cs, at(other, exp, sig), invalid},
		{"signature in upper case", cs, at(src, exp, strings.ToUpper(sig)), invalid},
		{"signature truncated", cs, at(src, exp, sig[:63]), invalid},
		{"extra parameter", cs, signed + "&user=user-grace", invalid},
		{"parameter given twice", cs, signed + "&sig=" + sig, invalid},
		{"expiry with a plus sign", cs, "neotoma://files/" + src + "?expires=%2B" + strconv.FormatInt(exp, 10) + "&sig=" + sig, invalid},
		{"no query", cs, "neotoma://files/" + src, invalid},
		{"traversal", cs, "neotoma://files/../" + src + "?expires=" + strconv.FormatInt(exp, 10) + "&sig=" + sig, invalid},
		{"another user of the tenant", grace2, signed, invalid},
		{"the same user name in another tenant", otherTenant, signed, invalid},
		{"nobody authenticated", anonymous, signed, invalid},
		{"expired now", cs, at(src, fixedNow.Unix(), domain.FileURLSignature(key, ada.TenantID, ada.PrincipalID, src, fixedNow.Unix())), expired},
		{"expired an hour ago", cs, at(src, fixedNow.Unix()-3600, domain.FileURLSignature(key, ada.TenantID, ada.PrincipalID, src, fixedNow.Unix()-3600)), expired},
	}
	for _, c := range cases {
		if got, refused := readFile(t, c.cs, c.uri); refused != c.want || got != "" {
			t.Errorf("%s: read %q refused %q, want refused %q", c.name, got, refused, c.want)
		}
	}
	// A URL another user signed for their own file reads that file only for them.
	// The same file is a source of grace's own, under an id of her own: ada's
	// id names no file of hers.
	stored := mustSucceed(t, grace2, "store", `{"file_content":"`+base64.StdEncoding.EncodeToString([]byte(pdf))+`","mime_type":"application/pdf"}`)
	graceSrc := userSourceID(grace.TenantID, grace.PrincipalID, stored["content_hash"].(string))
	if stored["source_id"] != graceSrc || graceSrc == src {
		t.Fatalf("grace's source_id = %v, want %s (not ada's %s)", stored["source_id"], graceSrc, src)
	}
	if out, isErr := call(t, grace2, "retrieve_file_url", `{"file_path":"neotoma://files/`+src+`"}`); !isErr || codes(out)[0] != "FILE_NOT_FOUND@file_path" {
		t.Fatalf("grace asking for ada's source id: %v", out)
	}
	graceURL := mustSucceed(t, grace2, "retrieve_file_url", `{"file_path":"neotoma://files/`+graceSrc+`"}`)["signed_url"].(string)
	if got, refused := readFile(t, grace2, graceURL); refused != "" || got != pdf+"|application/pdf" {
		t.Fatalf("grace's own URL: %q refused %q", got, refused)
	}
	if _, refused := readFile(t, cs, graceURL); refused != invalid {
		t.Errorf("ada reading grace's URL: refused %q, want %q", refused, invalid)
	}
}
