package session

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
)

// sentinelAudit records sentinel files that appear or disappear from outside this process
// (halt_tripped / halt_cleared by external), so a halt by `touch` or a resume by `rm` leaves
// a trace. The session's own writes are announced with expect and not recorded twice.
type sentinelAudit struct {
	s   *Session
	mu  sync.Mutex
	own map[string]time.Time // path + "|" + exists → until when the change is ours
}

// expect marks a change this process is about to make (path appears when exists).
func (a *sentinelAudit) expect(path string, exists bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.own == nil {
		a.own = map[string]time.Time{}
	}
	a.own[fmt.Sprint(path, "|", exists)] = time.Now().Add(10 * time.Second)
}

// ours reports (and forgets) whether a change was announced by this process.
func (a *sentinelAudit) ours(c halt.SentinelChange) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := fmt.Sprint(c.Path, "|", c.Exists)
	until, ok := a.own[k]
	delete(a.own, k)
	return ok && time.Now().Before(until)
}

// observe is the watcher's OnSentinel hook.
func (a *sentinelAudit) observe(c halt.SentinelChange) {
	if a.ours(c) {
		return
	}
	s := a.s
	kind, outcome, verb := live.KindHaltTripped, live.OutcomeBlocked, "appeared"
	if !c.Exists {
		kind, outcome, verb = live.KindHaltCleared, live.OutcomeAccepted, "was removed"
	}
	actor := live.Principal{Kind: live.ActorExternal, ID: "external", SessionID: s.id}
	detail := jsonv.ObjectOf("sentinel", string(c.Sentinel), "scope", c.Scope.String(), "path", c.Path, "exists", c.Exists)
	by, why := "", ""
	if c.Exists {
		if at, _ := halt.ReadSentinel(s.rt.Root, c.Sentinel, c.Scope); at != nil {
			by, why = at.By, at.Reason
			detail.Set("by", at.By)
			detail.Set("reason", at.Reason)
		}
	}
	text := fmt.Sprintf("%s (%s) %s from outside cockpit", c.Sentinel, c.Scope, verb)
	if by != "" || why != "" {
		text += fmt.Sprintf(" (by %s: %s)", by, why)
	}
	if by == "watcher" {
		actor = live.System("watcher", s.id)
		text = fmt.Sprintf("%s (%s) written by the halt watcher: %s", c.Sentinel, c.Scope, why)
	}
	broker := c.Scope.Broker
	if c.Scope.Global {
		broker = ""
	}
	rec := live.AuditRecord{Time: s.rt.Now(), Actor: actor, Kind: kind, Outcome: outcome, Broker: broker,
		Reason: live.Reason(c.Sentinel), Intent: strings.TrimSpace(text), Detail: detail}
	if err := s.rt.Audit.Record(context.Background(), rec); err != nil {
		s.rt.Log.Error("audit write failed", "kind", kind, "err", err)
	}
}

// latchRecord audits an operator clearing the watcher's in-memory halt.
func latchRecord(latched, reason string) live.AuditRecord {
	return live.AuditRecord{Kind: live.KindHaltCleared, Outcome: live.OutcomeAccepted, Reason: "halt_latch",
		Intent: "cleared the halt latch (" + latched + "): " + reason,
		Detail: jsonv.ObjectOf("latch", latched, "reason", reason)}
}

// latched is the watcher's OnLatch hook: the in-memory halt is recorded even when no HALT
// file can be written.
func (a *sentinelAudit) latched(why string) {
	s := a.s
	rec := live.AuditRecord{Time: s.rt.Now(), Actor: live.System("watcher", s.id), Kind: live.KindHaltTripped,
		Outcome: live.OutcomeBlocked, Reason: "halt_latch", Intent: "halted in memory (every broker of this session): " + why,
		Detail: jsonv.ObjectOf("latch", why)}
	if err := s.rt.Audit.Record(context.Background(), rec); err != nil {
		s.rt.Log.Error("audit write failed", "kind", rec.Kind, "err", err)
	}
}
