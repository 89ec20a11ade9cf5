package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cockpit/fleet"
	"cockpit/session"
	"cockpit/store"
)

// auditListFleet prints the newest limit records of the fleet's audit stream, every host's,
// each checked against its host's chain (its hash as `audit verify` computes it, its host's
// signature, its link to the host's previous record) and marked ok, FORGED, GAP, DUP or
// RESTART; what the stream lost (a purge) is said after the list. Anything that does not
// check out makes the exit status non-zero.
func (a *App) auditListFleet(home string, limit int, asJSON bool) int {
	root, err := a.root(home)
	if err != nil {
		return a.failf("%v", err)
	}
	f, _, err := a.dialFleet(root, 3*time.Second)
	if err != nil {
		return a.failf("%v", err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tail, err := f.ReadAuditTail(ctx, limit)
	if err != nil {
		return a.failf("fleet audit: %v", err)
	}
	local, closeLocal := localTrail(ctx, filepath.Join(root.Dir(), "cockpit.db"))
	defer closeLocal()
	checked := f.CheckAudit(ctx, tail, session.RehashEvent, local)
	list := a.jsonList()
	if asJSON {
		defer list.end()
	}
	bad := len(tail.Warnings)
	for _, c := range checked {
		if c.Mark != fleet.MarkOK && c.Mark != fleet.MarkDuplicate {
			bad++
		}
		a.printFleetEntry(c, list, asJSON)
	}
	if len(checked) == 0 && !asJSON {
		fmt.Fprintln(a.Stdout, "no events in the fleet's stream")
	}
	for _, n := range tail.Notes {
		fmt.Fprintf(a.Stderr, "cockpit: fleet audit: %s\n", n)
	}
	for _, w := range tail.Warnings {
		fmt.Fprintf(a.Stderr, "cockpit: warning: fleet audit: %s\n", w)
	}
	if bad > 0 {
		fmt.Fprintf(a.Stderr, "cockpit: fleet audit: %d records or gaps do not check out (marked above)\n", bad-len(tail.Warnings))
		return exitFailure
	}
	return exitOK
}

// printFleetEntry prints one checked entry: a line, or a JSON object with its mark.
func (a *App) printFleetEntry(c fleet.CheckedEntry, list *jsonList, asJSON bool) {
	var e store.Event
	_ = json.Unmarshal(c.Event, &e)
	if asJSON {
		list.add(map[string]any{"stream_seq": c.StreamSeq, "host": c.Host, "seq": c.Seq, "hash": c.Hash,
			"mark": c.Mark, "why": c.Why, "event": c.Event})
		return
	}
	fmt.Fprintf(a.Stdout, "%-7s %-12s %6d  %s  %-8s %-16s %-9s %-24s %s\n", c.Mark, printable(c.Host, 12), c.Seq,
		e.Time.UTC().Format("2006-01-02 15:04:05"), printable(e.ActorKind, 8), printable(e.Type, 16),
		printable(e.Outcome, 9), printable(e.Reason, 24), printable(e.Summary, 60))
	if c.Why != "" {
		fmt.Fprintf(a.Stdout, "        ^ %s\n", printable(c.Why, 200))
	}
}

// printable is outside text for a line of the terminal: escaped (cell), cut to n runes.
func printable(s string, n int) string {
	q := cell(s)
	if r := []rune(q); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return q
}

// localTrail is this root's own trail, to tell this host's forged entries (nil when there
// is no database or it cannot be opened: its entries are then checked like any host's).
func localTrail(ctx context.Context, path string) (func(int64) (string, bool), func()) {
	if _, err := os.Stat(path); err != nil {
		return nil, func() {}
	}
	db, err := store.Open(path)
	if err != nil {
		return nil, func() {}
	}
	return func(seq int64) (string, bool) {
		e, err := db.Event(ctx, seq)
		if err != nil {
			return "", false
		}
		return e.Hash, true
	}, func() { db.Close() }
}
