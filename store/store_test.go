package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

func mustOpen(tb testing.TB, path string) *DB {
	tb.Helper()
	if path == "" {
		path = filepath.Join(tb.TempDir(), "cockpit.db")
	}
	db, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func record(i int) live.AuditRecord {
	return live.AuditRecord{Time: livetest.Epoch.Add(time.Duration(i) * time.Second), Actor: live.Agent("strategy", "s1"),
		Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: "paper", Tool: "place_order",
		ClientOrderID: "ck_" + string(rune('a'+i%26)), Intent: "buy $100 AAPL (equity)",
		Request: jsonv.ObjectOf("symbol", "AAPL", "n", jsonv.Number("1.50"))}
}

func TestAppendAndVerify(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if err := db.Record(ctx, record(i)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := db.Verify(ctx, nil)
	if err != nil || !rep.OK() || rep.Events != 5 {
		t.Fatalf("verify %+v %v", rep, err)
	}
	e, err := db.Event(ctx, 2)
	if err != nil || e.Seq != 2 || e.Type != live.KindOrderPlaced || !strings.Contains(e.Payload, `"request":{"n":1.50,"symbol":"AAPL"}`) {
		t.Fatalf("event 2 = %+v %v", e, err)
	}
	if _, err := db.w.Exec(`UPDATE events SET outcome = 'rejected' WHERE seq = 2`); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("update of an event: %v, want the append-only trigger", err)
	}
	if _, err := db.w.Exec(`DELETE FROM events WHERE seq = 2`); err == nil {
		t.Fatal("delete of an event succeeded")
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cockpit.db")
	db := mustOpen(t, path)
	if _, err := db.w.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(path)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "999") {
		t.Fatalf("open: %v, want a newer-schema refusal naming 999", err)
	}
}

func TestFilesArePrivate(t *testing.T) {
	db := mustOpen(t, "")
	fi, err := os.Stat(db.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("db mode %v %v", fi.Mode(), err)
	}
}

// TestEditingAnyStoredByteIsCaught flips one byte of each event's payload in the database
// file itself (below SQLite, past the triggers): verify must fail and name that row.
func TestEditingAnyStoredByteIsCaught(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cockpit.db")
	db := mustOpen(t, path)
	markers := []string{"MARKERAAAA", "MARKERBBBB", "MARKERCCCC", "MARKERDDDD"}
	for i, m := range markers {
		r := record(i)
		r.Detail = jsonv.ObjectOf("note", m)
		if err := db.Record(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range markers {
		at := bytes.Index(orig, []byte(m))
		if at < 0 {
			t.Fatalf("marker %s not in the file", m)
		}
		edited := append([]byte(nil), orig...)
		edited[at+len(m)-1] ^= 0x01 // one bit of one byte
		if err := os.WriteFile(path, edited, 0o600); err != nil {
			t.Fatal(err)
		}
		db2, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := db2.Verify(ctx, nil)
		db2.Close()
		if err != nil || rep.OK() || rep.Break.Seq != int64(i+1) || rep.Break.Reason != "hash_mismatch" {
			t.Fatalf("after editing event %d: %+v %v", i+1, rep.Break, err)
		}
	}
}

func TestRecordRedactsBeforeTheRow(t *testing.T) {
	db := mustOpen(t, "")
	r := record(0)
	r.Request = jsonv.ObjectOf("api_key", "sk-live-abcdefghijklmnopqrstuv", "note", "Authorization: Bearer tok_9f8e7d6c5b4a")
	r.Error = "account_number=5XX111222 rejected"
	if err := db.Record(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	e, _ := db.Event(context.Background(), 1)
	for _, secret := range []string{"sk-live-abcdefghijklmnopqrstuv", "tok_9f8e7d6c5b4a", "5XX111222"} {
		if strings.Contains(e.Payload, secret) {
			t.Fatalf("payload keeps %q: %s", secret, e.Payload)
		}
	}
}

func TestQueries(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		r := record(i)
		if i%3 == 0 {
			r.Kind, r.Outcome, r.Reason = live.KindBreach, live.OutcomeBlocked, "max_order_notional_usd"
		}
		r.OrderID = "P" + string(rune('0'+i%10))
		db.Record(ctx, r)
	}
	page, err := db.Events(ctx, Filter{Limit: 10})
	if err != nil || len(page) != 10 || page[0].Seq != 30 {
		t.Fatalf("page 1: %d events, first %d, %v", len(page), page[0].Seq, err)
	}
	next, _ := db.Events(ctx, Filter{Limit: 10, BeforeSeq: page[9].Seq})
	if len(next) != 10 || next[0].Seq != 20 {
		t.Fatalf("page 2 starts at %d", next[0].Seq)
	}
	breaches, _ := db.Events(ctx, Filter{Type: live.KindBreach, Limit: 100})
	byCode, _ := db.Events(ctx, Filter{Reason: "max_order_notional_usd", Limit: 100})
	byOrder, _ := db.Events(ctx, Filter{OrderID: "P3", Limit: 100})
	since, _ := db.Events(ctx, Filter{Since: livetest.Epoch.Add(25 * time.Second), Limit: 100})
	if len(breaches) != 10 || len(byCode) != 10 || len(byOrder) != 3 || len(since) != 5 {
		t.Fatalf("filters: type %d, code %d, order %d, since %d", len(breaches), len(byCode), len(byOrder), len(since))
	}
}

func TestTailSeesOtherHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cockpit.db")
	reader, writer := mustOpen(t, path), mustOpen(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tail := reader.Tail(ctx, 0, 50*time.Millisecond)
	for i := 0; i < 3; i++ {
		writer.Record(ctx, record(i))
	}
	for want := int64(1); want <= 3; want++ {
		select {
		case e := <-tail:
			if e.Seq != want {
				t.Fatalf("tail gave %d, want %d", e.Seq, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("tail did not deliver %d", want)
		}
	}
}

func TestJournalAndReconcile(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	clock := livetest.NewClock(livetest.Epoch)
	p, _ := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: clock.Now})
	q := money.MustParse("1")
	for _, id := range []string{"ck_sent", "ck_lost", "ck_done"} {
		if err := db.Begin(ctx, live.JournalEntry{ClientOrderID: id, Broker: "paper", Request: live.OrderRequest{Symbol: "AAPL", Side: live.Buy, Quantity: &q}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Begin(ctx, live.JournalEntry{ClientOrderID: "ck_sent", Broker: "paper"}); err == nil {
		t.Fatal("a second Begin for one client id succeeded")
	}
	db.Finish(ctx, "ck_done", live.JournalAccepted, "P9", "", clock.Now())
	// ck_sent reached the broker before a crash; ck_lost never did.
	p.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "ck_sent", Symbol: "AAPL", Side: live.Buy, Quantity: &q})
	res, err := db.Reconcile(ctx, p, "paper", live.System("startup", "s2"))
	if err != nil || len(res) != 2 {
		t.Fatalf("reconcile %+v %v", res, err)
	}
	states := map[string]live.JournalState{}
	entries, _ := db.JournalEntries(ctx, "paper")
	for _, e := range entries {
		states[e.ClientOrderID] = e.State
	}
	if states["ck_sent"] != live.JournalAccepted || states["ck_lost"] != live.JournalRejected || states["ck_done"] != live.JournalAccepted {
		t.Fatalf("states %v", states)
	}
	evs, _ := db.Events(ctx, Filter{Type: live.KindReconciled})
	if len(evs) != 2 {
		t.Fatalf("%d reconcile events, want 2", len(evs))
	}
}

func TestApprovalsAcrossHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cockpit.db")
	engine, cli := mustOpen(t, path), mustOpen(t, path)
	ctx := context.Background()
	now := time.Now()
	a := Approval{ID: "ap_1", Broker: "paper", OrderJSON: `{"symbol":"AAPL"}`, Digest: "d1", Why: "breach",
		Limit: "max_order_notional_usd", CreatedAt: now, Deadline: now.Add(time.Minute)}
	if err := engine.CreateApproval(ctx, a); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var got Approval
	wg.Add(1)
	go func() {
		defer wg.Done()
		got, _ = engine.WaitResolved(ctx, "ap_1", 50*time.Millisecond, time.Now)
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := cli.Resolve(ctx, "ap_1", ApprovalApproved, "cli:alice", "looks fine"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if got.State != ApprovalApproved || got.ResolvedBy != "cli:alice" {
		t.Fatalf("engine saw %+v", got)
	}
	if _, err := cli.Resolve(ctx, "ap_1", ApprovalDenied, "bob", ""); !errors.Is(err, ErrNotPending) {
		t.Fatalf("second resolution: %v", err)
	}
	if err := engine.ConsumeGrant(ctx, "ap_1", "other-digest"); err == nil {
		t.Fatal("a grant was used for another order")
	}
	if err := engine.ConsumeGrant(ctx, "ap_1", "d1"); err != nil {
		t.Fatal(err)
	}
	if err := engine.ConsumeGrant(ctx, "ap_1", "d1"); err == nil {
		t.Fatal("a grant was used twice")
	}
	b := a
	b.ID, b.Deadline = "ap_2", now.Add(-time.Second)
	engine.CreateApproval(ctx, b)
	if got, _ := engine.WaitResolved(ctx, "ap_2", 0, time.Now); got.State != ApprovalTimedOut {
		t.Fatalf("past deadline: %s", got.State)
	}
	c := a
	c.ID = "ap_3"
	engine.CreateApproval(ctx, c)
	if n, _ := engine.VoidPending(ctx, "restart"); n != 1 {
		t.Fatalf("voided %d", n)
	}
}
