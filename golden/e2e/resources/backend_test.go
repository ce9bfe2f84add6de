package resources_test

import (
	"context"
	"errors"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	libraryv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/resources/gen/library/v1"
)

// backend is a fake library: each tenant's books and shelves by name. It
// records the requests it received.
type backend struct {
	mu      sync.Mutex
	books   map[string]map[string]*libraryv1.Book // tenant -> name -> book
	shelves map[string]map[string]*libraryv1.Shelf
	got     []string // "<method> <tenant> <name>"
}

func newBackend() *backend {
	return &backend{
		books: map[string]map[string]*libraryv1.Book{
			"acme": {"shelves/s1/books/b1": {Name: "shelves/s1/books/b1", Title: "The Road", PageCount: 287}},
		},
		shelves: map[string]map[string]*libraryv1.Shelf{
			"acme": {
				"shelves/s1":               {Name: "shelves/s1", Theme: "fiction"},
				"branches/east/shelves/s2": {Name: "branches/east/shelves/s2", Theme: "history"},
			},
		},
	}
}

func (b *backend) record(method, tenant, name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got = append(b.got, method+" "+tenant+" "+name)
}

func (b *backend) requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.got...)
}

// brokenBook is the name whose read fails with an error that carries a
// database address and credentials, which must never reach the client.
const brokenBook = "shelves/s1/books/broken"

func (b *backend) GetBook(_ context.Context, in *libraryv1.GetBookRequest) (*libraryv1.Book, error) {
	b.record("GetBook", in.GetTenantId(), in.GetName())
	if in.GetName() == brokenBook {
		return nil, errors.New("query books: dial postgres://library:hunter2@10.1.2.3:5432/library failed")
	}
	if bk, ok := b.books[in.GetTenantId()][in.GetName()]; ok {
		return bk, nil
	}
	return nil, status.Errorf(codes.NotFound, "book %s not found", in.GetName())
}

func (b *backend) GetShelf(_ context.Context, in *libraryv1.GetShelfRequest) (*libraryv1.Shelf, error) {
	b.record("GetShelf", in.GetTenantId(), in.GetName())
	if s, ok := b.shelves[in.GetTenantId()][in.GetName()]; ok {
		return s, nil
	}
	return nil, status.Errorf(codes.NotFound, "shelf %s not found", in.GetName())
}

func (b *backend) CountBooks(_ context.Context, in *libraryv1.CountBooksRequest) (*libraryv1.CountBooksResponse, error) {
	b.record("CountBooks", in.GetTenantId(), in.GetParent())
	return &libraryv1.CountBooksResponse{Count: int32(len(b.books[in.GetTenantId()]))}, nil
}
