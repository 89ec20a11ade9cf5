package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	p, fs := a.preamble("approvals list")
	state := fs.String("state", "pending", "pending, approved, denied, timed_out, voided, or all")
	asJSON := fs.Bool("json", false, "a JSON array, one element per line")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	filter := store.ApprovalState(*state)
	if *state == "all" {
		filter = ""
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	items, err := rt.DB.Approvals(context.Background(), filter, 200)
	if err != nil {
		return a.failf("%v", err)
	}
	if *asJSON {
		list := a.jsonList()
		defer list.end()
		for _, it := range items {
			order, _ := jsonv.ParseString(it.OrderJSON, jsonv.Options{})
			list.add(jsonv.ObjectOf("id", it.ID, "state", string(it.State), "broker", it.Broker, "why", it.Why,
				"limit", it.Limit, "limit_value", it.LimitValue, "attempted", it.Attempted, "order", order,
				"digest", it.Digest, "agent_reason", it.AgentReason, "created_at", live.FormatTimestamp(it.CreatedAt),
				"deadline", live.FormatTimestamp(it.Deadline), "resolved_by", it.ResolvedBy, "resolution", it.Resolution,
				"breaches", breachesJSON(it.Breaches), "outcome", it.Outcome))
		}
		return exitOK
	}
	if len(items) == 0 {
		fmt.Fprintf(a.Stdout, "no %s review items\n", *state)
		return exitOK
	}
	approvalsTable(a.Stdout, items, a.Now())
	return exitOK
}

func (a *App) approvalsResolve(args []string, state store.ApprovalState) int {
	verb := map[store.ApprovalState]string{store.ApprovalApproved: "approve", store.ApprovalDenied: "deny"}[state]
	p, fs := a.preamble("approvals " + verb)
	reason := fs.String("reason", "", "why (recorded)")
	if code, ok := p.parse(args, anyArgs); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageErr(fs, "give one review item id")
	}
	id := fs.Arg(0)
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	ctx := context.Background()
	it, err := rt.DB.Resolve(ctx, id, state, operatorName(), *reason)
	switch {
	case errors.Is(err, store.ErrNotPending):
		printLine(a.Stdout, "%s was already %s (by %s) — nothing changed.", id, it.State, orUnknown(it.ResolvedBy))
		return exitFailure
	case err != nil:
		return a.failf("%v", err)
	}
	rt.record(live.AuditRecord{Kind: live.ApprovalKind(state), Outcome: live.OutcomeAccepted, Broker: it.Broker,
		ApprovalID: id, Intent: fmt.Sprintf("%s review item %s", verb, id),
		Detail: jsonv.ObjectOf("digest", it.Digest, "reason", *reason)})
	if state != store.ApprovalApproved {
		fmt.Fprintf(a.Stdout, "%s: %s. The running cockpit picks this up within a second.\n", id, state)
		return exitOK
	}
	return a.approvalOutcome(rt, id)
}

// approvalOutcome waits (a few seconds) for the running cockpit to run the approved order
// through the gate again, and says what happened: sent, or why the approval did not go through.
func (a *App) approvalOutcome(rt *runtime, id string) int {
	wait := a.outcomeWait
	if wait <= 0 {
		wait = 10 * time.Second
	}
	fmt.Fprintf(a.Stdout, "%s: approved. The gate checks the order again before it goes…\n", id)
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		it, err := rt.DB.Approval(context.Background(), id)
		if err != nil {
			return a.failf("%v", err)
		}
		if it.Outcome != "" {
			printLine(a.Stdout, "%s: %s", id, it.Outcome)
			if strings.HasPrefix(it.Outcome, live.OutcomeSent) {
				return exitOK
			}
			return exitFailure
		}
		if time.Since(start) >= wait {
			fmt.Fprintf(a.Stdout, "%s: no running cockpit has reported the result yet; see `cockpit approvals list --state approved`.\n", id)
			return exitOK
		}
	}
}

func breachesJSON(bs []store.ApprovalBreach) []any {
	out := make([]any, len(bs))
	for i, b := range bs {
		out[i] = jsonv.ObjectOf("limit", b.Limit, "limit_value", b.LimitValue, "attempted", b.Attempted, "detail", b.Detail)
	}
	return out
}
