package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"cockpit/config"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/store"
)

// KindAuditRotated opens a new chain after `cockpit audit rotate`; it carries the old head.
const KindAuditRotated = live.KindAuditRotated

// auditRotate archives cockpit.db (and its WAL and SHM) as cockpit.<ts>.db and opens a new chain
// whose first record names the old head (seq and hash) and the reason. It refuses while a
// cockpit holds the account.
func (a *App) auditRotate(args []string) int {
	p, flags := a.preamble("audit rotate")
	reason := flags.String("reason", "", "why the old database is archived (required)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if flags.NArg() > 0 {
		return a.usageErr(flags, "unexpected argument %q", flags.Arg(0))
	}
	if *reason == "" {
		return a.usageErr(flags, "--reason is required")
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	cfg, err := config.Load(root)
	if err != nil {
		return a.failf("%v", err)
	}
	key, err := live.NormalizeBroker(cfg.Cockpit.Broker)
	if err != nil {
		return a.failf("config: cockpit.broker = %q: %v", cfg.Cockpit.Broker, err)
	}
	release, err := lockPaper(root, key)
	if err != nil {
		return a.failf("not rotated: %v (stop the running cockpit first)", err)
	}
	defer release()
	dbPath := filepath.Join(root.Dir(), "cockpit.db")
	if _, err := os.Stat(dbPath); err != nil {
		return a.failf("not rotated: no database at %s", dbPath)
	}
	anchorPath := filepath.Join(root.Dir(), store.AnchorFile)
	prev, source := oldHead(dbPath, anchorPath)
	consented := committedMandates(root, dbPath)
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
	return a.carryMandates(db, root, consented, archive)
}

// committedMandates reads, from the database about to be archived, the mandate hash each broker
// under root last committed (DV13); a broker whose hash cannot be read is left out.
func committedMandates(root live.Root, dbPath string) map[string]string {
	out := map[string]string{}
	entries, err := os.ReadDir(root.LiveDir())
	if err != nil {
		return out
	}
	db, err := store.Open(dbPath)
	if err != nil {
		return out
	}
	defer db.Close()
	for _, e := range entries {
		key, err := live.NormalizeBroker(e.Name())
		if err != nil || key != e.Name() || !e.IsDir() {
			continue
		}
		if h, ok, err := db.LastMandateHash(context.Background(), key); err == nil && ok {
			out[key] = h
		}
	}
	return out
}

// carryMandates records in the new chain the consent the archived chain held, so a rotation
// does not turn every committed mandate unverified; a broker whose consent could not be read
// from the archive is named with the way back (adopt).
func (a *App) carryMandates(db *store.DB, root live.Root, consented map[string]string, archive string) int {
	for _, key := range slices.Sorted(maps.Keys(consented)) {
		rec := live.AuditRecord{Time: a.Now(), Actor: live.Operator(operatorName(), "cli"), Kind: live.KindMandateCommitted,
			Outcome: live.OutcomeAccepted, Broker: key, Tool: "rotate", Intent: "mandate consent carried over from " + archive,
			Detail: jsonv.ObjectOf(live.MandateHashKey, consented[key], "source", "audit rotate", "archive", archive)}
		if _, err := db.Append(context.Background(), store.EventFromRecord(rec)); err != nil {
			return a.failf("the mandate consent for %s could not be carried over: %v — run `cockpit mandate adopt --broker %s`", key, err, key)
		}
		fmt.Fprintf(a.Stdout, "carried over the committed mandate hash for %s (%s)\n", key, shortHash(consented[key]))
	}
	if entries, err := os.ReadDir(root.LiveDir()); err == nil {
		for _, e := range entries {
			if _, ok := consented[e.Name()]; !ok && e.IsDir() {
				if _, err := os.Stat(root.MandatePath(e.Name())); err == nil {
					fmt.Fprintf(a.Stdout, "the mandate for %s had no readable commit in the archive: it is unverified until `cockpit mandate adopt --broker %s`\n", e.Name(), e.Name())
				}
			}
		}
	}
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
