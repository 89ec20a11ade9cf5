package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live/jsonv"
)

// anchored opens a database with its anchor next to it and appends n records.
func anchored(t *testing.T, dir string, n int) *DB {
	t.Helper()
	db := mustOpen(t, filepath.Join(dir, "cockpit.db"))
	db.SetAnchor(filepath.Join(dir, AnchorFile))
	for i := 0; i < n; i++ {
		if err := db.Record(context.Background(), record(i)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestProbeAuditSeesABlockedTable: a trigger that refuses every insert into events refuses the
// probe too, and a probe on a healthy table leaves nothing behind.
func TestProbeAuditSeesABlockedTable(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	if err := db.ProbeAudit(ctx); err != nil {
		t.Fatalf("probe on a healthy store: %v", err)
	}
	if n, _ := db.LastSeq(ctx); n != 0 {
		t.Fatalf("the probe left event %d behind", n)
	}
	if _, err := db.w.Exec(`CREATE TRIGGER block BEFORE INSERT ON events BEGIN SELECT RAISE(FAIL, 'x'); END`); err != nil {
		t.Fatal(err)
	}
	if err := db.ProbeAudit(ctx); err == nil {
		t.Fatal("probe on a blocked events table: got nil, want an error")
	}
}

// TestAnchorShowsTruncatedEmptiedReplaced: the head written outside the database after every
// append shows a chain that lost its tail, was emptied or was swapped for another.
func TestAnchorShowsTruncatedEmptiedReplaced(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string, db *DB) *DB
		want   string
	}{
		{"intact", func(t *testing.T, dir string, db *DB) *DB { return db }, ""},
		{"truncated", func(t *testing.T, dir string, db *DB) *DB { return rewrite(t, db, `DELETE FROM events WHERE seq > 3`) }, "truncated"},
		{"emptied", func(t *testing.T, dir string, db *DB) *DB { return rewrite(t, db, `DELETE FROM events`) }, "emptied"},
		{"replaced", func(t *testing.T, dir string, db *DB) *DB {
			other := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
			for i := 0; i < 6; i++ {
				if err := other.Record(context.Background(), record(100+i)); err != nil {
					t.Fatal(err)
				}
			}
			other.SetAnchor(db.Anchor())
			return other
		}, "replaced"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db := c.damage(t, dir, anchored(t, dir, 5))
			ctx := context.Background()
			head, found, err := ReadHead(filepath.Join(dir, AnchorFile))
			if err != nil || !found || head.Seq != 5 {
				t.Fatalf("anchor %+v %v %v, want seq 5", head, found, err)
			}
			m, err := db.CheckAnchor(ctx, head)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if m != nil {
				got = m.Reason
			}
			if got != c.want {
				t.Fatalf("CheckAnchor = %q (%+v), want %q", got, m, c.want)
			}
			in := db.CheckIntegrity(ctx)
			if (in.Problem != "") != (c.want != "") || !strings.Contains(in.Problem, c.want) {
				t.Fatalf("CheckIntegrity problem %q, want one naming %q", in.Problem, c.want)
			}
			if c.want == "" {
				return
			}
			// The next append must not erase the evidence: the anchor stays where it was.
			db.Record(ctx, record(9))
			if after, _, _ := ReadHead(filepath.Join(dir, AnchorFile)); after.Seq != head.Seq || after.Hash != head.Hash {
				t.Fatalf("anchor moved from %+v to %+v over a damaged chain", head, after)
			}
		})
	}
}

// TestCheckIntegrityCorruptPages: garbage written over pages in the middle of the file is
// found at start-up, with the first event that cannot be read.
func TestCheckIntegrityCorruptPages(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cockpit.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	big := strings.Repeat("padding ", 60)
	for i := 0; i < 400; i++ {
		r := record(i)
		r.Detail = jsonv.ObjectOf("pad", big)
		if err := db.Record(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if in := db.CheckIntegrity(ctx); in.Problem != "" {
		t.Fatalf("healthy store: %s", in.Problem)
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mid := (len(data) / 4096 / 2) * 4096
	copy(data[mid:], bytes.Repeat([]byte{0xA5}, 4*4096))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path)
	if err != nil {
		t.Fatalf("open: %v (the damage is in the middle; the schema still reads)", err)
	}
	defer db.Close()
	in := db.CheckIntegrity(ctx)
	if in.Problem == "" || in.BadSeq <= 0 || in.BadSeq > 400 {
		t.Fatalf("CheckIntegrity = %+v, want a problem and the first bad event", in)
	}
	t.Logf("found: %s (first bad event %d)", in.Problem, in.BadSeq)
}

// rewrite runs SQL past the append-only triggers, as someone editing the file would.
func rewrite(t *testing.T, db *DB, q string) *DB {
	t.Helper()
	for _, s := range []string{`DROP TRIGGER events_append_only_delete`, q} {
		if _, err := db.w.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestStartupCheckResumesFromCheckpoint: a clean start-up check is recorded in the anchor, and
// the next one recomputes everything written since — also beyond the newest TailEvents — so an
// edited event from a long session is found at the next start.
func TestStartupCheckResumesFromCheckpoint(t *testing.T) {
	dir := t.TempDir()
	db := anchored(t, dir, 10)
	ctx := context.Background()
	in := db.CheckIntegrity(ctx)
	if in.Problem != "" || in.Head.Seq != 10 {
		t.Fatalf("first check %+v", in)
	}
	if err := db.MarkVerified(ctx, in); err != nil {
		t.Fatal(err)
	}
	// Nothing new since the checkpoint: still clean, and the checkpoint stays usable.
	if again := db.CheckIntegrity(ctx); again.Problem != "" || again.Head != in.Head {
		t.Fatalf("check with nothing new %+v, want %+v", again, in)
	}
	if err := db.MarkVerified(ctx, db.CheckIntegrity(ctx)); err != nil {
		t.Fatal(err)
	}
	evs := make([]Event, TailEvents+100)
	for i := range evs {
		evs[i] = Event{Type: "order_placed", ActorKind: "agent", Summary: fmt.Sprint("order ", i), Payload: "{}"}
	}
	if _, err := db.AppendBatch(ctx, evs); err != nil {
		t.Fatal(err)
	}
	if a, _, _ := ReadHead(filepath.Join(dir, AnchorFile)); a.VerifiedSeq != 10 || a.Seq != int64(10+len(evs)) {
		t.Fatalf("anchor after appends %+v, want verified 10 and seq %d", a, 10+len(evs))
	}
	if in := db.CheckIntegrity(ctx); in.Problem != "" || in.Verified != int64(10+len(evs)) {
		t.Fatalf("second check %+v", in)
	}
	for _, q := range []string{`DROP TRIGGER events_append_only_update`, `UPDATE events SET summary = 'edited' WHERE seq = 50`} {
		if _, err := db.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	in = db.CheckIntegrity(ctx)
	if in.BadSeq != 50 || !strings.Contains(in.Problem, "broken at event 50") {
		t.Fatalf("check after editing event 50 (older than the newest %d): %+v", TailEvents, in)
	}
}
