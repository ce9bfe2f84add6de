package impl

import "testing"

// BenchmarkCallIDs is the two IDs of a createElement call (a UUIDv7 id and
// a UUIDv4 message id), with the scratch's ID storage and without.
func BenchmarkCallIDs(b *testing.B) {
	for _, scratch := range []bool{true, false} {
		name := "allocated"
		if scratch {
			name = "scratch"
		}
		b.Run(name, func(b *testing.B) {
			s := GetScratch()
			defer s.Release()
			b.ReportAllocs()
			for b.Loop() {
				c := Call{}
				if scratch {
					c.block = &s.rand
				}
				if len(c.UUIDv7())+len(c.UUIDv4()) != 72 {
					b.Fatal("bad id")
				}
			}
		})
	}
}
