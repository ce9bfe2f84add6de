package domain

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// FileURLPrefix starts the location of every stored file: the file of source
// src_x is neotoma://files/src_x.
const FileURLPrefix = "neotoma://files/"

// DefaultURLExpiry is how long a signed file URL lives when expires_in is
// not given.
const DefaultURLExpiry = 3600 * time.Second

// newURLKey is a random signing key for a memory whose owner sets none
// (crypto/rand.Read never fails).
func newURLKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// SetURLKey sets the HMAC-SHA256 key file URLs are signed with (by default
// a random key made by New, so URLs do not outlive the process).
func (m *Memory) SetURLKey(key []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.urlKey = append([]byte(nil), key...)
}

// FileURLSignature is the signature of a file URL: HMAC-SHA256 under key of
// a label, the tenant, the user, the source ID and the expiry (Unix
// seconds), each length-prefixed so no other values give the same input,
// hex-encoded. A URL signed for one user of one tenant never verifies for
// another (OpenFileURL).
func FileURLSignature(key []byte, tenant, user, sourceID string, expires int64) string {
	mac := hmac.New(sha256.New, key)
	for _, part := range []string{"neotoma/file-url/v1", tenant, user, sourceID, strconv.FormatInt(expires, 10)} {
		mac.Write([]byte(strconv.Itoa(len(part)) + ":" + part + "\n"))
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// fileURLs are the storage locations of a source's file: none for
// structured material.
func fileURLs(s *source) []string {
	if s.content == nil {
		return nil
	}
	return []string{FileURLPrefix + s.id}
}

// RetrieveFileUrl signs a time-limited URL for one of the caller's stored
// files. Any path that is not one of the caller's files, another user's or
// tenant's included, is FILE_NOT_FOUND, answered alike.
func (m *Memory) RetrieveFileUrl(ctx context.Context, req *neotomav1.RetrieveFileUrlRequest) (*neotomav1.RetrieveFileUrlResponse, error) {
	who, err := requireUser(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	expiry := DefaultURLExpiry
	if n := req.GetExpiresIn(); n > 0 {
		expiry = time.Duration(n) * time.Second
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := strings.CutPrefix(req.GetFilePath(), FileURLPrefix)
	var file *source
	if ok {
		if u, exists := m.users[who]; exists {
			for _, s := range u.sources {
				if s.id == id && s.content != nil {
					file = s
				}
			}
		}
	}
	if file == nil {
		return nil, &runtime.ErrorEntry{
			Code: CodeFileNotFound, Field: "file_path", Message: "no stored file at file_path",
			Suggestions: &runtime.Suggestions{Hint: "Use a file_urls entry of retrieve_field_provenance's source_material (" + FileURLPrefix + "src_...); structured material has no file."},
		}
	}
	at := m.now().Add(expiry).Truncate(time.Second)
	q := url.Values{}
	q.Set("expires", strconv.FormatInt(at.Unix(), 10))
	q.Set("sig", FileURLSignature(m.urlKey, who.tenant, who.user, file.id, at.Unix()))
	return &neotomav1.RetrieveFileUrlResponse{SignedUrl: FileURLPrefix + file.id + "?" + q.Encode(), ExpiresAt: timestamppb.New(at)}, nil
}
