// Package store keeps cockpit's durable state in SQLite (modernc.org/sqlite, pure Go): the
// hash-chained audit events, the write-ahead order journal, the review queue and the paper
// broker's account. It implements live.AuditSink and live.Journal.
//
// One writer connection carries every write (WAL, synchronous=FULL, busy_timeout,
// _txlock=immediate, foreign keys — all in the DSN, so every connection gets them); a
// read-only pool serves the screen's queries. Other processes (the CLI next to a running
// cockpit) open the same file and take turns through SQLite's locks.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is an open cockpit database.
type DB struct {
	path   string
	w      *sql.DB // the one writer connection
	r      *sql.DB // read-only pool
	Now    func() time.Time
	notify *notifier
	// Session is stamped on events that carry none.
	Session string
	// anchor, when set, receives the chain head after every append (SetAnchor).
	anchor   string
	anchorMu sync.Mutex
	// AnchorEvery, when positive, writes the anchor at most this often, in the background,
	// and at Close (a crash leaves it behind the chain, which the integrity check accepts);
	// zero writes it after every commit that moves it.
	AnchorEvery time.Duration
	lazy        lazyAnchor
	group       committer
	stmts       stmtCache            // the read pool's prepared statements
	mandates    ledgerCache          // each broker's last mandate commit (mandates.go)
	wstmts      map[string]*sql.Stmt // the order path's write statements (wstmts.go)
	// probedSchema is the schema version a full audit probe last passed under (journal_probe.go).
	probedSchema atomic.Int64
	// appendObs, when set, is told how long each append to the trail took (metrics.go).
	appendObs atomic.Pointer[func(time.Duration)]
}

// ErrNewerSchema reports a database written by a newer cockpit.
var ErrNewerSchema = errors.New("database schema is newer than this cockpit")

// ErrBusy reports a write that could not get SQLite's lock within the busy timeout.
var ErrBusy = errors.New("database is busy")

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_txlock", "immediate")
	}
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating it if needed) the database at path, applies the embedded migrations
// and refuses a database from a newer cockpit.
func Open(path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	w, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	w.SetMaxOpenConns(1)
	db := &DB{path: path, w: w, Now: time.Now, notify: newNotifier()}
	if err := db.migrate(context.Background()); err != nil {
		w.Close()
		return nil, err
	}
	if err := db.prepareWrites(context.Background()); err != nil {
		w.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	restrict(path)
	r, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	r.SetMaxOpenConns(4)
	db.r = r
	return db, nil
}

// restrict makes the database files private to the user.
func restrict(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		_ = os.Chmod(p, 0o600)
	}
}

// Path returns the database file.
func (db *DB) Path() string { return db.path }

// Close writes a pending anchor, then closes both pools.
func (db *DB) Close() error {
	aerr := db.flushAnchor()
	db.closeWrites()
	err := db.w.Close()
	if err == nil {
		err = aerr
	}
	if db.r != nil {
		db.closeStmts()
		if rerr := db.r.Close(); err == nil {
			err = rerr
		}
	}
	return err
}

func (db *DB) now() time.Time {
	if db.Now != nil {
		return db.Now()
	}
	return time.Now()
}

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", e.Name())
		}
		body, err := fs.ReadFile(migrationFiles, "migrations/"+e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate applies the embedded migrations in order, each in its own transaction, and records
// them; a database that knows a migration this build does not is refused.
func (db *DB) migrate(ctx context.Context) error {
	return db.migrateTo(ctx, 0)
}

// migrateTo is migrate stopping after version upTo (0: the latest); tests build an older
// schema with it.
func (db *DB) migrateTo(ctx context.Context, upTo int) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if _, err := db.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("open store %s: %w", db.path, wrap(err))
	}
	var have int
	if err := db.w.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("read schema version: %w", wrap(err))
	}
	latest := ms[len(ms)-1].version
	if have > latest {
		return fmt.Errorf("%w: %s has schema version %d, this cockpit knows up to %d — use a newer cockpit",
			ErrNewerSchema, db.path, have, latest)
	}
	for _, m := range ms {
		if m.version <= have || (upTo > 0 && m.version > upTo) {
			continue
		}
		if err := db.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if hook := migrationHooks[m.version]; hook != nil {
				if err := hook(ctx, tx); err != nil {
					return fmt.Errorf("migration %s: %w", m.name, err)
				}
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, db.now().UnixNano())
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// SchemaVersion returns the highest applied migration.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, wrap(err)
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE through the DSN), committing on success.
func (db *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return wrap(err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return wrap(err)
	}
	return wrap(tx.Commit())
}

// wrap maps SQLite's busy errors onto ErrBusy, keeping the original text.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED) {
		return fmt.Errorf("%w: %v", ErrBusy, err)
	}
	return err
}

// notifier wakes in-process tail subscribers after a commit.
type notifier struct {
	mu   sync.Mutex
	subs map[chan struct{}]bool
}

func newNotifier() *notifier { return &notifier{subs: map[chan struct{}]bool{}} }

func (n *notifier) subscribe() chan struct{} {
	ch := make(chan struct{}, 1)
	n.mu.Lock()
	n.subs[ch] = true
	n.mu.Unlock()
	return ch
}

func (n *notifier) unsubscribe(ch chan struct{}) {
	n.mu.Lock()
	delete(n.subs, ch)
	n.mu.Unlock()
}

func (n *notifier) wake() {
	n.mu.Lock()
	for ch := range n.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	n.mu.Unlock()
}
