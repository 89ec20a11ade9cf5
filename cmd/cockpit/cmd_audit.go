package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/termsafe"
	"cockpit/live/vibe"
	"cockpit/session"
	"cockpit/store"
)

func (a *App) cmdAudit(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, "usage: cockpit audit list|show|verify|export …")
		return exitUsage
	}
	switch args[0] {
	case "list":
		return a.auditList(args[1:])
	case "show":
		return a.auditShow(args[1:])
	case "verify":
		return a.auditVerify(args[1:])
	case "export":
		return a.auditExport(args[1:])
	case "rotate":
		return a.auditRotate(args[1:])
	}
	fmt.Fprintf(a.Stderr, "cockpit audit: unknown subcommand %q (list, show, verify, export)\n", args[0])
	return exitUsage
}

func (a *App) auditList(args []string) int {
	p, fs := a.preamble("audit list")
	since := fs.String("since", "", "only events at or after this time (RFC 3339, or a duration ago like 1h)")
	typ := fs.String("type", "", "only events of this type (order_placed, breach, halt_tripped, …)")
	order := fs.String("order", "", "only events of this order id or client order id")
	code := fs.String("code", "", "only events with this reason code (halted, max_order_notional_usd, …)")
	limit := fs.Int("limit", 50, "at most this many events")
	asJSON := fs.Bool("json", false, "a JSON array, one element per line")
	fleetWide := fs.Bool("fleet", false, "every host's trail, from the fleet's audit stream (newest --limit)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *fleetWide {
		return a.auditListFleet(*p.home, *limit, *asJSON)
	}
	f := store.Filter{Type: *typ, OrderID: *order, Reason: *code, Limit: *limit}
	if *since != "" {
		t, err := parseSince(*since, a.Now())
		if err != nil {
			return a.usageErr(fs, "--since %q: %v", *since, err)
		}
		f.Since = t
	}
	rt, exit, ok := p.open("")
	if !ok {
		return exit
	}
	defer rt.close()
	evs, err := rt.DB.Events(context.Background(), f)
	if err != nil {
		return a.failf("%v", err)
	}
	list := a.jsonList()
	if *asJSON {
		defer list.end()
	}
	for i := len(evs) - 1; i >= 0; i-- { // oldest first, like a log
		e := evs[i]
		if *asJSON {
			list.add(session.EventJSON(e))
			continue
		}
		fmt.Fprintf(a.Stdout, "%6d  %s  %-8s %-16s %-9s %-24s %s\n", e.Seq, e.Time.Format("2006-01-02 15:04:05"),
			cell(e.ActorKind), cell(e.Type), cell(e.Outcome), cell(e.Reason), cell(e.Summary))
	}
	if len(evs) == 0 && !*asJSON {
		fmt.Fprintln(a.Stdout, "no events match")
	}
	return exitOK
}

// parseSince reads an RFC 3339 time or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	return live.ParseExpiry(s)
}

func (a *App) auditShow(args []string) int {
	p, fs := a.preamble("audit show")
	if code, ok := p.parse(args, anyArgs); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageErr(fs, "give one event seq")
	}
	seq, err := strconv.ParseInt(fs.Arg(0), 10, 64)
	if err != nil || seq <= 0 {
		return a.usageErr(fs, "seq %q is not a positive number", fs.Arg(0))
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	e, err := rt.DB.Event(context.Background(), seq)
	if err != nil {
		return a.failf("%v", err)
	}
	b, _ := jsonv.Marshal(session.EventJSON(e), jsonv.Python)
	fmt.Fprintln(a.Stdout, string(termsafe.JSON(b)))
	return exitOK
}

func (a *App) auditVerify(args []string) int {
	p, fs := a.preamble("audit verify")
	mirror := fs.Bool("mirror", false, "also verify live/audit_chain.jsonl (the Vibe-Trading mirror)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	start := time.Now()
	rep, err := rt.DB.Verify(context.Background(), func(n int64) {
		fmt.Fprintf(a.Stderr, "verified %d events…\n", n)
	})
	if err != nil {
		return a.failf("verify: %v", err)
	}
	if !rep.OK() {
		fmt.Fprintf(a.Stdout, "audit chain BROKEN at event %d (%s): %s\n%d events before it verified.\n",
			rep.Break.Seq, cell(rep.Break.Reason), cell(rep.Break.Detail), rep.Events)
		rt.Log.Error("audit chain broken", "seq", rep.Break.Seq, "reason", rep.Break.Reason)
		return exitFailure
	}
	if msg := anchorTrouble(context.Background(), rt.DB); msg != "" { // DV15: truncated, emptied or replaced
		fmt.Fprintf(a.Stdout, "audit chain REFUSED: %s\n%d events verified, but they are not the chain the anchor %s recorded.\n"+
			"Keep the files for investigation; `cockpit audit rotate --reason …` archives them and starts a new chain.\n",
			msg, rep.Events, rt.DB.Anchor())
		return exitFailure
	}
	fmt.Fprintf(a.Stdout, "audit chain OK: %d events verified in %s (last hash %s)\n", rep.Events,
		time.Since(start).Round(time.Millisecond), shortHash(rep.Last))
	if *mirror {
		m := &vibe.Mirror{Root: rt.Root}
		cr := vibe.VerifyChain(m.ChainPath())
		if !cr.OK {
			fmt.Fprintf(a.Stdout, "mirror chain BROKEN at line %d (seq %d, %s): %s\n", cr.Break.Index+1, cr.Break.Seq, cell(cr.Break.Reason), cell(cr.Break.Detail))
			return exitFailure
		}
		fmt.Fprintf(a.Stdout, "mirror chain OK: %d records\n", cr.Records)
	}
	return exitOK
}

func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

func (a *App) auditExport(args []string) int {
	p, fs := a.preamble("audit export")
	format := fs.String("format", "jsonl", "csv, jsonl, or replay (a script for the replay agent)")
	out := fs.String("out", "-", "file to write (- for stdout)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *format != "csv" && *format != "jsonl" && *format != "replay" {
		return a.usageErr(fs, "--format %q: want csv, jsonl or replay", *format)
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	var w io.Writer = a.Stdout
	if *out != "-" {
		f, err := os.OpenFile(*out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return a.failf("%v", err)
		}
		defer f.Close()
		w = f
	}
	n, err := session.ExportEvents(context.Background(), rt.DB, *format, w)
	if err != nil {
		return a.failf("export: %v", err)
	}
	if *out != "-" {
		fmt.Fprintf(a.Stderr, "exported %d events to %s\n", n, *out)
	}
	return exitOK
}
