package plugintest

import (
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Imports keeps the files that Requests compiled as imports, so that many
// Requests over one corpus (a sweep compiling it a directory at a time)
// parse and link each shared import once instead of once per Request. A
// file is kept, and reused, only while neither it nor any file it imports
// is in one of the volatile directories (an overlay the caller writes
// into while it compiles: a file there shadows the corpus's and must be
// compiled fresh). Safe for concurrent Requests.
type Imports struct {
	volatile []string
	mu       sync.Mutex
	files    map[string]kept
}

// kept is a compiled import and the paths of every file it imports,
// transitively.
type kept struct {
	file    linker.File
	closure []string
}

// NewImports returns an empty cache; files under the volatile directories
// are never kept.
func NewImports(volatile ...string) *Imports {
	return &Imports{volatile: volatile, files: map[string]kept{}}
}

// shadowed reports whether path is in a volatile directory now.
func (c *Imports) shadowed(path string) bool {
	for _, d := range c.volatile {
		if _, err := os.Stat(filepath.Join(d, filepath.FromSlash(path))); err == nil {
			return true
		}
	}
	return false
}

// lookup returns the kept compilation of path for one compilation, whose
// choices so far are in decided (a path's file; nil: compiled fresh):
// the kept file when it and its imports are chosen kept or, not chosen
// yet, not shadowed now. Every file it brings is then chosen, so one
// compilation never holds two compilations of a path.
func (c *Imports) lookup(path string, decided map[string]linker.File) (linker.File, bool) {
	if f, ok := decided[path]; ok {
		return f, f != nil
	}
	c.mu.Lock()
	k, ok := c.files[path]
	c.mu.Unlock()
	usable := func(p string) bool {
		if f, ok := decided[p]; ok {
			return f != nil
		}
		return !c.shadowed(p)
	}
	ok = ok && usable(path)
	if ok {
		for _, p := range k.closure {
			if !usable(p) {
				ok = false
				break
			}
		}
	}
	if !ok {
		decided[path] = nil
		return nil, false
	}
	decided[path] = k.file
	c.mu.Lock()
	for _, p := range k.closure {
		decided[p] = c.files[p].file
	}
	c.mu.Unlock()
	return k.file, true
}

// keep records every import of res that is not one of targets and whose
// closure is free of shadowed files. Volatile directories only grow, so a
// file not shadowed now was not shadowed when res was compiled.
func (c *Imports) keep(res linker.Files, targets []string) {
	isTarget := map[string]bool{}
	for _, t := range targets {
		isTarget[t] = true
	}
	// closure returns fd's transitive imports, or ok false when fd or one
	// of them is a target or shadowed.
	memo := map[string][]string{}
	bad := map[string]bool{}
	var closure func(fd protoreflect.FileDescriptor) ([]string, bool)
	closure = func(fd protoreflect.FileDescriptor) ([]string, bool) {
		p := fd.Path()
		if bad[p] {
			return nil, false
		}
		if cl, ok := memo[p]; ok {
			return cl, true
		}
		if isTarget[p] || c.shadowed(p) {
			bad[p] = true
			return nil, false
		}
		seen := map[string]bool{}
		var cl []string
		imps := fd.Imports()
		for i := range imps.Len() {
			dep := imps.Get(i).FileDescriptor
			sub, ok := closure(dep)
			if !ok {
				bad[p] = true
				return nil, false
			}
			for _, s := range append(sub, dep.Path()) {
				if !seen[s] {
					seen[s] = true
					cl = append(cl, s)
				}
			}
		}
		memo[p] = cl
		return cl, true
	}
	var visit func(fd protoreflect.FileDescriptor)
	visited := map[string]bool{}
	visit = func(fd protoreflect.FileDescriptor) {
		if visited[fd.Path()] {
			return
		}
		visited[fd.Path()] = true
		imps := fd.Imports()
		for i := range imps.Len() {
			visit(imps.Get(i).FileDescriptor)
		}
		f, ok := fd.(linker.File)
		if !ok {
			return
		}
		cl, ok := closure(fd)
		if !ok {
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, have := c.files[fd.Path()]; have {
			return
		}
		// Kept only with the very imports kept: a file linked against
		// another compilation of an import would define its symbols twice
		// beside the kept one.
		for i := range imps.Len() {
			if dep, ok := c.files[imps.Get(i).Path()]; !ok || dep.file != imps.Get(i).FileDescriptor {
				return
			}
		}
		c.files[fd.Path()] = kept{f, cl}
	}
	for _, f := range res {
		visit(f)
	}
}

// cachedResolver answers from c, except for the files being compiled,
// before asking next; one per compilation.
type cachedResolver struct {
	c       *Imports
	targets []string
	next    protocompile.Resolver
	mu      *sync.Mutex
	decided map[string]linker.File
}

func newCachedResolver(c *Imports, targets []string, next protocompile.Resolver) cachedResolver {
	return cachedResolver{c, targets, next, &sync.Mutex{}, map[string]linker.File{}}
}

func (r cachedResolver) FindFileByPath(path string) (protocompile.SearchResult, error) {
	if slices.Contains(r.targets, path) {
		return r.next.FindFileByPath(path)
	}
	r.mu.Lock()
	f, ok := r.c.lookup(path, r.decided)
	r.mu.Unlock()
	if ok {
		return protocompile.SearchResult{Desc: f}, nil
	}
	return r.next.FindFileByPath(path)
}
