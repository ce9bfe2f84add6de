package domain

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Memory is the in-memory truth layer, safe for concurrent use. Every record
// belongs to one user of one tenant; another user's IDs (in this tenant or
// any other) do not exist. Entity schemas belong to a tenant (or one user).
type Memory struct {
	mu      sync.Mutex
	now     func() time.Time
	users   map[owner]*userMemory
	tenants map[string]*tenantSchemas
	seq     int

	files   FileOptions
	quota   int // interpretation runs per user; 0 is unlimited
	maxSize int
	// vocab serves the entity_type fields (EntityTypeVocabulary).
	vocab *runtime.Vocabulary
	// urlKey signs file URLs (RetrieveFileUrl).
	urlKey []byte
}

func (m *Memory) user(id owner) *userMemory {
	u, ok := m.users[id]
	if !ok {
		u = &userMemory{
			entities:      map[string]*entity{},
			sources:       map[string]*source{},
			relationships: map[string]*neotomav1.Relationship{},
			relTypes:      map[string]neotomav1.RelationshipType{},
			relOrder:      map[string]int{},
		}
		m.users[id] = u
	}
	return u
}

// requireUser is the owner of a request: the tenant of the call (from the
// request context the generated tools put on ctx) and the acting user. It
// refuses requests without either; the generated code always fills them, so
// an empty one is a wiring bug, not an agent mistake.
func requireUser(ctx context.Context, id string) (owner, error) {
	rc, _ := runtime.RequestContextFrom(ctx)
	if rc.TenantID == "" {
		return owner{}, status.Error(codes.Unauthenticated, "no tenant")
	}
	if id == "" {
		return owner{}, status.Error(codes.Unauthenticated, "no acting user")
	}
	return owner{tenant: rc.TenantID, user: id}, nil
}

func (m *Memory) next() int {
	m.seq++
	return m.seq
}

// FileOptions say which local files file_path may read.
type FileOptions struct {
	// Root is the directory file_path is relative to; a path outside it is
	// refused. Empty: file_path is refused (the server reads no local files).
	Root string
}
