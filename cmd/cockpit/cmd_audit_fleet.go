package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// auditListFleet prints the newest limit records of the fleet's audit stream, every host's.
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	entries, err := f.AuditTail(ctx, limit)
	if err != nil {
		return a.failf("fleet audit: %v", err)
	}
	list := a.jsonList()
	if asJSON {
		defer list.end()
	}
	for _, e := range entries {
		var r struct {
			Time    time.Time
			Kind    string
			Outcome string
			Reason  string
			Intent  string
			Actor   struct{ Kind, ID string }
		}
		_ = json.Unmarshal(e.Record, &r)
		if asJSON {
			list.add(map[string]any{"seq": e.Seq, "host": e.Host, "hash": e.Hash, "record": e.Record})
			continue
		}
		fmt.Fprintf(a.Stdout, "%6d  %-12s %s  %-8s %-16s %-9s %-24s %s\n", e.Seq, cell(e.Host), r.Time.UTC().Format("2006-01-02 15:04:05"),
			cell(r.Actor.Kind), cell(r.Kind), cell(r.Outcome), cell(r.Reason), cell(r.Intent))
	}
	if len(entries) == 0 && !asJSON {
		fmt.Fprintln(a.Stdout, "no events in the fleet's stream")
	}
	return exitOK
}
