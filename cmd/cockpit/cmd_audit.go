package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/vibe"
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

// eventJSON renders an event for --json output and exports.
func eventJSON(e store.Event) *jsonv.Object {
	payload, err := jsonv.ParseString(e.Payload, jsonv.Options{NonFinite: true})
	if err != nil {
		payload = e.Payload
	}
	return jsonv.ObjectOf("seq", jsonv.Number(strconv.FormatInt(e.Seq, 10)), "ts", live.FormatTimestamp(e.Time),
		"session_id", e.SessionID, "actor", jsonv.ObjectOf("kind", e.ActorKind, "id", e.ActorID, "turn_id", e.TurnID, "tool_call_id", e.ToolCallID),
		"type", e.Type, "outcome", e.Outcome, "reason", e.Reason, "broker", e.Broker, "tool", e.Tool,
		"order_id", e.OrderID, "client_order_id", e.ClientOrderID, "approval_id", e.ApprovalID, "summary", e.Summary,
		"payload", payload, "prev_hash", e.PrevHash, "hash", e.Hash)
}

func (a *App) auditList(args []string) int {
	p, fs := a.preamble("audit list")
	since := fs.String("since", "", "only events at or after this time (RFC 3339, or a duration ago like 1h)")
	typ := fs.String("type", "", "only events of this type (order_placed, breach, halt_tripped, …)")
	order := fs.String("order", "", "only events of this order id or client order id")
	code := fs.String("code", "", "only events with this reason code (halted, max_order_notional_usd, …)")
	limit := fs.Int("limit", 50, "at most this many events")
	asJSON := fs.Bool("json", false, "one JSON object per line")
	if code, ok := p.parse(args, 0); !ok {
		return code
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
	evs, err := rt.db.Events(context.Background(), f)
	if err != nil {
		return a.failf("%v", err)
	}
	for i := len(evs) - 1; i >= 0; i-- { // oldest first, like a log
		e := evs[i]
		if *asJSON {
			a.printJSON(eventJSON(e))
			continue
		}
		fmt.Fprintf(a.Stdout, "%6d  %s  %-8s %-16s %-9s %-24s %s\n", e.Seq, e.Time.Format("2006-01-02 15:04:05"),
			e.ActorKind, e.Type, e.Outcome, e.Reason, e.Summary)
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
	e, err := rt.db.Event(context.Background(), seq)
	if err != nil {
		return a.failf("%v", err)
	}
	b, _ := jsonv.Marshal(eventJSON(e), jsonv.Python)
	fmt.Fprintln(a.Stdout, string(b))
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
	rep, err := rt.db.Verify(context.Background(), func(n int64) {
		fmt.Fprintf(a.Stderr, "verified %d events…\n", n)
	})
	if err != nil {
		return a.failf("verify: %v", err)
	}
	if !rep.OK() {
		fmt.Fprintf(a.Stdout, "audit chain BROKEN at event %d (%s): %s\n%d events before it verified.\n",
			rep.Break.Seq, rep.Break.Reason, rep.Break.Detail, rep.Events)
		rt.log.Error("audit chain broken", "seq", rep.Break.Seq, "reason", rep.Break.Reason)
		return exitFailure
	}
	if msg := anchorTrouble(context.Background(), rt.db); msg != "" { // DV15: truncated, emptied or replaced
		fmt.Fprintf(a.Stdout, "audit chain REFUSED: %s\n%d events verified, but they are not the chain the anchor %s recorded.\n"+
			"Keep the files for investigation; `cockpit audit rotate --reason …` archives them and starts a new chain.\n",
			msg, rep.Events, rt.db.Anchor())
		return exitFailure
	}
	fmt.Fprintf(a.Stdout, "audit chain OK: %d events verified in %s (last hash %s)\n", rep.Events,
		time.Since(start).Round(time.Millisecond), shortHash(rep.Last))
	if *mirror {
		m := &vibe.Mirror{Root: rt.root}
		cr := vibe.VerifyChain(m.ChainPath())
		if !cr.OK {
			fmt.Fprintf(a.Stdout, "mirror chain BROKEN at line %d (seq %d, %s): %s\n", cr.Break.Index+1, cr.Break.Seq, cr.Break.Reason, cr.Break.Detail)
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
	n, err := exportEvents(context.Background(), rt.db, *format, w)
	if err != nil {
		return a.failf("export: %v", err)
	}
	if *out != "-" {
		fmt.Fprintf(a.Stderr, "exported %d events to %s\n", n, *out)
	}
	return exitOK
}

// exportEvents writes every event, oldest first, in pages.
func exportEvents(ctx context.Context, db *store.DB, format string, w io.Writer) (int, error) {
	cw := csv.NewWriter(w)
	if format == "csv" {
		cw.Write([]string{"seq", "ts", "session_id", "actor_kind", "actor_id", "type", "outcome", "reason", "broker",
			"tool", "order_id", "client_order_id", "approval_id", "summary", "payload", "prev_hash", "hash"})
	}
	n := 0
	var after int64
	for {
		evs, err := db.Events(ctx, store.Filter{AfterSeq: after, Ascending: true, Limit: 1000})
		if err != nil {
			return n, err
		}
		for _, e := range evs {
			switch format {
			case "csv":
				cw.Write([]string{strconv.FormatInt(e.Seq, 10), live.FormatTimestamp(e.Time), e.SessionID, e.ActorKind, e.ActorID,
					e.Type, e.Outcome, e.Reason, e.Broker, e.Tool, e.OrderID, e.ClientOrderID, e.ApprovalID, e.Summary,
					e.Payload, e.PrevHash, e.Hash})
			case "jsonl":
				b, _ := jsonv.Marshal(eventJSON(e), jsonv.Compact)
				w.Write(append(b, '\n'))
			case "replay":
				if line, ok := replayLine(e); ok {
					w.Write(append(line, '\n'))
				}
			}
			after = e.Seq
			n++
		}
		if len(evs) < 1000 {
			break
		}
	}
	cw.Flush()
	return n, cw.Error()
}

// replayLine turns an agent's tool call recorded in the audit into a replay-script line:
// {"ts": when it was called, "tool": name, "args": {...}}. Only a call's terminal record
// counts (breach and review records of the same call are skipped), and LLM requests are not
// tool calls.
func replayLine(e store.Event) ([]byte, bool) {
	if e.ActorKind != string(live.ActorAgent) || e.Tool == "" || e.Tool == "cli" || e.Tool == engine.LLMTool {
		return nil, false
	}
	payload, err := jsonv.ParseString(e.Payload, jsonv.Options{NonFinite: true})
	if err != nil {
		return nil, false
	}
	dec, _ := payload.(*jsonv.Object).Get("decision")
	if d, ok := dec.(*jsonv.Object); ok {
		if v, _ := d.Get("decision"); v != "allow" && v != "deny" && v != "cancel" {
			return nil, false
		}
	}
	req, _ := payload.(*jsonv.Object).Get("request")
	args, ok := req.(*jsonv.Object)
	if !ok {
		args = jsonv.NewObject()
	}
	if e.Tool == "cancel_order" { // the gate records {action, order_id}; the tool takes order_id
		id, _ := args.Get("order_id")
		args = jsonv.ObjectOf("order_id", id)
	}
	line := jsonv.ObjectOf("ts", live.FormatTimestamp(e.Time), "tool", e.Tool, "args", args)
	b, err := jsonv.Marshal(line, jsonv.Compact)
	return b, err == nil
}
