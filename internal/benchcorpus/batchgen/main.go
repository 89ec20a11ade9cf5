// Command batchgen writes the `check --batch` benchmark corpus: batchgen [-n 100000] FILE.
package main

import (
	"flag"
	"fmt"
	"os"

	"cockpit/internal/benchcorpus"
)

func main() {
	n := flag.Int("n", benchcorpus.BatchCases, "number of lines")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: batchgen [-n N] FILE")
		os.Exit(2)
	}
	f, err := os.Create(flag.Arg(0))
	if err == nil {
		err = benchcorpus.WriteBatch(f, *n)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
