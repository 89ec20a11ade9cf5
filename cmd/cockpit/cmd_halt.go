package main

import (
	"fmt"
	"os"

	"cockpit/live"
	"cockpit/live/halt"
)

func sentinelFlags(reduceOnly bool) (live.Sentinel, string) {
	if reduceOnly {
		return live.ReduceOnlySentinel, "reduce-only"
	}
	return live.HaltSentinel, "halt"
}

// cmdHalt trips the global (or one broker's) HALT sentinel. Halting what is already halted
// changes nothing and says so.
func (a *App) cmdHalt(args []string) int {
	p, fs := a.preamble("halt")
	broker := fs.String("broker", "", "halt only this broker (default: every broker)")
	reason := fs.String("reason", "operator halt", "why (recorded with the sentinel)")
	reduceOnly := fs.Bool("reduce-only", false, "set REDUCE_ONLY instead: only orders that shrink positions pass")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	scope, code := a.scope(*broker)
	if code != exitOK {
		return code
	}
	log, done := a.logger(root)
	defer done()
	kind, word := sentinelFlags(*reduceOnly)
	existing, err := halt.ReadSentinel(root, kind, scope)
	if err != nil {
		return a.failf("%v", err)
	}
	if existing != nil {
		printLine(a.Stdout, "Already %s (%s) since %s by %s: %s — nothing changed.",
			pastTense(word), scope, orUnknown(existing.TrippedAt), orUnknown(existing.By), orUnknown(existing.Reason))
		return exitOK
	}
	path, err := halt.Trip(root, kind, scope, operatorName(), *reason, a.Now())
	if !halt.InForce(err) {
		log.Error("trip failed", "sentinel", kind, "scope", scope.String(), "err", err)
		return a.failf("could not write the %s sentinel: %v", word, err)
	}
	log.Info("sentinel tripped", "sentinel", kind, "scope", scope.String(), "by", operatorName(), "reason", *reason, "err", err)
	fmt.Fprintf(a.Stdout, "Trading %s (%s): %s\nSentinel: %s\n", pastTense(word), scope, *reason, path)
	if err != nil {
		fmt.Fprintf(a.Stderr, "warning: %s\n", notDurable(err))
	}
	// The halt stands whatever happens next; the audit record is written after it.
	a.auditSentinel(*p.home, live.KindHaltTripped, live.OutcomeBlocked, kind, scope, *reason)
	if kind == live.HaltSentinel {
		a.publishFleetHalt(root, scope, true, *reason)
	}
	fmt.Fprintf(a.Stdout, "Run `cockpit resume%s --reason …` to clear it.\n", brokerFlag(scope, *reduceOnly))
	return exitOK
}

// cmdResume clears one sentinel; it needs a reason and is idempotent.
func (a *App) cmdResume(args []string) int {
	p, fs := a.preamble("resume")
	broker := fs.String("broker", "", "clear this broker's sentinel (default: the global one)")
	reason := fs.String("reason", "", "why trading may resume (required)")
	reduceOnly := fs.Bool("reduce-only", false, "clear REDUCE_ONLY instead of HALT")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *reason == "" {
		return a.usageErr(fs, "--reason is required: say why trading may resume")
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	scope, code := a.scope(*broker)
	if code != exitOK {
		return code
	}
	log, done := a.logger(root)
	defer done()
	kind, word := sentinelFlags(*reduceOnly)
	// Resuming adds risk: it needs a working audit trail first.
	rt, code, ok := p.open("cannot resume without the audit trail: ")
	if !ok {
		return code
	}
	defer rt.close()
	author := ""
	if at, _ := halt.ReadSentinel(root, kind, scope); at != nil {
		author = at.By // read before clearing: a local-only halt's resume stays local
	}
	existed, err := halt.Clear(root, kind, scope)
	if err != nil {
		log.Error("clear failed", "sentinel", kind, "scope", scope.String(), "err", err)
		return a.failf("could not clear the %s sentinel: %v", word, err)
	}
	if !existed {
		fmt.Fprintf(a.Stdout, "Not %s (%s) — nothing to clear.\n", pastTense(word), scope)
	} else {
		log.Info("sentinel cleared", "sentinel", kind, "scope", scope.String(), "by", operatorName(), "reason", *reason)
		fmt.Fprintf(a.Stdout, "Cleared the %s sentinel (%s): %s\n", word, scope, *reason)
		if err := rt.record(sentinelRecord(live.KindHaltCleared, live.OutcomeAccepted, kind, scope, *reason)); err != nil {
			fmt.Fprintf(a.Stderr, "cockpit: warning: the resume was not audited: %v\n", err)
		}
		if kind == live.HaltSentinel {
			a.publishFleetResume(root, scope, author, *reason)
		}
	}
	// Say what still stands in the way, so nobody believes trading resumed when it did not.
	if scope.Global {
		if still := stillSet(root, kind); len(still) > 0 {
			printLine(a.Stdout, "Still %s by their own sentinel: %v", pastTense(word), still)
		}
	} else if halt.IsGloballyHalted(root) && kind == live.HaltSentinel {
		fmt.Fprintf(a.Stdout, "Trading on %s is still halted by the global sentinel.\n", scope.Broker)
	}
	return exitOK
}

// auditSentinel records a sentinel change; a failure is reported but does not undo it.
func (a *App) auditSentinel(home, auditKind, outcome string, kind live.Sentinel, scope live.Scope, reason string) {
	rt, err := a.openRuntime(home)
	if err == nil {
		defer rt.close()
		err = rt.record(sentinelRecord(auditKind, outcome, kind, scope, reason))
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "cockpit: warning: the sentinel is set, but the audit record failed: %v\n", err)
	}
}

func (a *App) scope(broker string) (live.Scope, int) {
	if broker == "" {
		return live.GlobalScope, exitOK
	}
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		fmt.Fprintf(a.Stderr, "cockpit: --broker: %v\n", err)
		return live.Scope{}, exitUsage
	}
	return live.BrokerScope(key), exitOK
}

// stillSet lists brokers whose own sentinel of this kind is still set.
func stillSet(root live.Root, kind live.Sentinel) []string {
	var out []string
	for _, b := range knownBrokers(root) {
		if _, err := os.Stat(root.SentinelPath(kind, b)); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func pastTense(word string) string {
	if word == "halt" {
		return "halted"
	}
	return word
}

func brokerFlag(scope live.Scope, reduceOnly bool) string {
	s := ""
	if !scope.Global {
		s = " --broker " + scope.Broker
	}
	if reduceOnly {
		s += " --reduce-only"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// notDurable is what an operator is told when a sentinel is in force but its fsync failed.
func notDurable(err error) string {
	return fmt.Sprintf("the sentinel is in place and in force, but not known to be on disk: a crash before the disk flushes may lose it (%v); check the disk, and after any crash check that it is still there", err)
}
