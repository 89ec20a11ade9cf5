package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
)

// TestGroupCommitOneFailingWrite: a write that fails inside a group is undone alone; the
// others of the group are committed and the chain still verifies.
func TestGroupCommitOneFailingWrite(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	if err := db.Begin(ctx, live.JournalEntry{ClientOrderID: "ck_dup", Broker: "paper", Created: livetest.Epoch}); err != nil {
		t.Fatal(err)
	}
	appendOp := func(i int) *groupOp {
		return &groupOp{ctx: ctx, lead: make(chan bool, 1), fn: func(tx *sql.Tx) (Head, error) {
			out, err := db.insertEvents(ctx, tx, []Event{EventFromRecord(record(i))})
			return anchorOf(out), err
		}}
	}
	dup := &groupOp{ctx: ctx, lead: make(chan bool, 1), fn: func(tx *sql.Tx) (Head, error) {
		_, err := tx.Exec(`INSERT INTO events (` + eventColumns + `) VALUES (2,0,'','system','','','','x','','','','','','','','','{}','bad','bad')`)
		return Head{}, err // seq 2 is taken by the first write: a constraint failure
	}}
	batch := []*groupOp{appendOp(1), appendOp(2), dup, appendOp(3)}
	batch[1].fn = func(tx *sql.Tx) (Head, error) {
		out, err := db.insertEvents(ctx, tx, []Event{EventFromRecord(record(2))})
		return anchorOf(out), err
	}
	db.runGroup(batch)
	for i, o := range batch {
		if wantErr := o == dup; (o.err != nil) != wantErr {
			t.Fatalf("op %d: err %v, want error %v", i, o.err, wantErr)
		}
	}
	rep, err := db.Verify(ctx, nil)
	if err != nil || !rep.OK() || rep.Events != 3 {
		t.Fatalf("verify: %+v %v, want 3 events and an intact chain", rep, err)
	}
}

// TestGroupCommitConcurrentWriters: many goroutines appending, beginning and finishing at once
// all get their writes committed, each acknowledged write is there, and the chain verifies.
func TestGroupCommitConcurrentWriters(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*3)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprintf("ck_%d_%d", w, i)
				if err := db.Begin(ctx, live.JournalEntry{ClientOrderID: id, Broker: "paper", Created: livetest.Epoch}); err != nil {
					errs <- err
					continue
				}
				rec := record(i)
				rec.ClientOrderID = id
				if err := db.FinishRecord(ctx, id, live.JournalAccepted, "o"+id, "", livetest.Epoch, rec); err != nil {
					errs <- err
				}
				if err := db.Record(ctx, record(i)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rep, err := db.Verify(ctx, nil)
	if err != nil || !rep.OK() || rep.Events != writers*each*2 {
		t.Fatalf("verify: %+v %v, want %d events", rep, err, writers*each*2)
	}
	n, err := db.AcceptedOrders(ctx, "paper", livetest.Epoch)
	if err != nil || n != writers*each {
		t.Fatalf("accepted orders %d %v, want %d", n, err, writers*each)
	}
}

// TestFinishRecordAllOrNothing: the journal outcome and the audit record go in together: when
// the record cannot be written, the outcome is not either, and the order stays counted.
func TestFinishRecordAllOrNothing(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	if err := db.Begin(ctx, live.JournalEntry{ClientOrderID: "ck_1", Broker: "paper", Created: livetest.Epoch}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.Exec(`CREATE TRIGGER block BEFORE INSERT ON events BEGIN SELECT RAISE(FAIL, 'x'); END`); err != nil {
		t.Fatal(err)
	}
	err := db.FinishRecord(ctx, "ck_1", live.JournalRejected, "", "refused", livetest.Epoch, record(1))
	if err == nil {
		t.Fatal("FinishRecord with a blocked events table: got nil, want an error")
	}
	es, _ := db.JournalEntries(ctx, "paper")
	if len(es) != 1 || es[0].State != live.JournalSubmitting {
		t.Fatalf("journal %+v, want the row still submitting", es)
	}
	if n, _ := db.AcceptedOrders(ctx, "paper", livetest.Epoch); n != 1 {
		t.Fatalf("accepted orders %d, want 1 (an unsettled order counts)", n)
	}
	if err := db.FinishRecord(ctx, "ck_none", live.JournalRejected, "", "", livetest.Epoch, record(2)); !errors.Is(err, live.ErrOrderNotFound) {
		t.Fatalf("FinishRecord of an unknown order: %v, want ErrOrderNotFound", err)
	}
}

// TestLazyAnchorBehindThenClosed: with AnchorEvery set, the anchor may lag the chain (a crash
// leaves it behind, which the start-up check accepts) and Close brings it to the head.
func TestLazyAnchorBehindThenClosed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cockpit.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetAnchor(filepath.Join(dir, AnchorFile))
	db.AnchorEvery = time.Hour
	ctx := context.Background()
	for i := range 5 {
		if err := db.Record(ctx, record(i)); err != nil {
			t.Fatal(err)
		}
	}
	// The first anchor is written at once (in the background), the rest wait an hour.
	var a Head
	for range 500 {
		if a, _, _ = ReadHead(db.Anchor()); a.Seq > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if a.Seq < 1 || a.Seq >= 5 {
		t.Fatalf("anchor seq %d, want behind the head (1–4)", a.Seq)
	}
	if in := db.CheckIntegrity(ctx); in.Problem != "" {
		t.Fatalf("an anchor behind the chain: %q, want no problem", in.Problem)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if a, _, _ = ReadHead(filepath.Join(dir, AnchorFile)); a.Seq != 5 {
		t.Fatalf("anchor after Close at %d, want 5", a.Seq)
	}
	// Ahead of the chain (a lost tail) is still found.
	db2 := mustOpen(t, path)
	db2.SetAnchor(filepath.Join(dir, AnchorFile))
	rewrite(t, db2, `DELETE FROM events WHERE seq > 3`)
	if in := db2.CheckIntegrity(ctx); in.Problem == "" {
		t.Fatal("an anchor ahead of the chain: no problem found")
	}
}
