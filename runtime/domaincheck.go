package runtime

import (
	"context"

	"google.golang.org/protobuf/proto"
)

// DomainCheckFunc lets the domain take part in everything that happens
// before a write: validate_write and dry_run, asking the user and storing
// a proposal. Given the complete, enriched request it answers what the
// write would answer without writing: nil when the write would be accepted,
// otherwise the very error the write would return (a duplicate name is
// DUPLICATE_NAME from validate_write as from the write). preview, when not
// nil, is what the domain computes for the write (totals, derived values),
// shown in the validate answer and in proposals.
type DomainCheckFunc func(ctx context.Context, tool string, req proto.Message) (preview map[string]any, err error)

// WithDomainCheck sets the domain's check (see DomainCheckFunc). Without
// it, validate_write and dry_run stop after decoding and enrichment.
func WithDomainCheck(fn DomainCheckFunc) Option {
	return func(c *config) { c.domainCheck = fn }
}

// domainCheck runs the domain's check of m: its preview, or the envelope
// entries of its refusal with their class.
func (r *registry) domainCheck(ctx context.Context, tool string, m proto.Message) (map[string]any, Errors, errClass) {
	if r.cfg.domainCheck == nil || m == nil {
		return nil, nil, classBusiness
	}
	preview, err := r.cfg.domainCheck(ctx, tool, m)
	if err != nil {
		es, class := r.classify(ctx, tool, err)
		return nil, es, class
	}
	return preview, nil, classBusiness
}
