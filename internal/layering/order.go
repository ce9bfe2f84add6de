package layering

import "sort"

// layer orders files bottom first so that few arrows point up (the greedy
// heuristic of Eades, Lin and Smyth for a small feedback arc set: take the
// files nothing uses as the top, the files that use nothing as the bottom,
// else the file with most arrows out less arrows in as the top), names breaking ties. An
// arrow from -> to points up when to lies above from. It returns the order
// and the number of arrows that point up.
func layer(files map[string]int, uses map[[2]string][]string) ([]string, int) {
	out := map[string]map[string]bool{}
	in := map[string]map[string]bool{}
	left := map[string]bool{}
	for f := range files {
		left[f], out[f], in[f] = true, map[string]bool{}, map[string]bool{}
	}
	for k := range uses {
		out[k[0]][k[1]], in[k[1]][k[0]] = true, true
	}
	remove := func(f string) {
		delete(left, f)
		for g := range out[f] {
			delete(in[g], f)
		}
		for g := range in[f] {
			delete(out[g], f)
		}
	}
	var bottom, top []string // bottom grows upwards, top grows downwards
	for len(left) > 0 {
		names := make([]string, 0, len(left))
		for f := range left {
			names = append(names, f)
		}
		sort.Strings(names)
		progress := false
		for _, f := range names {
			if len(out[f]) == 0 { // uses nothing left: bottom
				bottom = append(bottom, f)
				remove(f)
				progress = true
			}
		}
		for _, f := range names {
			if left[f] && len(in[f]) == 0 { // used by nothing left: top
				top = append(top, f)
				remove(f)
				progress = true
			}
		}
		if progress {
			continue
		}
		best, score := "", 0
		for _, f := range names {
			if s := len(out[f]) - len(in[f]); best == "" || s > score {
				best, score = f, s
			}
		}
		// The file that most uses others and is least used goes on top.
		top = append(top, best)
		remove(best)
	}
	order := bottom
	for i := len(top) - 1; i >= 0; i-- {
		order = append(order, top[i])
	}
	pos := map[string]int{}
	for i, f := range order {
		pos[f] = i
	}
	back := 0
	for k := range uses {
		if pos[k[1]] > pos[k[0]] {
			back++
		}
	}
	return order, back
}
