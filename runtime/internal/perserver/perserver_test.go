package perserver

import (
	"runtime"
	"testing"
	"time"
)

type server struct{ name string }

func TestUpdateMakesTheValueOnceAndDropsItWithTheServer(t *testing.T) {
	var p Map[server, map[string]int]
	use(t, &p, &server{name: "a"})
	for i := 0; i < 50; i++ {
		runtime.GC()
		p.mu.Lock()
		n := len(p.m)
		p.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the entry outlived its server")
}

// use updates s's value twice and checks it was made once.
func use(t *testing.T, p *Map[server, map[string]int], s *server) {
	var created []bool
	for range 2 {
		p.Update(s, func() map[string]int { return map[string]int{} }, func(v map[string]int, c bool) {
			v["calls"]++
			created = append(created, c)
		})
	}
	var calls int
	p.Update(s, nil, func(v map[string]int, _ bool) { calls = v["calls"] })
	if calls != 2 || len(created) != 2 || !created[0] || created[1] {
		t.Fatalf("calls %d, created %v; want 2, [true false]", calls, created)
	}
}
