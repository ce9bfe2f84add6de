package pgstore

import (
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// WithQuotas sets the per-tenant and per-principal quotas of open (pending
// or applying, unexpired) proposals; zero fields keep
// proposal.DefaultMaxPendingPerTenant and
// proposal.DefaultMaxPendingPerPrincipal. Every replica sharing the table
// must use the same quotas.
func WithQuotas(q proposal.Quotas) Option {
	return func(s *Store) { s.quotas = q.Resolved() }
}
