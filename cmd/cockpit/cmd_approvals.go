package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/store"
)

func (a *App) cmdApprovals(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, "usage: cockpit approvals list [--state S] | approve ID [--reason R] | deny ID [--reason R]")
		return exitUsage
	}
	switch args[0] {
	case "list":
		return a.approvalsList(args[1:])
	case "approve":
		return a.approvalsResolve(args[1:], store.ApprovalApproved)
	case "deny":
		return a.approvalsResolve(args[1:], store.ApprovalDenied)
	}
	fmt.Fprintf(a.Stderr, "cockpit approvals: unknown subcommand %q (list, approve, deny)\n", args[0])
	return exitUsage
}

func (a *App) approvalsList(args []string) int {
	fs, home := a.flags("approvals list")
	state := fs.String("state", "pending", "pending, approved, denied, timed_out, voided, or all")
	asJSON := fs.Bool("json", false, "one JSON object per line")
	if code, ok := a.parse(fs, args); !ok {
		return code
	}
	filter := store.ApprovalState(*state)
	if *state == "all" {
		filter = ""
	}
	rt, err := a.openRuntime(*home)
	if err != nil {
		return a.failf("%v", err)
	}
	defer rt.close()
	items, err := rt.db.Approvals(context.Background(), filter, 200)
	if err != nil {
		return a.failf("%v", err)
	}
	now := a.Now()
	for _, it := range items {
		if *asJSON {
			order, _ := jsonv.ParseString(it.OrderJSON, jsonv.Options{})
			a.printJSON(jsonv.ObjectOf("id", it.ID, "state", string(it.State), "broker", it.Broker, "why", it.Why,
				"limit", it.Limit, "limit_value", it.LimitValue, "attempted", it.Attempted, "order", order,
				"digest", it.Digest, "agent_reason", it.AgentReason, "created_at", live.FormatTimestamp(it.CreatedAt),
				"deadline", live.FormatTimestamp(it.Deadline), "resolved_by", it.ResolvedBy, "resolution", it.Resolution))
			continue
		}
		left := ""
		if it.State == store.ApprovalPending {
			left = "  " + humanDuration(it.Deadline.Sub(now).Truncate(time.Second)) + " left"
		}
		fmt.Fprintf(a.Stdout, "%s  %-9s %-6s %s %s%s\n", it.ID, it.State, it.Broker, it.Why, orderLine(it), left)
	}
	if len(items) == 0 && !*asJSON {
		fmt.Fprintf(a.Stdout, "no %s review items\n", *state)
	}
	return exitOK
}

func orderLine(it store.Approval) string {
	s := it.Detail
	if it.Limit != "" {
		s = fmt.Sprintf("%s: %s > %s", it.Limit, it.Attempted, it.LimitValue)
	}
	return fmt.Sprintf("%s — %s", it.OrderJSON, s)
}

func (a *App) approvalsResolve(args []string, state store.ApprovalState) int {
	verb := map[store.ApprovalState]string{store.ApprovalApproved: "approve", store.ApprovalDenied: "deny"}[state]
	fs, home := a.flags("approvals " + verb)
	reason := fs.String("reason", "", "why (recorded)")
	if code, ok := a.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageErr(fs, "give one review item id")
	}
	id := fs.Arg(0)
	rt, err := a.openRuntime(*home)
	if err != nil {
		return a.failf("%v", err)
	}
	defer rt.close()
	ctx := context.Background()
	it, err := rt.db.Resolve(ctx, id, state, operatorName(), *reason)
	switch {
	case errors.Is(err, store.ErrNotPending):
		fmt.Fprintf(a.Stdout, "%s was already %s (by %s) — nothing changed.\n", id, it.State, orUnknown(it.ResolvedBy))
		return exitFailure
	case err != nil:
		return a.failf("%v", err)
	}
	rt.record(live.AuditRecord{Kind: "approval_" + string(state), Outcome: live.OutcomeAccepted, Broker: it.Broker,
		ApprovalID: id, Intent: fmt.Sprintf("%s review item %s", verb, id),
		Detail: jsonv.ObjectOf("digest", it.Digest, "reason", *reason)})
	fmt.Fprintf(a.Stdout, "%s: %s. The running cockpit picks this up within a second.\n", id, state)
	return exitOK
}
