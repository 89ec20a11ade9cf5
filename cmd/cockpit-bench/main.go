// Command cockpit-bench measures the figures of issue 15's table on this machine — the mandate
// check (batch process, per call, position rows, one JSONL line), redaction and the scanner on
// the reference corpus, the durable gate (sequential and four brokers at once; the disk's fsync
// probe taking turns with the sequential orders, and the gate as a fraction of the bound of
// two fsyncs per order), halt to first cancel and to a verified FLAT, audit append and
// verify, the screen's page query and View(),
// the history figures of issue 32 (an order through the durable gate and through serve-mcp at
// 0, 10,000 and 100,000 settled orders of history, sizes taking turns; start-up to the first
// frame and to trading on a fresh root and on one of 1,000,000 events; four durable gates
// local and then as four hosts of one in-process fleet, in alternating rounds), and the
// process's peak RSS — and prints a table, or JSON with --json. --quick uses smaller inputs and
// finishes in under a minute.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"text/tabwriter"
	"time"
)

// Figure is one measured number.
type Figure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	Note  string  `json:"note,omitempty"`
}

// Report is everything one run measured.
type Report struct {
	Quick     bool      `json:"quick"`
	GoVersion string    `json:"go_version"`
	CPUs      int       `json:"cpus"`
	Started   time.Time `json:"started"`
	Seconds   float64   `json:"seconds"`
	Figures   []Figure  `json:"figures"`
	Errors    []string  `json:"errors,omitempty"`
}

// config is what every measurement takes: the sizes of its inputs.
type config struct {
	quick   bool
	cockpit string // a built cockpit binary ("" builds one)
	tmp     string
}

// size picks the quick or the full size.
func (c config) size(quick, full int) int {
	if c.quick {
		return quick
	}
	return full
}

// step is one measurement; it returns its figures.
type step struct {
	name string
	run  func(c config) ([]Figure, error)
}

var steps = []step{
	{"check --batch", figCheckBatch},
	{"CheckMandate", figCheckMandate},
	{"positions", figPositions},
	{"jsonl line", figLineParse},
	{"redaction", figRedaction},
	{"scanner", figScanner},
	{"durable gate", figGateSequential},
	{"four brokers", figGateFour},
	{"halt", figHalt},
	{"audit", figAudit},
	{"screen", figView},
	{"history gate", figHistoryGate},
	{"history mcp", figHistoryMCP},
	{"start-up", figStartup},
	{"fleet", figFleet},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cockpit-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "smaller inputs: finishes in under a minute")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	verbose := fs.Bool("v", false, "print each step's time on stderr")
	only := fs.String("only", "", "run only the steps whose name contains this text (e.g. gate, halt, audit)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	bin := fs.String("cockpit", "", "a built cockpit binary for the batch figure (default: go build ./cmd/cockpit)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	tmp, err := os.MkdirTemp("", "cockpit-bench-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	c := config{quick: *quick, cockpit: *bin, tmp: tmp}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	rep := Report{Quick: *quick, GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), Started: time.Now().UTC()}
	for _, s := range steps {
		if !strings.Contains(s.name, *only) {
			continue
		}
		t0 := time.Now()
		figs, err := s.run(c)
		if *verbose {
			fmt.Fprintf(stderr, "%-14s %6.1f s\n", s.name, time.Since(t0).Seconds())
		}
		if err != nil {
			rep.Errors = append(rep.Errors, s.name+": "+err.Error())
		}
		rep.Figures = append(rep.Figures, figs...)
	}
	rep.Figures = append(rep.Figures, Figure{Name: "peak RSS", Value: peakRSSMB(), Unit: "MB", Note: "VmHWM of this process, all figures"})
	rep.Seconds = time.Since(rep.Started).Seconds()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		printTable(stdout, rep)
	}
	if len(rep.Errors) > 0 {
		return 1
	}
	return 0
}

func printTable(w io.Writer, rep Report) {
	mode := "full"
	if rep.Quick {
		mode = "quick"
	}
	fmt.Fprintf(w, "cockpit-bench (%s): %s, %d CPUs, %.1f s\n\n", mode, rep.GoVersion, rep.CPUs, rep.Seconds)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tvalue\tunit\tnote")
	for _, f := range rep.Figures {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, format(f.Value), f.Unit, f.Note)
	}
	tw.Flush()
	for _, e := range rep.Errors {
		fmt.Fprintln(w, "ERROR", e)
	}
}

func format(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
