package vibeattach

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cockpit/readmodel"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/mandatefile"
	"cockpit/live/vibe"
)

// ErrNoQueue is every action but halt and resume on an attached Vibe-Trading root.
var ErrNoQueue = errors.New("not available when attached to a Vibe-Trading root: it has no command queue")

// ChainNote is what the screen and the log say about halts: the sentinel only, never the chain.
const ChainNote = "H writes Vibe-Trading's HALT file only: the halt is not added to its audit_chain.jsonl " +
	"(its format names no lock another writer could share, and a second writer could break its chain)"

// Options configure a Backend.
type Options struct {
	Root   live.Root
	Broker string // a normalised key (Detect)
	Now    func() time.Time
	By     string // written as the sentinel's "by" (default "cockpit")
	Log    *slog.Logger
}

// Backend implements tui.Backend read-only over a Vibe-Trading root.
type Backend struct {
	o    Options
	mu   sync.Mutex
	tail *vibe.ChainTail
}

// New returns the backend; the audit chain is verified in full on the first Snapshot.
func New(o Options) *Backend {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.By == "" {
		o.By = "cockpit"
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	return &Backend{o: o, tail: &vibe.ChainTail{Path: ChainPath(o.Root), Keep: 500}}
}

// ChainPath is the root's hash-chained audit file.
func ChainPath(root live.Root) string { return filepath.Join(root.LiveDir(), "audit_chain.jsonl") }

// Snapshot implements tui.Backend: sentinels, mandate, day count, last reconciled positions
// and the audit tail, each failing closed.
func (b *Backend) Snapshot(ctx context.Context) readmodel.Snapshot {
	root, key, now := b.o.Root, b.o.Broker, b.o.Now()
	snap := readmodel.Snapshot{Taken: now, Broker: key, Live: !live.IsPaperBroker(key), Attached: Attached}
	snap.Agent = "Vibe-Trading (attached)"
	b.sentinels(&snap)
	b.mandate(&snap)
	n, ok, why := counter.FileStatus(root, key, now)
	if _, err := os.Stat(root.CounterPath(key)); !ok && !errors.Is(err, fs.ErrNotExist) {
		n = counter.ReadDailyCount(root, key, now)
		snap.Faults = append(snap.Faults, why+": Vibe-Trading counts "+fmt.Sprint(n)+" orders today from it (fail-open, D2)")
	}
	snap.OrdersToday = n
	b.positions(&snap)
	snap.Audit, snap.AuditTotal = b.auditTail(&snap)
	return snap
}

// sentinels reads the HALT files Vibe-Trading's gate checks (the read model's reading); a
// REDUCE_ONLY file, which Vibe-Trading does not honour, is a fault, not a state.
func (b *Backend) sentinels(snap *readmodel.Snapshot) {
	root, key := b.o.Root, b.o.Broker
	readmodel.Sentinels(root, key, snap)
	if snap.State == live.ReduceOnly {
		snap.State = live.Active
	}
	for _, scope := range []live.Scope{live.GlobalScope, live.BrokerScope(key)} {
		if a, _ := halt.ReadSentinel(root, live.ReduceOnlySentinel, scope); a != nil {
			snap.Faults = append(snap.Faults, "a REDUCE_ONLY file ("+scope.String()+") is on this root: Vibe-Trading does not honour it")
		}
	}
}

// mandate is the broker's mandate.json under cockpit's strict rules: an unreadable or invalid
// file is shown as an error, never as limits. Vibe-Trading records no commit hash cockpit could
// check, so a valid file is shown as unverified.
func (b *Backend) mandate(snap *readmodel.Snapshot) {
	m, err := mandatefile.Load(b.o.Root, b.o.Broker)
	switch {
	case errors.Is(err, live.ErrNoMandate):
		snap.MandateState = live.MandateMissing
	case err != nil:
		snap.MandateState, snap.MandateErr = live.MandateInvalid, err.Error()
	default:
		snap.Mandate, snap.MandateState = m, live.MandateUnverified
		snap.Expires, _ = m.Expiry()
		snap.Committed, _ = live.ParseExpiry(m.Consent.CreatedAt)
	}
}

// Halt implements tui.Backend: the global HALT file in Vibe-Trading's format ({tripped_at,
// by, reason}); an existing sentinel keeps its attribution.
func (b *Backend) Halt(_ context.Context, reason string) error {
	return b.halt(live.GlobalScope, reason)
}

// HaltBroker implements tui.Backend: the broker's own HALT file.
func (b *Backend) HaltBroker(_ context.Context, reason string) error {
	return b.halt(live.BrokerScope(b.o.Broker), reason)
}

func (b *Backend) halt(scope live.Scope, reason string) error {
	if a, _ := halt.ReadSentinel(b.o.Root, live.HaltSentinel, scope); a != nil {
		return nil
	}
	path, err := halt.Trip(b.o.Root, live.HaltSentinel, scope, b.o.By, reason, b.o.Now())
	if !halt.InForce(err) {
		return fmt.Errorf("write the HALT file: %w", err)
	}
	b.o.Log.Info("halted an attached Vibe-Trading root", "sentinel", path, "by", b.o.By, "reason", reason, "note", ChainNote)
	return err // nil, or in force but not known to be on disk
}

// Resume implements tui.Backend: removes the global and the broker's HALT files.
func (b *Backend) Resume(_ context.Context, reason string) error {
	var cleared []string
	for _, scope := range []live.Scope{live.GlobalScope, live.BrokerScope(b.o.Broker)} {
		ok, err := halt.Clear(b.o.Root, live.HaltSentinel, scope)
		if err != nil {
			return fmt.Errorf("clear HALT (%s): %w", scope, err)
		}
		if ok {
			cleared = append(cleared, "HALT ("+scope.String()+")")
		}
	}
	if len(cleared) == 0 {
		return errors.New("nothing to resume: no HALT file stops " + b.o.Broker)
	}
	b.o.Log.Info("resumed an attached Vibe-Trading root", "cleared", strings.Join(cleared, ", "), "by", b.o.By, "reason", reason)
	return nil
}

// ReduceOnly implements tui.Backend: Vibe-Trading has no reduce-only state.
func (b *Backend) ReduceOnly(context.Context, string) error {
	return fmt.Errorf("%w (and Vibe-Trading has no reduce-only state)", ErrNoQueue)
}

// Flatten implements tui.Backend: what an attached screen can do of a flatten is its HALT
// (Vibe-Trading's gate then refuses every order); cockpit has no broker access here, so
// nothing is cancelled or closed, and the report says so instead of claiming it.
func (b *Backend) Flatten(context.Context, func(gate.FlattenProgress)) gate.FlattenReport {
	now := b.o.Now()
	rep := gate.FlattenReport{Broker: b.o.Broker, Started: now, Finished: now, NotRun: NotRun,
		VerifyErr: "attached: no broker access to cancel, close or verify; Vibe-Trading's runner cancels on its HALT (and closes when its mandate says flatten_on_halt)"}
	if err := b.halt(live.GlobalScope, "flatten from an attached cockpit screen"); !halt.InForce(err) {
		rep.VerifyErr = "the HALT file could not be written: " + err.Error()
		return rep
	}
	rep.Halted = true
	return rep
}

// Attached is the status bar's word on an attached screen: what runs the trading, and the only
// actions that exist here.
const Attached = "ATTACHED to Vibe-Trading (read-only): H / X write its HALT file, U removes it; nothing else acts here"

// NotRun is why an attached screen's flatten cancels and closes nothing.
const NotRun = "no broker access when attached"

// Approve implements tui.Backend.
func (b *Backend) Approve(context.Context, string, string) error { return ErrNoQueue }

// Deny implements tui.Backend.
func (b *Backend) Deny(context.Context, string, string) error { return ErrNoQueue }

// Cancel implements tui.Backend.
func (b *Backend) Cancel(context.Context, string) error { return ErrNoQueue }

// ClosePosition implements tui.Backend.
func (b *Backend) ClosePosition(context.Context, string) error { return ErrNoQueue }

// Block implements tui.Backend.
func (b *Backend) Block(context.Context, string, string) error { return ErrNoQueue }

// Unblock implements tui.Backend.
func (b *Backend) Unblock(context.Context, string, string) error { return ErrNoQueue }

// ExportAudit implements tui.Backend: the chain file itself is the export.
func (b *Backend) ExportAudit(context.Context) (string, error) {
	return "", fmt.Errorf("%w; its audit is %s", ErrNoQueue, ChainPath(b.o.Root))
}

// CommitMandate implements tui.Backend: Vibe-Trading's mandates are committed by Vibe-Trading.
func (b *Backend) CommitMandate(context.Context, []byte, int, string) (*mandatefile.CommitResult, error) {
	return nil, fmt.Errorf("%w (commit mandates with Vibe-Trading itself)", ErrNoQueue)
}

// OnQuit carries out the operator's quit choice: "halt, then quit" (h, or ctrl+c twice)
// writes the global HALT file, as H does. It returns what to print after the screen.
func (b *Backend) OnQuit(ctx context.Context, choice readmodel.QuitChoice) (string, error) {
	if choice != readmodel.QuitHalt {
		return "", nil
	}
	err := b.Halt(ctx, "quit from the attached screen: halt")
	if !halt.InForce(err) {
		return "", err
	}
	path := b.o.Root.SentinelPath(live.HaltSentinel, "")
	msg := fmt.Sprintf("HALT %s (Vibe-Trading's gate stops every order). Remove it to resume: cockpit attach --vibe %s, then resume; or Vibe-Trading's /resume.", path, b.o.Root.Dir())
	if err != nil {
		msg += "\nWarning: the HALT file is in force but not known to be on disk (" + err.Error() + "); after a crash, check that it is still there."
	}
	return msg, nil
}
