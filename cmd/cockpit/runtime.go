package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"cockpit/config"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/paper"
	"cockpit/live/vibe"
	"cockpit/store"
)

// runtime is what most verbs need: the root, its config, the store, the log and the audit.
type runtime struct {
	app     *App
	root    live.Root
	cfg     config.Config
	db      *store.DB
	log     *slog.Logger
	audit   live.AuditSink
	closers []func()
}

// openRuntime opens the runtime root: config, cockpit.db and cockpit.log.
func (a *App) openRuntime(home string) (*runtime, error) {
	root, err := a.root(home)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(root)
	if err != nil {
		return nil, err
	}
	a.registerSecrets(cfg)
	rt := &runtime{app: a, root: root, cfg: cfg}
	log, done := a.logger(root)
	rt.log, rt.closers = log, append(rt.closers, done)
	db, err := store.Open(filepath.Join(root.Dir(), "cockpit.db"))
	if err != nil {
		rt.close()
		return nil, err
	}
	db.Now = a.Now
	db.SetAnchor(filepath.Join(root.Dir(), store.AnchorFile)) // DV15: the chain head outside the database
	rt.db = db
	rt.closers = append(rt.closers, func() { db.Close() }, func() { db.WriteAnchor(context.Background()) })
	rt.audit = db
	if cfg.Audit.VibeMirror {
		rt.audit = live.MultiSink{db, &vibe.Mirror{Root: root}}
	}
	return rt, nil
}

func (rt *runtime) close() {
	for i := len(rt.closers) - 1; i >= 0; i-- {
		rt.closers[i]()
	}
	rt.closers = nil
}

// gate returns a gate bound to this runtime's store.
func (rt *runtime) gate() *gate.Gate {
	return &gate.Gate{Root: rt.root, Now: rt.app.Now, Audit: rt.audit, Journal: rt.db, Mandates: rt.db}
}

// operatorAction audits something the operator did from the command line (DV8).
func (rt *runtime) operatorAction(kind, outcome, broker, summary string, detail any) error {
	return rt.record(live.AuditRecord{Kind: kind, Outcome: outcome, Broker: broker, Intent: summary, Detail: detail})
}

// record audits r as the operator's, from the command line.
func (rt *runtime) record(r live.AuditRecord) error {
	r.Time, r.Actor = rt.app.Now(), live.Operator(operatorName(), "cli")
	if r.Tool == "" {
		r.Tool = "cli"
	}
	err := rt.audit.Record(context.Background(), r)
	if err != nil {
		rt.log.Error("audit write failed", "kind", r.Kind, "err", err)
	}
	return err
}

// ErrAccountInUse reports a paper account held by another running cockpit.
var ErrAccountInUse = errors.New("the paper account is in use by a running cockpit")

// openBroker opens a broker for a verb. The paper account is exclusive to one process at a
// time (its state is loaded from, and saved to, the store).
func (rt *runtime) openBroker(key string) (live.Broker, func(), error) {
	release, err := rt.ownAccount(key)
	if err != nil {
		return nil, nil, err
	}
	return rt.openOwnedBroker(key, release)
}

// ownAccount takes the broker account's exclusive lock. A process changes nothing shared
// (review items, mandates, the journal) before it owns the account.
func (rt *runtime) ownAccount(key string) (func(), error) {
	if !live.IsPaperBroker(key) {
		return nil, fmt.Errorf("broker %q is not configured in this build; only the embedded paper broker is", key)
	}
	return lockPaper(rt.root, key)
}

// openOwnedBroker opens the broker whose account lock release holds; release is called on
// failure, else returned with the broker.
func (rt *runtime) openOwnedBroker(key string, release func()) (live.Broker, func(), error) {
	b, err := openPaper(rt.cfg, rt.db, rt.app.Now, key)
	if err != nil {
		release()
		return nil, nil, err
	}
	// Orders a crash left submitting or indeterminate are settled before anything else.
	res, err := rt.db.Reconcile(context.Background(), b, key, live.System("reconcile", "cli"))
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("reconcile the order journal: %w", err)
	}
	for _, r := range res {
		fmt.Fprintf(rt.app.Stderr, "reconciled %s: %s → %s\n", r.ClientOrderID, r.Was, r.Now)
	}
	return b, release, nil
}

// lockPaper takes the paper account's lock.
func lockPaper(root live.Root, key string) (func(), error) {
	if err := os.MkdirAll(root.BrokerDir(key), 0o700); err != nil {
		return nil, err
	}
	lock := flock.New(filepath.Join(root.BrokerDir(key), ".paper_account.lock"), flock.SetPermissions(0o600))
	ok, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("paper account lock: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("%w (use its screen, or stop it first)", ErrAccountInUse)
	}
	return func() { lock.Unlock() }, nil
}

// openPaper restores the paper account's state and wires persistence; the caller holds its lock.
func openPaper(cfg config.Config, db *store.DB, now func() time.Time, key string) (*paper.Broker, error) {
	ctx := context.Background()
	var state *paper.State
	data, found, err := db.PaperState(ctx, key)
	if err != nil {
		return nil, err
	}
	if found {
		state = &paper.State{}
		if err := json.Unmarshal(data, state); err != nil {
			return nil, fmt.Errorf("the stored paper account is unreadable: %w", err)
		}
	}
	mc, err := marketConfig(cfg)
	if err != nil {
		return nil, err
	}
	b, err := paper.New(paper.Config{Key: key, Market: mc, Cash: cfg.Paper.Cash, Now: now, State: state, History: 2 * time.Hour,
		Persist: func(s *paper.State) error {
			data, err := json.Marshal(s)
			if err != nil {
				return err
			}
			return db.SavePaperState(ctx, key, data)
		}})
	if err != nil {
		return nil, err
	}
	if !found { // store the new account at once, so its market start is fixed from now on
		b.Advance()
		if data, err := json.Marshal(b.Snapshot()); err == nil {
			db.SavePaperState(ctx, key, data)
		}
	}
	return b, nil
}

// marketConfig is the paper market from the config: the default symbols, or a replay.
func marketConfig(cfg config.Config) (paper.MarketConfig, error) {
	mc := paper.MarketConfig{Seed: cfg.Paper.Seed, Symbols: paper.DefaultSymbols(), Step: time.Second, TimeScale: cfg.Paper.TimeScale}
	switch cfg.Paper.Replay {
	case "":
	case "sample":
		bars, err := paper.SampleBars()
		if err != nil {
			return mc, err
		}
		mc.Bars, mc.Symbols = bars, nil
	default:
		f, err := os.Open(cfg.Paper.Replay)
		if err != nil {
			return mc, fmt.Errorf("config: paper.replay: %w", err)
		}
		defer f.Close()
		bars, err := paper.ReadBarsCSV(f)
		if err != nil {
			return mc, fmt.Errorf("config: paper.replay %s: %w", cfg.Paper.Replay, err)
		}
		mc.Bars, mc.Symbols = bars, nil
	}
	return mc, nil
}
