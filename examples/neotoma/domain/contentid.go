package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// sourceIDLabel separates source ids from any other hash of the same input.
const sourceIDLabel = "neotoma/source-id/v2"

// SourceID is the id of a user's source material: "src_" and the first 32
// hex digits of the SHA-256 of the label, the tenant and the user (each
// length-prefixed, so no tenant, user and content triple yields another's
// input) and the material's content hash. Storage deduplicates per user, as
// the document says, and so do ids: the same material gets the same id for
// its user, every time, and unrelated ids for two users of a tenant or two
// tenants, so equal content cannot be linked across users by its id (nor
// can the observations whose ids derive from it). content_hash stays the
// plain SHA-256 of the content, as the document defines it.
func SourceID(tenant, user, contentHash string) string {
	h := sha256.New()
	h.Write([]byte(sourceIDLabel + "\n" + strconv.Itoa(len(tenant)) + ":" + tenant + "\n" + strconv.Itoa(len(user)) + ":" + user + "\n" + contentHash))
	return "src_" + hex.EncodeToString(h.Sum(nil))[:32]
}
