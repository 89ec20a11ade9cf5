package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"cockpit/store"
)

// approvalsTable prints review items as a table a person reads: the order as "BUY $6000 AAPL",
// why it waits (every breach it covers), its state and, while pending, the time left.
func approvalsTable(w io.Writer, items []store.Approval, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tBROKER\tORDER\tSTATE\tDEADLINE\tWHY / BREACHES")
	for _, it := range items {
		ri := store.ReviewItem(it)
		order := ri.OrderText(true, "")
		if strings.TrimSpace(order) == "" {
			order = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(it.ID), cell(it.Broker), cell(order), cell(string(it.State)),
			deadlineCell(it, now), cell(whyLine(it)))
	}
	tw.Flush()
}

// whyLine says why an item waits: the breaches it covers (else its detail), and after an
// approval what the re-checked order did.
func whyLine(it store.Approval) string {
	var parts []string
	if it.Limit != "" {
		parts = append(parts, fmt.Sprintf("%s: %s > %s", it.Limit, it.Attempted, it.LimitValue))
	}
	for _, b := range it.Breaches[min(1, len(it.Breaches)):] { // the first is Limit above
		parts = append(parts, fmt.Sprintf("%s: %s > %s", b.Limit, b.Attempted, b.LimitValue))
	}
	s := it.Why
	if len(parts) > 0 {
		s += " — " + strings.Join(parts, "; ")
	} else if it.Detail != "" {
		s += " — " + it.Detail
	}
	if it.Outcome != "" {
		s += " → " + it.Outcome
	}
	return s
}

// deadlineCell counts down a pending item's deadline; a resolved item shows who resolved it.
func deadlineCell(it store.Approval, now time.Time) string {
	switch {
	case it.State != store.ApprovalPending:
		if it.ResolvedBy != "" {
			return "by " + cell(it.ResolvedBy)
		}
		return "-"
	case !it.Deadline.After(now):
		return "due now"
	}
	return humanDuration(it.Deadline.Sub(now).Truncate(time.Second)) + " left"
}
