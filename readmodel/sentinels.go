package readmodel

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"cockpit/live"
	"cockpit/live/halt"
)

// Sentinels fills what the root's sentinel files say of one broker: its trading state, why
// and by whom it is halted, the sentinel shown on the status bar (and whether it could be
// read: an unreadable one is halted), and sentinels that halt nothing.
func Sentinels(root live.Root, broker string, snap *Snapshot) {
	snap.HaltFile, snap.HaltFileOK = root.SentinelPath(live.HaltSentinel, broker), true
	snap.State = halt.StateOf(root, broker)
	snap.Warnings = append(snap.Warnings, SentinelWarnings(root)...)
	for _, scope := range []live.Scope{live.GlobalScope, live.BrokerScope(broker)} {
		if _, err := os.Lstat(root.SentinelPath(live.HaltSentinel, scope.Broker)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			snap.HaltFileOK, snap.State = false, live.Halted // unreadable: halted, shown as ERROR
		}
		if a, err := halt.ReadSentinel(root, live.HaltSentinel, scope); err == nil && a != nil && snap.HaltReason == "" {
			snap.HaltReason = HaltLine(a, scope)
		}
	}
}

// SentinelWarnings lists sentinel files that halt nothing (a HALT in a directory that is not
// a broker key), to raise as alerts.
func SentinelWarnings(root live.Root) []string {
	var out []string
	for _, p := range halt.UnrecognisedSentinels(root) {
		out = append(out, "unrecognised sentinel "+p+": its directory is not a broker key (keys are lower case); it halts nothing")
	}
	return out
}

// HaltLine says why, where, by whom and when a halt sentinel was written, leaving out what
// the file does not say (a HALT file made with `touch` says nothing but its scope).
func HaltLine(a *halt.Attribution, scope live.Scope) string {
	why := a.Reason
	if why == "" {
		why = "no reason written"
	}
	parts := []string{scope.String()}
	if a.By != "" {
		parts = append(parts, a.By)
	}
	if t, err := live.ParseExpiry(a.TrippedAt); err == nil {
		parts = append(parts, t.UTC().Format("15:04:05 UTC"))
	} else if a.TrippedAt != "" {
		parts = append(parts, a.TrippedAt)
	}
	return why + " (" + strings.Join(parts, ", ") + ")"
}
