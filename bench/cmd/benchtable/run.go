package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	quiet := flag.Bool("q", false, "do not echo the benchmark output")
	readme := flag.String("readme", "", "rewrite the proof table between the bench markers of this file")
	overlay := flag.String("overlay", "", "a later run of some benchmarks (make bench-sdk: bench/results/sdk.txt) whose results replace those of the same benchmarks on stdin")
	flag.Parse()
	echo := io.Writer(os.Stdout)
	if *quiet {
		echo = io.Discard
	}
	var raw strings.Builder
	if _, err := parse(io.TeeReader(os.Stdin, &raw), echo); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	var later string
	if *overlay != "" {
		b, err := os.ReadFile(*overlay)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
		later = string(b)
	}
	res, err := merged(raw.String(), later)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	fmt.Println()
	fmt.Print(render(table(res)))
	if *readme != "" {
		if err := rewriteReadme(*readme, raw.String(), later); err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
	}
}
