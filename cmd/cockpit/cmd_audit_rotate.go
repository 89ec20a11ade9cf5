package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"

	"cockpit/engine/config"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/store"
)

// KindAuditRotated opens a new chain after `cockpit audit rotate`; it carries the old head.
const KindAuditRotated = "audit_rotated"

// auditRotate archives cockpit.db (and its WAL and SHM) as cockpit.<ts>.db and opens a new chain
// whose first record names the old head (seq and hash) and the reason. It refuses while a
// cockpit holds the account.
func (a *App) auditRotate(args []string) int {
	flags, home := a.flags("audit rotate")
	reason := flags.String("reason", "", "why the old database is archived (required)")
	if code, ok := a.parse(flags, args); !ok {
		return code
	}
	if flags.NArg() > 0 {
		return a.usageErr(flags, "unexpected argument %q", flags.Arg(0))
	}
	if *reason == "" {
		return a.usageErr(flags, "--reason is required")
	}
	root, err := a.root(*home)
	if err != nil {
		return a.failf("%v", err)
	}
	cfg, err := config.Load(root)
	if err != nil {
		return a.failf("%v", err)
	}
	key, err := live.NormalizeBroker(cfg.Cockpit.Broker)
	if err != nil {
		return a.failf("config: cockpit.broker = %q: %v", cfg.Cockpit.Broker, err)
	}
	if err := os.MkdirAll(root.BrokerDir(key), 0o700); err != nil {
		return a.failf("%v", err)
	}
	lock := flock.New(filepath.Join(root.BrokerDir(key), ".paper_account.lock"), flock.SetPermissions(0o600))
	if ok, err := lock.TryLock(); err != nil || !ok {
		return a.failf("not rotated: %v (stop the running cockpit first)", ErrAccountInUse)
	}
	defer lock.Unlock()
	dbPath := filepath.Join(root.Dir(), "cockpit.db")
	if _, err := os.Stat(dbPath); err != nil {
		return a.failf("not rotated: no database at %s", dbPath)
	}
	anchorPath := filepath.Join(root.Dir(), store.AnchorFile)
	prev, source := oldHead(dbPath, anchorPath)
	stamp := a.Now().UTC().Format("20060102T150405Z")
	archive := filepath.Join(root.Dir(), "cockpit."+stamp+".db")
	if _, err := os.Stat(archive); err == nil {
		return a.failf("not rotated: %s already exists", archive)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(dbPath+suffix, archive+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return a.failf("not rotated: archive %s: %v", dbPath+suffix, err)
		}
	}
	if err := os.Rename(anchorPath, filepath.Join(root.Dir(), "cockpit."+stamp+"."+store.AnchorFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return a.failf("archived the database as %s, but the anchor could not be archived: %v", archive, err)
	}
	db, err := store.Open(dbPath)
	if err != nil {
		return a.failf("archived the database as %s, but a new one could not be opened: %v", archive, err)
	}
	defer db.Close()
	db.Now = a.Now
	db.SetAnchor(anchorPath)
	detail := jsonv.ObjectOf("previous_head_seq", jsonv.Number(fmt.Sprint(prev.Seq)), "previous_head_hash", prev.Hash,
		"previous_head_source", source, "archive", archive, "reason", *reason)
	e, err := db.Append(context.Background(), store.EventFromRecord(live.AuditRecord{Time: a.Now(),
		Actor: live.Operator(operatorName(), "cli"), Kind: KindAuditRotated, Outcome: live.OutcomeAccepted, Tool: "cli",
		Intent: "audit rotated: " + *reason, Detail: detail}))
	if err != nil {
		return a.failf("archived the database as %s, but the new chain could not be started: %v", archive, err)
	}
	fmt.Fprintf(a.Stdout, "archived %s as %s\nnew chain: event %d %s carries the old head %d %s (%s)\n",
		dbPath, archive, e.Seq, KindAuditRotated, prev.Seq, shortHash(prev.Hash), source)
	return exitOK
}

// oldHead is the head the new chain must carry: the archived database's, or the anchor's when
// the anchor is further on (a truncated chain) or the database cannot be read.
func oldHead(dbPath, anchorPath string) (store.Head, string) {
	anchor, found, aerr := store.ReadHead(anchorPath)
	var dbHead store.Head
	var derr error
	if db, err := store.Open(dbPath); err != nil {
		derr = err
	} else {
		dbHead, derr = db.Head(context.Background())
		db.Close()
	}
	switch {
	case derr == nil && (!found || aerr != nil || anchor.Seq <= dbHead.Seq):
		return dbHead, "database"
	case found && aerr == nil:
		return anchor, "anchor"
	}
	return store.Head{Hash: "unknown"}, "unknown"
}
