package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cockpit/live"
)

var _ live.AuditProber = (*DB)(nil)

// ProbeAudit implements live.AuditProber: it inserts a throw-away event in a transaction that is
// rolled back, so a trigger, a constraint, a read-only file or a lock that would refuse the
// next record refuses this one first. Nothing is kept.
func (db *DB) ProbeAudit(ctx context.Context) error {
	if err := db.anchorErr(); err != nil {
		return fmt.Errorf("audit probe: the chain-head anchor could not be written: %w", err)
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("audit probe: %w", wrap(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, probeInsert); err != nil {
		return fmt.Errorf("audit probe: %w", wrap(err))
	}
	return nil
}

// probeInsert is the probe's throw-away event.
const probeInsert = `INSERT INTO events (` + eventColumns + `) VALUES (-1,0,'','system','','','','audit_probe','','','','','','','','','{}','probe','probe')`

// QuickCheck runs SQLite's PRAGMA quick_check and returns its complaints (nil when "ok").
func (db *DB) QuickCheck(ctx context.Context) ([]string, error) {
	rows, err := db.r.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		if s != "ok" {
			out = append(out, s)
		}
	}
	return out, wrap(rows.Err())
}

// Head is the newest event of the chain: what the anchor file records.
type Head struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
	At   string `json:"at,omitempty"`
	// VerifiedSeq and VerifiedHash are where the last start-up check recomputed the chain to;
	// the next one starts after it.
	VerifiedSeq  int64  `json:"verified_seq,omitempty"`
	VerifiedHash string `json:"verified_hash,omitempty"`
}

// AnchorFile is the name of the chain-head anchor next to the database.
const AnchorFile = "audit_head.json"

// SetAnchor makes every append also write the chain's head to path, atomically (temp file,
// fsync, rename): the anchor outside the database that shows a truncated or replaced chain.
func (db *DB) SetAnchor(path string) { db.anchor = path }

// Anchor returns the anchor file in use ("" when none).
func (db *DB) Anchor() string { return db.anchor }

// Head returns the newest event's seq and hash (seq 0 when the chain is empty).
func (db *DB) Head(ctx context.Context) (Head, error) {
	var h Head
	err := db.r.QueryRowContext(ctx, `SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1`).Scan(&h.Seq, &h.Hash)
	if errors.Is(err, sql.ErrNoRows) {
		return Head{}, nil
	}
	return h, wrap(err)
}

// telemetry are the high-volume event types that do not move the anchor by themselves (each
// anchor write costs an fsync and a rename); every other event — orders, breaches, halts,
// operator actions — does, and so does closing the runtime.
var telemetry = map[string]bool{live.KindToolCall: true, live.KindLLMUsage: true}

func anchorWorthy(evs []Event) bool {
	for _, e := range evs {
		if !telemetry[e.Type] {
			return true
		}
	}
	return false
}

// WriteAnchor records the current head in the anchor file (on exit, and after rotation).
func (db *DB) WriteAnchor(ctx context.Context) error {
	if db.anchor == "" {
		return nil
	}
	h, err := db.Head(ctx)
	if err != nil {
		return err
	}
	return db.anchorHead(h)
}

// anchorHead moves the anchor forward to h. It never moves it back (another process may have
// anchored a later event; a truncated chain must not erase its evidence), and it refuses to
// move it when the anchored event is not in this chain (a replaced database).
func (db *DB) anchorHead(h Head) error {
	if db.anchor == "" {
		return nil
	}
	db.anchorMu.Lock()
	defer db.anchorMu.Unlock()
	old, _, err := ReadHead(db.anchor)
	if err != nil {
		return err
	}
	if old.Seq > h.Seq || (old.Seq == h.Seq && old.Hash == h.Hash) {
		return nil
	}
	if old.Seq > 0 {
		var hash string
		err := db.r.QueryRowContext(context.Background(), `SELECT hash FROM events WHERE seq = ?`, old.Seq).Scan(&hash)
		if err != nil || hash != old.Hash {
			return fmt.Errorf("audit head anchor: event %d is not the anchored one (%s): the chain was replaced", old.Seq, old.Hash)
		}
	}
	h.At = db.now().UTC().Format(time.RFC3339Nano)
	h.VerifiedSeq, h.VerifiedHash = old.VerifiedSeq, old.VerifiedHash
	return WriteHead(db.anchor, h)
}

