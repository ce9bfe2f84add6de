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
	var overlays []overlay
	flag.Func("overlay", "a later run of some benchmarks (make bench-sdk: bench/results/sdk.txt; make bench-generate: bench/results/generate.txt) whose results replace those of the same benchmarks on stdin; repeatable, applied in order; a missing file is no run", func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		overlays = append(overlays, overlay{path, string(b)})
		return nil
	})
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
	res, err := merged(raw.String(), overlays...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	fmt.Println()
	fmt.Print(render(table(res)))
	if *readme != "" {
		if err := rewriteReadme(*readme, raw.String(), overlays...); err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
	}
}
