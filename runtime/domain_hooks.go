package runtime

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// Previews are the domain's answers about a write before it happens, for
// WithPreviews; a nil field is not asked.
type Previews struct {
	// Check lets the domain take part in everything that happens before a
	// write: validate_write and dry_run, asking the user and storing a
	// proposal. Given the complete, enriched request it answers what the
	// write would answer without writing: nil when the write would be
	// accepted, otherwise the very error the write would return (a
	// duplicate name is DUPLICATE_NAME from validate_write as from the
	// write). preview, when not nil, is what the domain computes for the
	// write (totals, derived values), shown in the validate answer and in
	// proposals. A member that is a proto message (the order the write
	// would store) is rendered as answers render messages. For a
	// preview_unless tool, the members named like fields of the tool's
	// answer are answered where the write answers them, so the preview has
	// the write's shape, with is_preview true. Without it, validate_write
	// and dry_run stop after decoding and enrichment.
	Check func(ctx context.Context, tool string, req proto.Message) (preview map[string]any, err error)
	// Loss names, in a short phrase, what a DELETE or DESTRUCTIVE_*
	// write would remove or overwrite ("element OrderService and 2
	// relationships"), for the user who confirms it; the text appears in
	// proposals ("will_lose") and in the confirmation message. req is the
	// complete, enriched request. Return "" when nothing is lost; an error
	// the domain wrote for agents (NotFound, FailedPrecondition,
	// *ErrorEntry) answers the call instead of a confirmation. A generated
	// handler that implements PreviewLoss(ctx, tool, req) can be passed as
	// h.PreviewLoss.
	Loss func(ctx context.Context, tool string, req proto.Message) (string, error)
	// State returns the current state of what req would change, so a
	// confirmation is bound to the state of the entity the user saw and
	// not only to the request. ok is false when the write changes no
	// existing entity (a create). An error the domain wrote for agents
	// (NotFound, FailedPrecondition, *ErrorEntry) answers the call instead.
	State func(ctx context.Context, tool string, req proto.Message) (state EntityState, ok bool, err error)
}

// domainCheck runs the domain's check of m: its preview, or the envelope
// entries of its refusal with their class.
func (a *answers) domainCheck(ctx context.Context, tool string, m proto.Message) (map[string]any, impl.Errors, errClass) {
	if a.cfg.domainCheck == nil || m == nil {
		return nil, nil, classBusiness
	}
	preview, err := a.cfg.domainCheck(ctx, tool, m)
	if err != nil {
		es, class := a.classify(ctx, tool, err)
		return nil, es, class
	}
	preview, err = a.shape.answerValues(preview)
	if err != nil {
		return nil, impl.Errors{a.internal(ctx, tool, fmt.Errorf("render domain preview: %w", err))}, classInternal
	}
	return preview, nil, classBusiness
}

// answerValues renders each member of a domain preview that is a proto
// message (the order the write would store) as answers render messages:
// the agent's field names and enum aliases.
func (s answerShape) answerValues(dp map[string]any) (map[string]any, error) {
	var out map[string]any
	for k, v := range dp {
		pm, ok := v.(proto.Message)
		if !ok {
			continue
		}
		fields, raw, err := responseFields(pm, s.enums, s)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make(map[string]any, len(dp))
			for k2, v2 := range dp {
				out[k2] = v2
			}
		}
		if fields != nil {
			out[k] = fields
		} else {
			out[k] = raw
		}
	}
	if out == nil {
		return dp, nil
	}
	return out, nil
}

// entityState asks the domain for the state of what m changes; a business
// error comes back as envelope entries, an internal one is logged.
func (a *answers) entityState(ctx context.Context, tool string, m proto.Message) (EntityState, bool, impl.Errors) {
	if a.cfg.statePreview == nil {
		return EntityState{}, false, nil
	}
	st, ok, err := a.cfg.statePreview(ctx, tool, m)
	if err != nil {
		es, _ := a.classify(ctx, tool, err)
		return EntityState{}, false, es
	}
	if !ok {
		return EntityState{}, false, nil
	}
	st.Target, st.Summary = neutralize(st.Target), neutralize(st.Summary)
	return st, true, nil
}
