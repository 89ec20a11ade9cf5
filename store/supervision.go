package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"cockpit/live/redact"
)

// Owner is the process that owns a broker account and trades it (issue 14).
type Owner struct {
	Broker      string
	PID         int
	Host        string
	Kind        string // screen | headless | serve-mcp | serve-ssh
	Agent       string
	SessionID   string
	StartedAt   time.Time
	HeartbeatAt time.Time
	WatchedAt   time.Time // a supervisor's last look (zero: never)
}

// Alive reports a heartbeat no older than stale at now.
func (o Owner) Alive(now time.Time, stale time.Duration) bool {
	return !o.HeartbeatAt.IsZero() && now.Sub(o.HeartbeatAt) <= stale
}

// SetOwner records o as the owner of its broker account (replacing a dead owner's row).
func (db *DB) SetOwner(ctx context.Context, o Owner) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO owner (broker, pid, host, kind, agent, session_id, started_at, heartbeat_at)
			VALUES (?,?,?,?,?,?,?,?)`, o.Broker, o.PID, o.Host, o.Kind, o.Agent, o.SessionID, nanos(o.StartedAt), nanos(o.HeartbeatAt))
		return err
	})
}

// Heartbeat stamps the owner row of broker held by session at at.
func (db *DB) Heartbeat(ctx context.Context, broker, session string, at time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE owner SET heartbeat_at = ? WHERE broker = ? AND session_id = ?`, at.UnixNano(), broker, session)
		return err
	})
}

// ClearOwner removes the owner row of broker if session still holds it (a clean shutdown).
func (db *DB) ClearOwner(ctx context.Context, broker, session string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM owner WHERE broker = ? AND session_id = ?`, broker, session)
		return err
	})
}

// OwnerOf returns broker's owner row; found is false when no process owns it.
func (db *DB) OwnerOf(ctx context.Context, broker string) (o Owner, found bool, err error) {
	var started, beat, watched int64
	err = db.r.QueryRowContext(ctx, `SELECT broker, pid, host, kind, agent, session_id, started_at, heartbeat_at, watched_at FROM owner WHERE broker = ?`, broker).
		Scan(&o.Broker, &o.PID, &o.Host, &o.Kind, &o.Agent, &o.SessionID, &started, &beat, &watched)
	if errors.Is(err, sql.ErrNoRows) {
		return Owner{}, false, nil
	}
	if err != nil {
		return Owner{}, false, wrap(err)
	}
	if started != 0 { // 0: not recorded (status says "unknown")
		o.StartedAt = time.Unix(0, started)
	}
	if beat != 0 {
		o.HeartbeatAt = time.Unix(0, beat)
	}
	if watched != 0 {
		o.WatchedAt = time.Unix(0, watched)
	}
	return o, true, nil
}

// nanos is t in Unix nanoseconds, 0 for the zero time (not recorded).
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// WatchOwner stamps broker's owner row with a supervisor's look at at.
func (db *DB) WatchOwner(ctx context.Context, broker string, at time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE owner SET watched_at = ? WHERE broker = ?`, at.UnixNano(), broker)
		return err
	})
}

// Command states and the failure reason of a command nobody claimed in time.
const (
	CommandPending = "pending"
	CommandRunning = "running"
	CommandDone    = "done"
	CommandFailed  = "failed"
	OwnerGone      = "owner_gone"
)

// CommandTTL is how long a command may wait for its owner; older, it is failed owner_gone,
// never run late.
const CommandTTL = 30 * time.Second

// Command is one operator action queued for the owning process.
type Command struct {
	ID        int64
	CreatedAt time.Time
	Actor     string // who asked ("tui:alice")
	Broker    string
	Kind      string // cancel | close | flatten | block | unblock
	Args      string // JSON object
	State     string
	ClaimedBy string // the owner's session id
	Progress  string
	Result    string // JSON
	UpdatedAt time.Time
}

// EnqueueCommand queues c pending and returns its id.
func (db *DB) EnqueueCommand(ctx context.Context, c Command) (int64, error) {
	now := db.now().UnixNano()
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO commands (created_at, actor, broker, kind, args, state, updated_at) VALUES (?,?,?,?,?,?,?)`,
			now, c.Actor, c.Broker, c.Kind, c.Args, CommandPending, now)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// ExpireCommands fails broker's pending commands older than ttl as owner_gone; it returns how
// many it failed.
func (db *DB) ExpireCommands(ctx context.Context, broker string, ttl time.Duration) (int64, error) {
	now := db.now()
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE commands SET state = ?, result = ?, updated_at = ? WHERE broker = ? AND state = ? AND created_at < ?`,
			CommandFailed, `{"error":"`+OwnerGone+`"}`, now.UnixNano(), broker, CommandPending, now.Add(-ttl).UnixNano())
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return n, err
}

// HasPending reports whether broker has a pending command (the owner's cheap poll).
func (db *DB) HasPending(ctx context.Context, broker string) (bool, error) {
	s, err := db.readStmt(ctx, `SELECT 1 FROM commands WHERE broker = ? AND state = 'pending' LIMIT 1`)
	if err != nil {
		return false, wrap(err)
	}
	var one int
	err = s.QueryRowContext(ctx, broker).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, wrap(err)
}

