package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// sourceIDLabel separates source ids from any other hash of the same input.
const sourceIDLabel = "neotoma/source-id/v1"

// SourceID is the id of source material of a tenant: "src_" and the first
// 32 hex digits of the SHA-256 of the label, the tenant (length-prefixed, so
// no tenant and content pair yields another's input) and the material's
// content hash. The same material gets the same id within a tenant, every
// time, and unrelated ids in two tenants, so equal content cannot be linked
// across tenants by its id. content_hash stays the plain SHA-256 of the
// content, as the document defines it.
func SourceID(tenant, contentHash string) string {
	h := sha256.New()
	h.Write([]byte(sourceIDLabel + "\n" + strconv.Itoa(len(tenant)) + ":" + tenant + "\n" + contentHash))
	return "src_" + hex.EncodeToString(h.Sum(nil))[:32]
}
