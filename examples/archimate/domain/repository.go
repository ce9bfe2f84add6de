package domain

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// Repository implements archimatev1mcpwrite.ArchitectureServiceHandler.
// Every tenant has its own id space: an id taken in one tenant does not
// exist in another, so no answer (not found, already exists, similar
// elements) tells one tenant anything about another's ids, and no write of
// one tenant can reach another's elements.
type Repository struct {
	mu       sync.Mutex
	tenants  map[string]*space
	received []proto.Message
	// unrecorded: Received stays empty (NewWorkingCopy).
	unrecorded bool
	items      itemKeys // the keys of batch items written (bulk.go)
}

// space is one tenant's elements and relationships.
type space struct {
	elements      map[string]*archimatev1.Element // by id
	relationships map[string]*archimatev1.Relationship
	names         map[nameKey]string // (model, folded name) -> element id
	born          map[string]uint64  // element id -> creation number (births)
	// shared: a working copy's space (NewWorkingCopy), whose answers hold
	// the elements and relationships it keeps instead of copies of them.
	shared bool
}

// nameKey indexes element names per model, case-insensitively, so a create
// checks uniqueness without scanning the tenant's elements.
type nameKey struct{ model, name string }

func keyOf(model, name string) nameKey {
	return nameKey{model: model, name: foldName(name)}
}

// foldName is strings.ToLower(strings.ToUpper(name)), names folded so
// that those differing only in case compare equal. For ASCII that is
// strings.ToLower alone: one pass, and no copy of a name already in lower
// case.
func foldName(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return strings.ToLower(strings.ToUpper(name))
		}
	}
	return strings.ToLower(name)
}

// New returns an empty repository.
func New() *Repository {
	return &Repository{tenants: map[string]*space{}}
}

// NewWorkingCopy returns an empty repository that keeps no copy of the
// requests it accepts (Received stays empty) and answers a create with the
// element or relationship it keeps, not a copy: the working copy a
// store-backed domain loads one write's rows into, applies the write to
// and drops, which no one inspects or changes afterwards.
func NewWorkingCopy() *Repository {
	return &Repository{tenants: map[string]*space{}, unrecorded: true}
}

// empty is the space of a tenant that has written nothing yet; reads use it
// so that looking up ids never allocates a space.
var empty = &space{}

// space returns the tenant's space, made on first write.
func (r *Repository) space(tenant string) *space {
	sp, ok := r.tenants[tenant]
	if !ok {
		sp = &space{elements: map[string]*archimatev1.Element{}, relationships: map[string]*archimatev1.Relationship{}, names: map[nameKey]string{}, born: map[string]uint64{}, shared: r.unrecorded}
		r.tenants[tenant] = sp
	}
	return sp
}

// read returns the tenant's space without making one.
func (r *Repository) read(tenant string) *space {
	if sp, ok := r.tenants[tenant]; ok {
		return sp
	}
	return empty
}

// Element returns a copy of the tenant's element id, for inspection.
func (r *Repository) Element(tenant, id string) (*archimatev1.Element, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.read(tenant).elements[id]
	if !ok {
		return nil, false
	}
	return proto.Clone(e).(*archimatev1.Element), true
}

// Relationship returns a copy of the tenant's relationship id, for inspection.
func (r *Repository) Relationship(tenant, id string) (*archimatev1.Relationship, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rel, ok := r.read(tenant).relationships[id]
	if !ok {
		return nil, false
	}
	return proto.Clone(rel).(*archimatev1.Relationship), true
}

// Received returns copies of every request the domain has accepted for
// processing, in order (what the MCP layer produced from agent input).
func (r *Repository) Received() []proto.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]proto.Message, len(r.received))
	for i, m := range r.received {
		out[i] = proto.Clone(m)
	}
	return out
}

func (r *Repository) record(m proto.Message) {
	if !r.unrecorded {
		r.received = append(r.received, proto.Clone(m))
	}
}

// ActiveModel is the model a tenant writes to unless the agent names one.
func ActiveModel(tenant string) string { return "model-" + tenant + "-main" }

// itemRecord is a written item under its key.
type itemRecord struct {
	fingerprint string
	result      *archimatev1.ElementResult
	at          time.Time
}

// itemKeys are the keys of a repository's written batch items, by
// ItemScope.
type itemKeys struct {
	mu   sync.Mutex // held across one keyed item: look up, write, record
	keys map[string]itemRecord
}

// births numbers every element created, so an element deleted and
// re-created under the same id is a different state even with the same
// name and fields.
var births atomic.Uint64
