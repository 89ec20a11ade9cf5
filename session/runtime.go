package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"cockpit/config"
	"cockpit/live"
	"cockpit/live/paper"
	"cockpit/live/redact"
	"cockpit/live/vibe"
	"cockpit/readmodel"
	"cockpit/store"
)

// Env is what a session takes from its process: the clock, the environment, and where
// start-up notes go (reconciled orders, a committed default mandate; never while a screen runs).
type Env struct {
	Now    func() time.Time
	Getenv func(string) string
	Stderr io.Writer
	// AllowLive is the run's --live flag: without it a broker table with mode = "live" is
	// refused.
	AllowLive bool
}

// Runtime is what a session and most verbs need: the root, its config, the store, the log
// and the audit trail.
type Runtime struct {
	Env
	Root    live.Root
	Config  config.Config
	DB      *store.DB
	Log     *slog.Logger
	Audit   live.AuditSink
	closers []func()
}

// OpenRuntime opens the runtime root: config, cockpit.db and cockpit.log; the configured
// secrets are registered for redaction first. A root whose files someone else could have
// changed is refused first (CheckRoot).
func OpenRuntime(env Env, root live.Root) (*Runtime, error) {
	if err := CheckRoot(root); err != nil {
		return nil, err
	}
	cfg, err := config.Load(root)
	if err != nil {
		return nil, err
	}
	RegisterSecrets(cfg, env.Getenv)
	rt := &Runtime{Env: env, Root: root, Config: cfg}
	log, done := OpenLog(root)
	rt.Log, rt.closers = log, append(rt.closers, done)
	db, err := store.Open(filepath.Join(root.Dir(), "cockpit.db"))
	if err != nil {
		rt.Close()
		return nil, err
	}
	db.Now = env.Now
	db.SetAnchor(filepath.Join(root.Dir(), store.AnchorFile)) // DV15: the chain head outside the database
	db.AnchorEvery = AnchorEvery
	rt.DB = db
	rt.closers = append(rt.closers, func() { db.Close() }, func() { db.WriteAnchor(context.Background()) })
	rt.Audit = db
	if cfg.Audit.VibeMirror {
		rt.Audit = live.MultiSink{db, &vibe.Mirror{Root: root}}
	}
	return rt, nil
}

// AnchorEvery is how often a runtime's store writes the chain-head anchor at most (and at
// close): each write costs a file fsync and a rename, once per commit it would be most of an
// order's time; a crash leaves it at most this far behind, which the integrity check accepts.
const AnchorEvery = 100 * time.Millisecond

// Close closes the store (writing its anchor) and the log.
func (rt *Runtime) Close() {
	for i := len(rt.closers) - 1; i >= 0; i-- {
		rt.closers[i]()
	}
	rt.closers = nil
}

// OpenLog appends JSON lines to <root>/cockpit.log; a log that cannot be opened is discarded
// rather than written to the terminal.
func OpenLog(root live.Root) (*slog.Logger, func()) {
	if err := os.MkdirAll(root.Dir(), 0o700); err == nil {
		f, err := os.OpenFile(filepath.Join(root.Dir(), "cockpit.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err == nil {
			return slog.New(redact.Handler(slog.NewJSONHandler(f, nil))), func() { f.Close() }
		}
	}
	return slog.New(slog.NewJSONHandler(io.Discard, nil)), func() {}
}

// ErrAccountInUse reports a paper account held by another running cockpit.
var ErrAccountInUse = errors.New("the paper account is in use by a running cockpit")

// OwnAccount takes the broker account's exclusive lock. A process changes nothing shared
// (review items, mandates, the journal) before it owns the account.
func (rt *Runtime) OwnAccount(key string) (func(), error) {
	if !live.IsPaperBroker(key) {
		if _, ok := rt.Config.Broker(key); !ok {
			return nil, fmt.Errorf("broker %q: no [brokers.%s] table in %s", key, key, config.Path(rt.Root))
		}
		return rt.namedOwner(key)(lockAccount(rt.Root, key))
	}
	return rt.namedOwner(key)(LockPaper(rt.Root, key))
}

// namedOwner passes a lock's result on; an account in use is said with the process that
// owns it (kind, pid, host, since: its owner row) instead of a generic "a running cockpit".
func (rt *Runtime) namedOwner(key string) func(func(), error) (func(), error) {
	return func(release func(), err error) (func(), error) {
		if !errors.Is(err, ErrAccountInUse) {
			return release, err
		}
		who := "a cockpit that has not recorded itself as its owner (kind, pid and since unknown: a short command such as flatten, or one starting up)"
		if rt.DB != nil {
			if o, found, oerr := rt.DB.OwnerOf(context.Background(), key); oerr != nil {
				who = fmt.Sprintf("a running cockpit (its owner row could not be read: %v)", oerr)
			} else if found {
				who = readmodel.DescribeOwner(o, rt.Now())
			}
		}
		return nil, inUseError(fmt.Sprintf("the %s account is in use by %s: stop that process first, or watch it with `cockpit status` or the screen (`cockpit`)", key, who))
	}
}

// inUseError is an ErrAccountInUse that says who holds the account.
type inUseError string

func (e inUseError) Error() string        { return string(e) }
func (e inUseError) Is(target error) bool { return target == ErrAccountInUse }

// OpenOwnedBroker opens the broker whose account lock release holds; release is called on
// failure, else returned with the broker.
func (rt *Runtime) OpenOwnedBroker(key string, release func()) (live.Broker, func(), error) {
	var b live.Broker
	var err error
	if live.IsPaperBroker(key) {
		b, err = openPaper(rt.Config, rt.DB, rt.Now, key)
	} else {
		b, err = rt.openConfigured(key)
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	// Orders a crash left submitting or indeterminate are settled before anything else.
	res, err := rt.DB.Reconcile(context.Background(), b, key, live.System("reconcile", "cli"))
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("reconcile the order journal: %w", err)
	}
	for _, r := range res {
		fmt.Fprintf(rt.Stderr, "reconciled %s: %s → %s\n", r.ClientOrderID, r.Was, r.Now)
	}
	return b, release, nil
}

// LockPaper takes the paper account's lock.
func LockPaper(root live.Root, key string) (func(), error) {
	if err := os.MkdirAll(root.BrokerDir(key), 0o700); err != nil {
		return nil, err
	}
	lock := flock.New(filepath.Join(root.BrokerDir(key), ".paper_account.lock"), flock.SetPermissions(0o600))
	ok, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("paper account lock: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("the %s account is in use by a running cockpit (stop it first): %w", key, ErrAccountInUse)
	}
	return func() { lock.Unlock() }, nil
}

// openPaper restores the paper account's state and wires persistence; the caller holds its lock.
func openPaper(cfg config.Config, db *store.DB, now func() time.Time, key string) (*paper.Broker, error) {
	state, found, err := db.LoadPaper(context.Background(), key)
	if err != nil {
		return nil, err
	}
	mc, err := marketConfig(cfg)
	if err != nil {
		return nil, err
	}
	b, err := paper.New(paper.Config{Key: key, Market: mc, Cash: cfg.Paper.Cash, Now: now, State: state, History: 2 * time.Hour,
		Store: db.PaperStore(key)})
	if err != nil {
		return nil, err
	}
	if !found { // store the new account at once, so its market start is fixed from now on
		b.Advance()
		_ = b.Save() // refused (a full disk): the next change saves the header with it
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
