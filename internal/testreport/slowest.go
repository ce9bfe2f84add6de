package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// timed is a package or a top-level test and its elapsed seconds.
type timed struct {
	name    string
	elapsed float64
}

// timings collects what -slowest prints: where the wall-clock time of a
// run went.
type timings struct {
	packages, tests []timed
	first, last     time.Time
}

// observe records a finished package or top-level test (subtests are in
// their parent's time) and the event's time.
func (tm *timings) observe(ev event) {
	if !ev.Time.IsZero() {
		if tm.first.IsZero() || ev.Time.Before(tm.first) {
			tm.first = ev.Time
		}
		if ev.Time.After(tm.last) {
			tm.last = ev.Time
		}
	}
	if ev.Action != "pass" && ev.Action != "fail" {
		return
	}
	switch {
	case ev.Test == "":
		tm.packages = append(tm.packages, timed{ev.Package, ev.Elapsed})
	case !strings.Contains(ev.Test, "/"):
		tm.tests = append(tm.tests, timed{ev.Package + "." + ev.Test, ev.Elapsed})
	}
}

// printSlowest prints the run's wall-clock time (first to last event) and
// its n slowest packages and n slowest top-level tests, slowest first.
func (tm *timings) printSlowest(w io.Writer, n int) {
	if n <= 0 {
		return
	}
	wall := ""
	if !tm.first.IsZero() {
		wall = fmt.Sprintf(" of %s wall clock (first to last event)", tm.last.Sub(tm.first).Round(time.Second))
	}
	fmt.Fprintf(w, "\nslowest packages%s:\n", wall)
	printTop(w, tm.packages, n)
	fmt.Fprintf(w, "slowest tests:\n")
	printTop(w, tm.tests, n)
}

func printTop(w io.Writer, list []timed, n int) {
	sorted := append([]timed(nil), list...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].elapsed != sorted[j].elapsed {
			return sorted[i].elapsed > sorted[j].elapsed
		}
		return sorted[i].name < sorted[j].name
	})
	for _, t := range sorted[:min(n, len(sorted))] {
		fmt.Fprintf(w, "  %7.1fs  %s\n", t.elapsed, t.name)
	}
}
