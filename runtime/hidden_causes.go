package runtime

// Bottom layer: the errors of a call the agent was not shown, kept for the
// observer (CallEnd.Cause).

import (
	"context"
	"sync"
)

// hiddenCauses keeps, by trace_id, the errors of a call whose text the
// agent was not shown (internal and transient errors), for the observer.
type hiddenCauses struct {
	mu   sync.Mutex
	byID map[string]error
}

type hiddenCausesKey struct{}

func (h *hiddenCauses) get(id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id]
}

// noteCause records err under the trace_id the agent was given, when an
// observer watches the call.
func noteCause(ctx context.Context, id string, err error) {
	h, ok := ctx.Value(hiddenCausesKey{}).(*hiddenCauses)
	if !ok || err == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byID == nil {
		h.byID = map[string]error{}
	}
	h.byID[id] = err
}
