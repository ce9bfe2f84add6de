package mcphttp

// The bodies of BearerAuth's 401 answers (httpfront.BearerAuth), exactly.
const (
	msgMissingBearer = "missing bearer token: send Authorization: Bearer <token>"
	msgInvalidBearer = "invalid bearer token"
)