// ClaimCommand fails broker's stale pending commands (owner_gone), then claims the oldest
// pending one for session: the claim is one UPDATE … WHERE state = 'pending', so two owners
// never both run a command. It returns nil when there is nothing to run.
func (db *DB) ClaimCommand(ctx context.Context, broker, session string, ttl time.Duration) (*Command, error) {
	if _, err := db.ExpireCommands(ctx, broker, ttl); err != nil {
		return nil, err
	}
	for {
		var id int64
		err := db.r.QueryRowContext(ctx, `SELECT id FROM commands WHERE broker = ? AND state = 'pending' ORDER BY id LIMIT 1`, broker).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, wrap(err)
		}
		var won int64
		err = db.tx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `UPDATE commands SET state = ?, claimed_by = ?, updated_at = ? WHERE id = ? AND state = ? AND created_at >= ?`,
				CommandRunning, session, db.now().UnixNano(), id, CommandPending, db.now().Add(-ttl).UnixNano())
			if err == nil {
				won, err = res.RowsAffected()
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if won == 1 {
			c, err := db.CommandByID(ctx, id)
			return &c, err
		}
		// another owner took it, or it went stale between the read and the claim: look again
		if _, err := db.ExpireCommands(ctx, broker, ttl); err != nil {
			return nil, err
		}
	}
}

// ProgressCommand appends one line (a step) to a running command's progress, so a supervisor
// reading it less often than steps come still sees every one.
func (db *DB) ProgressCommand(ctx context.Context, id int64, step string) error {
	if strings.ContainsRune(step, '\n') {
		return fmt.Errorf("progress of command %d: a step cannot span lines", id)
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE commands SET progress = progress || ? || char(10), updated_at = ? WHERE id = ? AND state = ?`,
			redact.Secrets(step), db.now().UnixNano(), id, CommandRunning)
		return err
	})
}

// FinishCommand ends a command done or failed with its result JSON; a command already
// finished (failed owner_gone by a supervisor) keeps its first end.
func (db *DB) FinishCommand(ctx context.Context, id int64, state, result string) error {
	if state != CommandDone && state != CommandFailed {
		return fmt.Errorf("finish command %d: state %q is not done or failed", id, state)
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE commands SET state = ?, result = ?, updated_at = ? WHERE id = ? AND state IN (?, ?)`,
			state, redact.Secrets(result), db.now().UnixNano(), id, CommandPending, CommandRunning)
		return err
	})
}

// AbandonCommand fails a command still pending as abandoned (its supervisor stopped waiting),
// so it never runs late; it reports whether it did (false: the owner had claimed it).
func (db *DB) AbandonCommand(ctx context.Context, id int64) (bool, error) {
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE commands SET state = ?, result = '{"error":"abandoned"}', updated_at = ? WHERE id = ? AND state = ?`,
			CommandFailed, db.now().UnixNano(), id, CommandPending)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	return n == 1, err
}

// CommandByID reads one command.
func (db *DB) CommandByID(ctx context.Context, id int64) (Command, error) {
	var c Command
	var created, updated int64
	err := db.r.QueryRowContext(ctx, `SELECT id, created_at, actor, broker, kind, args, state, claimed_by, progress, result, updated_at
		FROM commands WHERE id = ?`, id).Scan(&c.ID, &created, &c.Actor, &c.Broker, &c.Kind, &c.Args, &c.State, &c.ClaimedBy,
		&c.Progress, &c.Result, &updated)
	if err != nil {
		return Command{}, wrap(err)
	}
	c.CreatedAt, c.UpdatedAt = time.Unix(0, created), time.Unix(0, updated)
	return c, nil
}

// PutLiveState stores broker's live state body, under the next version when it differs from
// the stored one (the same body only moves updated_at: the owner still publishes); it
// returns the version now stored.
func (db *DB) PutLiveState(ctx context.Context, broker string, body []byte) (int64, error) {
	body = []byte(redact.Secrets(string(body))) // a broker's raw rows can carry tokens
	var v int64
	now := db.now().UnixNano()
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var old string
		err := tx.QueryRowContext(ctx, `SELECT version, body FROM live_state WHERE broker = ?`, broker).Scan(&v, &old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err == nil && old == string(body) {
			_, err = tx.ExecContext(ctx, `UPDATE live_state SET updated_at = ? WHERE broker = ?`, now, broker)
			return err
		}
		v++
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO live_state (broker, version, body, updated_at) VALUES (?,?,?,?)`,
			broker, v, string(body), now)
		return err
	})
	return v, err
}

// LiveStateVersion returns broker's live state version (0: none) and when the owner last
// published it: a cheap poll.
func (db *DB) LiveStateVersion(ctx context.Context, broker string) (int64, time.Time, error) {
	s, err := db.readStmt(ctx, `SELECT version, updated_at FROM live_state WHERE broker = ?`)
	if err != nil {
		return 0, time.Time{}, wrap(err)
	}
	var v, at int64
	err = s.QueryRowContext(ctx, broker).Scan(&v, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, nil
	}
	if err != nil {
		return 0, time.Time{}, wrap(err)
	}
	return v, time.Unix(0, at), nil
}

// LiveState returns broker's live state: its version (0: none written) and body.
func (db *DB) LiveState(ctx context.Context, broker string) (int64, []byte, error) {
	var v int64
	var body string
	err := db.r.QueryRowContext(ctx, `SELECT version, body FROM live_state WHERE broker = ?`, broker).Scan(&v, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, wrap(err)
	}
	return v, []byte(body), nil
}
