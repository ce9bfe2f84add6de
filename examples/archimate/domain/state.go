package domain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// StatePreview is the state an update or delete acts on, as the person who
// confirms it is shown it (pass it as runtime.WithPreviews(runtime.Previews{State: repo.StatePreview})):
// the element's fields and version, when it was created, and the
// relationships a cascade would remove. Applying a proposal or a
// confirmation after any of that changed is refused as stale.
func (r *Repository) StatePreview(_ context.Context, _ string, req proto.Message) (runtime.EntityState, bool, error) {
	var tenant, id string
	switch req := req.(type) {
	case *archimatev1.DeleteElementRequest:
		tenant, id = req.GetMeta().GetTenantId(), req.GetId()
	case *archimatev1.UpdateElementRequest:
		tenant, id = req.GetMeta().GetTenantId(), req.GetId()
	default:
		return runtime.EntityState{}, false, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(tenant)
	e, ok := sp.elements[id]
	if !ok {
		return runtime.EntityState{}, false, nil
	}
	attached := sp.attached(id)
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(e)
	if err != nil {
		return runtime.EntityState{}, false, err
	}
	h := sha256.New()
	h.Write(b)
	fmt.Fprintf(h, "\x00born=%d", sp.born[id])
	for _, rel := range attached {
		fmt.Fprintf(h, "\x00rel=%s", rel)
	}
	rels := "no relationships"
	switch n := len(attached); n {
	case 0:
	case 1:
		rels = "1 relationship"
	default:
		rels = fmt.Sprintf("%d relationships", n)
	}
	return runtime.EntityState{
		Target:  "element " + id,
		Digest:  hex.EncodeToString(h.Sum(nil)[:16]),
		Summary: fmt.Sprintf("%s (%s), version %d, %s", e.GetName(), aliasOf(e.GetType()), e.GetVersion(), rels),
	}, true, nil
}
