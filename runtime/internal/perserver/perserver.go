// Package perserver keeps state per server for packages that register
// tools into a server they do not own: the server is held weakly, and its
// entry goes when the server does.
package perserver

import (
	"runtime"
	"sync"
	"weak"
)

// Map holds a value of type V per server of type S. The zero Map is ready
// to use.
type Map[S, V any] struct {
	mu sync.Mutex
	m  map[weak.Pointer[S]]V
}

// Update runs f under the map's lock with s's value, made by newV when s
// has none yet (created reports that it was).
func (p *Map[S, V]) Update(s *S, newV func() V, f func(v V, created bool)) {
	key := weak.Make(s)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[weak.Pointer[S]]V{}
	}
	v, ok := p.m[key]
	if !ok {
		v = newV()
		p.m[key] = v
		runtime.AddCleanup(s, func(k weak.Pointer[S]) {
			p.mu.Lock()
			delete(p.m, k)
			p.mu.Unlock()
		}, key)
	}
	f(v, !ok)
}
