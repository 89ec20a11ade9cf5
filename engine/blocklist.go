package engine

import (
	"context"
	"errors"
	"sort"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// ReasonSymbolBlocked denies an agent's order in a symbol on the session block list.
const ReasonSymbolBlocked live.Reason = "symbol_blocked"

// Audit kinds of the session block list.
const (
	KindSymbolBlocked   = "symbol_blocked"
	KindSymbolUnblocked = "symbol_unblocked"
)

func normSymbol(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// Block puts a symbol on the session block list: the agent's orders in it are denied
// (symbol_blocked) until Unblock. The block stands even when its audit record fails (the
// error is returned and the audit halt trips).
func (e *Engine) Block(ctx context.Context, actor live.Principal, symbol, why string) error {
	sym := normSymbol(symbol)
	if sym == "" {
		return errors.New("block: no symbol")
	}
	e.mu.Lock()
	if e.blocked == nil {
		e.blocked = map[string]bool{}
	}
	e.blocked[sym] = true
	e.mu.Unlock()
	return e.auditBlock(ctx, actor, KindSymbolBlocked, live.OutcomeBlocked, sym, why)
}

// Unblock takes a symbol off the block list. Unblocking adds risk, so it is audited first: a
// failed audit leaves the symbol blocked.
func (e *Engine) Unblock(ctx context.Context, actor live.Principal, symbol, why string) error {
	sym := normSymbol(symbol)
	e.mu.Lock()
	on := e.blocked[sym]
	e.mu.Unlock()
	if !on {
		return errors.New(sym + " is not blocked")
	}
	if err := e.auditBlock(ctx, actor, KindSymbolUnblocked, live.OutcomeAccepted, sym, why); err != nil {
		return err
	}
	e.mu.Lock()
	delete(e.blocked, sym)
	e.mu.Unlock()
	return nil
}

// Blocked lists the blocked symbols, sorted.
func (e *Engine) Blocked() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, 0, len(e.blocked))
	for s := range e.blocked {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// symbolBlocked reports whether a write call names a blocked symbol.
func (e *Engine) symbolBlocked(args *jsonv.Object) (string, bool) {
	sym := normSymbol(argString(args, "symbol"))
	if sym == "" {
		return "", false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return sym, e.blocked[sym]
}

func (e *Engine) auditBlock(ctx context.Context, actor live.Principal, kind, outcome, sym, why string) error {
	if e.Audit == nil {
		return errors.New("no audit sink")
	}
	err := e.Audit.Record(context.WithoutCancel(ctx), live.AuditRecord{Time: e.now(), Actor: actor, Kind: kind,
		Outcome: outcome, Broker: e.BrokerKey, Tool: "tui", Intent: kind + " " + sym,
		Detail: jsonv.ObjectOf("symbol", sym, "why", why)})
	if err != nil {
		e.auditFailed(kind, err)
	}
	return err
}