// MarkVerified records in the anchor that the chain was recomputed up to its head, so the next
// start-up check begins after it. Call it after a clean CheckIntegrity.
func (db *DB) MarkVerified(ctx context.Context, in Integrity) error {
	if db.anchor == "" || in.Problem != "" || in.Head.Seq == 0 {
		return nil
	}
	db.anchorMu.Lock()
	defer db.anchorMu.Unlock()
	old, _, err := ReadHead(db.anchor)
	if err != nil {
		return err
	}
	h := in.Head
	if old.Seq > h.Seq { // another process anchored a later event meanwhile: keep it
		h.Seq, h.Hash = old.Seq, old.Hash
	}
	h.VerifiedSeq, h.VerifiedHash = in.Head.Seq, in.Head.Hash
	h.At = db.now().UTC().Format(time.RFC3339Nano)
	return WriteHead(db.anchor, h)
}

// WriteHead writes an anchor file atomically: temp file, fsync, rename.
func WriteHead(path string, h Head) error {
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("audit head anchor: %w", err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("audit head anchor: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("audit head anchor: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("audit head anchor: %w", err)
	}
	// No fsync of the directory: a crash can only leave the previous anchor, which is behind
	// the database (consistent), never ahead of it.
	return nil
}

// ReadHead reads an anchor file; found is false when there is none.
func ReadHead(path string) (h Head, found bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Head{}, false, nil
	}
	if err != nil {
		return Head{}, true, fmt.Errorf("audit head anchor %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &h); err != nil || h.Seq < 0 || (h.Seq > 0 && h.Hash == "") {
		return Head{}, true, fmt.Errorf("audit head anchor %s is unreadable", path)
	}
	return h, true, nil
}

// AnchorMismatch says how the database disagrees with its anchor.
type AnchorMismatch struct {
	Reason string // emptied, truncated, replaced
	Detail string
}

// CheckAnchor compares the database with an anchored head: an empty database under a non-empty
// anchor was emptied or replaced; one that ends before the anchored seq lost its tail; one whose
// event at the anchored seq has another hash was replaced. nil means consistent.
func (db *DB) CheckAnchor(ctx context.Context, a Head) (*AnchorMismatch, error) {
	if a.Seq == 0 {
		return nil, nil
	}
	h, err := db.Head(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case h.Seq == 0:
		return &AnchorMismatch{Reason: "emptied", Detail: fmt.Sprintf("the database has no events, but the anchor records a chain of %d events ending in %s: it was emptied or replaced", a.Seq, a.Hash)}, nil
	case h.Seq < a.Seq:
		return &AnchorMismatch{Reason: "truncated", Detail: fmt.Sprintf("the chain ends at event %d, but the anchor records event %d (%s): events %d–%d are missing", h.Seq, a.Seq, a.Hash, h.Seq+1, a.Seq)}, nil
	}
	var hash string
	if err := db.r.QueryRowContext(ctx, `SELECT hash FROM events WHERE seq = ?`, a.Seq).Scan(&hash); err != nil {
		return nil, wrap(err)
	}
	if hash != a.Hash {
		return &AnchorMismatch{Reason: "replaced", Detail: fmt.Sprintf("event %d has hash %s, but the anchor records %s: the database was replaced or rewritten", a.Seq, hash, a.Hash)}, nil
	}
	return nil, nil
}

// Integrity is what the start-up check found; Problem is "" when the store can be trusted.
type Integrity struct {
	Problem  string
	BadSeq   int64 // the first bad event, when the chain is broken
	Verified int64
	Head     Head // the head the check verified up to (MarkVerified records it)
}

// TailEvents is how many of the newest events the start-up check recomputes when the anchor
// has no verified checkpoint (the first start with an anchor); the whole chain is recomputed by
// `audit verify` (30–60 s for 1,000,000 events on a small VM), and at start-up only when
// quick_check has found damage, to name the first bad event.
const TailEvents = 2000

// verifyTail recomputes the chain from the anchor's verified checkpoint (else the newest
// TailEvents events) to the head, or the whole chain when full.
func (db *DB) verifyTail(ctx context.Context, full bool, a Head) (VerifyReport, error) {
	from := int64(1)
	if !full {
		h, err := db.Head(ctx)
		if err != nil {
			return VerifyReport{}, err
		}
		from = max(1, h.Seq-TailEvents+1)
		if a.VerifiedSeq > 0 && a.VerifiedSeq <= h.Seq {
			var hash string
			if err := db.r.QueryRowContext(ctx, `SELECT hash FROM events WHERE seq = ?`, a.VerifiedSeq).Scan(&hash); err != nil {
				return VerifyReport{Events: a.VerifiedSeq - 1}, wrap(err)
			}
			if hash != a.VerifiedHash {
				return VerifyReport{Events: a.VerifiedSeq - 1, Break: &ChainBreak{Seq: a.VerifiedSeq, Reason: "checkpoint_mismatch",
					Detail: fmt.Sprintf("stored hash %s, verified at the last start %s", hash, a.VerifiedHash)}}, nil
			}
			from = a.VerifiedSeq + 1
		}
	}
	rep, err := db.VerifyFrom(ctx, from, nil)
	rep.Events += from - 1 // Verified and BadSeq count from the start of the chain
	return rep, err
}

// CheckIntegrity is the whole start-up check at once: CheckPages, then CheckChain. A session
// runs CheckChain before anything is written and CheckPages beside it, orders waiting for it.
func (db *DB) CheckIntegrity(ctx context.Context) Integrity {
	return db.checkWith(ctx, db.quickProblem(ctx))
}

// CheckChain is the part of the start-up check that grows with what changed since the last
// one, not with the database: the chain recomputed from the anchor's verified checkpoint
// (else its newest TailEvents events) to the head, and the head compared with the anchor file
// (when one is set).
func (db *DB) CheckChain(ctx context.Context) Integrity { return db.checkWith(ctx, "") }

// CheckPages is the part of the start-up check that reads the whole file: PRAGMA quick_check
// over every page; when it finds damage, the whole chain is recomputed to name the first bad
// event. On a database of 1,000,000 events it takes seconds, so a session runs it beside the
// screen and no order goes out before it has passed.
func (db *DB) CheckPages(ctx context.Context) Integrity {
	quick := db.quickProblem(ctx)
	if quick == "" {
		return Integrity{}
	}
	return db.checkWith(ctx, quick)
}

// quickProblem runs quick_check and says what it found ("" when the file is sound).
func (db *DB) quickProblem(ctx context.Context) string {
	bad, err := db.QuickCheck(ctx)
	switch {
	case err != nil:
		return "database integrity check failed: " + err.Error()
	case len(bad) > 3:
		bad = append(bad[:3], fmt.Sprintf("… %d more", len(bad)-3))
		fallthrough
	case len(bad) > 0:
		return "database integrity check failed: " + strings.Join(strings.Fields(strings.Join(bad, "; ")), " ")
	}
	return ""
}

// checkWith is the chain's check after quick_check said quick ("" for none, or when it did not
// run): the chain from the checkpoint (the whole chain when quick found damage) and the anchor.
func (db *DB) checkWith(ctx context.Context, quick string) Integrity {
	var anchor Head
	anchorFound := false
	var anchorErr error
	if db.anchor != "" {
		anchor, anchorFound, anchorErr = ReadHead(db.anchor)
	}
	rep, err := db.verifyTail(ctx, quick != "", anchor)
	switch {
	case err != nil:
		return Integrity{Problem: join(quick, fmt.Sprintf("audit chain unreadable after event %d: %v", rep.Events, err)), BadSeq: rep.Events + 1, Verified: rep.Events}
	case rep.Break != nil:
		return Integrity{Problem: join(quick, fmt.Sprintf("audit chain broken at event %d (%s)", rep.Break.Seq, rep.Break.Reason)), BadSeq: rep.Break.Seq, Verified: rep.Events}
	case quick != "":
		return Integrity{Problem: quick, Verified: rep.Events}
	}
	if anchorErr != nil {
		return Integrity{Problem: anchorErr.Error(), Verified: rep.Events}
	}
	if anchorFound {
		m, err := db.CheckAnchor(ctx, anchor)
		if err != nil {
			return Integrity{Problem: "audit head check: " + err.Error(), Verified: rep.Events}
		}
		if m != nil {
			return Integrity{Problem: "audit chain " + m.Reason + ": " + m.Detail, BadSeq: rep.Events + 1, Verified: rep.Events}
		}
	}
	return Integrity{Verified: rep.Events, Head: Head{Seq: rep.Events, Hash: rep.Last}}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
