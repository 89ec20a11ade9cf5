package fleet_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/redact"
	"cockpit/store"
)

// storeTrail is a store's trail as the fleet publishes it (the session's StoreTrail).
type storeTrail struct{ db *store.DB }

func (t storeTrail) TrailAfter(ctx context.Context, seq int64, limit int) ([]fleet.TrailEvent, error) {
	evs, err := t.db.Events(ctx, store.Filter{AfterSeq: seq, Ascending: true, Limit: limit})
	var out []fleet.TrailEvent
	for _, e := range evs {
		data, _ := json.Marshal(e)
		out = append(out, fleet.TrailEvent{Seq: e.Seq, Prev: e.PrevHash, Hash: e.Hash, Event: data})
	}
	return out, err
}

// rehash is `audit verify`'s hash of a published event.
func rehash(raw json.RawMessage) (int64, string, string, error) {
	var e store.Event
	if err := json.Unmarshal(raw, &e); err != nil {
		return 0, "", "", err
	}
	return e.Seq, e.PrevHash, store.HashEvent(e), nil
}

// trailHost is a host whose audit sink writes a store and publishes its trail.
type trailHost struct {
	f    *fleet.Fleet
	db   *store.DB
	sink *fleet.AuditSink
}

func newTrailHost(t *testing.T, tf *testFleet, name string) *trailHost {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := connect(t, tf, name)
	h := &trailHost{f: f, db: db, sink: &fleet.AuditSink{Next: db, F: f, Trail: storeTrail{db}}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.sink.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

func (h *trailHost) record(t *testing.T, intent string) {
	t.Helper()
	if err := h.sink.Record(context.Background(), live.AuditRecord{Time: time.Now(), Kind: live.KindOrderPlaced,
		Outcome: live.OutcomeAccepted, Intent: intent}); err != nil {
		t.Fatal(err)
	}
}

// waitTail waits until the stream holds n entries and returns the tail.
func waitTail(t *testing.T, f *fleet.Fleet, n int) fleet.AuditTail {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tail, err := f.ReadAuditTail(context.Background(), 0)
		if err == nil && len(tail.Entries) >= n {
			return tail
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream holds %d entries (%v), want %d", len(tail.Entries), err, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func marks(c []fleet.CheckedEntry) string {
	var s []string
	for _, e := range c {
		s = append(s, e.Host+":"+e.Mark)
	}
	return strings.Join(s, " ")
}

// TestFleetAuditCarriesTheChain: each host's events reach the stream in order with the
// hash `audit verify` computes (a secret registered for redaction never leaves the host),
// and every entry checks out; an event published twice is stored once.
func TestFleetAuditCarriesTheChain(t *testing.T) {
	ns := serve(t)
	a, b := newTrailHost(t, ns, "h1"), newTrailHost(t, ns, "h2")
	secret := "sk-live-fleet-test-0123456789abcdef"
	redact.RegisterSecret(secret)
	for i := range 3 {
		a.record(t, "buy $100 AAPL with key "+secret)
		if i < 2 {
			b.record(t, "sell $50 MSFT")
		}
	}
	tail := waitTail(t, a.f, 5)
	time.Sleep(600 * time.Millisecond) // a later pass publishes nothing twice
	tail = waitTail(t, a.f, 5)
	if len(tail.Entries) != 5 || len(tail.Warnings) != 0 || !tail.FromHead {
		t.Fatalf("tail: %d entries, warnings %v, from head %v; want 5, none, true", len(tail.Entries), tail.Warnings, tail.FromHead)
	}
	for _, e := range tail.Entries {
		if strings.Contains(string(e.Event), secret) {
			t.Fatalf("the fleet's copy holds the secret: %s", e.Event)
		}
		db := a.db
		if e.Host == "h2" {
			db = b.db
		}
		local, err := db.Event(context.Background(), e.Seq)
		if err != nil || local.Hash != e.Hash {
			t.Errorf("%s seq %d: hash %s, the store's %s (%v)", e.Host, e.Seq, e.Hash, local.Hash, err)
		}
	}
	checked := b.f.CheckAudit(context.Background(), tail, rehash, nil)
	if got, want := strings.Count(marks(checked), ":"+fleet.MarkOK), 5; got != want {
		t.Errorf("marks %s: want all 5 ok", marks(checked))
	}
	e := tail.Entries[0]
	for _, x := range tail.Entries {
		if x.Host == "h1" {
			e = x // h1's own event, published by h1 again
			break
		}
	}
	if err := a.f.PublishAudit(context.Background(), fleet.AuditEntry{Seq: e.Seq, Prev: e.Prev, Hash: e.Hash, Event: e.Event}); err != nil {
		t.Fatal(err)
	}
	if again := waitTail(t, a.f, 5); len(again.Entries) != 5 {
		t.Errorf("an event published twice: %d entries, want 5", len(again.Entries))
	}
}

// TestFleetAuditPurgeAndForgeryMarked is the third repro: the stream is purged and a
// forged record published (with a host's own credentials: no host may purge, and none may
// write another's subject). `audit list --fleet`'s check warns that the stream lost its
// start, marks the forgeries, and marks the gap in h1's chain when h1's next events arrive.
func TestFleetAuditPurgeAndForgeryMarked(t *testing.T) {
	ns := serve(t)
	a, b := newTrailHost(t, ns, "h1"), newTrailHost(t, ns, "h2")
	for range 3 {
		a.record(t, "buy $100 AAPL")
	}
	b.record(t, "sell $50 MSFT")
	waitTail(t, a.f, 4)
	js, done, err := fleet.AdminJetStream(ns.nodes[0], ns.auth)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	s, err := js.Stream(context.Background(), fleet.AuditStream)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ev, _ := json.Marshal(store.Event{Seq: 1, Time: time.Now().UTC(), Type: "order_placed", Summary: "nothing happened", PrevHash: store.GenesisHash})
	forgeries := []fleet.AuditEntry{
		{Seq: 1, Prev: store.GenesisHash, Hash: strings.Repeat("0", 64), Event: ev}, // a hash that is not the event's
	}
	var e store.Event
	_ = json.Unmarshal(ev, &e)
	e.Hash = store.HashEvent(e)
	good, _ := json.Marshal(e)
	for _, fg := range forgeries {
		if err := b.f.PublishAudit(ctx, fg); err != nil {
			t.Fatal(err)
		}
	}
	// A self-consistent event h2 never recorded: its hash checks out, but h2's own trail
	// (the local check of `audit list --fleet` on h2) holds another event at seq 1.
	if err := b.f.PublishAudit(ctx, fleet.AuditEntry{Seq: 1, Prev: store.GenesisHash, Hash: e.Hash, Event: good}); err != nil {
		t.Fatal(err)
	}
	a.record(t, "sell $100 AAPL") // h1 goes on: seq 4
	tail := waitTail(t, a.f, 3)
	local := func(seq int64) (string, bool) {
		le, err := b.db.Event(ctx, seq)
		return le.Hash, err == nil
	}
	checked := b.f.CheckAudit(ctx, tail, rehash, local)
	if len(tail.Warnings) == 0 || !strings.Contains(tail.Warnings[0], "purged") {
		t.Errorf("warnings %q: want the purge said", tail.Warnings)
	}
	if got, want := marks(checked), "h2:FORGED h2:FORGED h1:GAP"; got != want {
		t.Errorf("marks = %s, want %s", got, want)
		for _, c := range checked {
			t.Logf("%s seq %d %s: %s", c.Host, c.Seq, c.Mark, c.Why)
		}
	}
}

// TestFleetAuditChainBreaks: within the stream, a host's missing record is a gap, a record
// whose prev_hash does not link is a fork, an unsigned or tampered one is forged, and a new
// chain (seq 1 again) is a restart.
func TestFleetAuditChainBreaks(t *testing.T) {
	ns := serve(t)
	f := connect(t, ns, "h1")
	db, err := store.Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var evs []store.Event
	for i := range 5 {
		e, err := db.Append(ctx, store.Event{Type: "order_placed", Summary: "order " + string(rune('a'+i))})
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	entry := func(e store.Event) fleet.AuditEntry {
		data, _ := json.Marshal(e)
		return fleet.AuditEntry{Seq: e.Seq, Prev: e.PrevHash, Hash: e.Hash, Event: data}
	}
	tampered := evs[2]
	tampered.Summary = "order z"
	fork := evs[1]
	fork.Summary, fork.PrevHash = "order y", strings.Repeat("f", 64)
	fork.Hash = store.HashEvent(fork)
	restart := store.Event{Seq: 1, Time: evs[0].Time, Type: "audit_rotated", PrevHash: store.GenesisHash}
	restart.Hash = store.HashEvent(restart)
	tail := fleet.AuditTail{FromHead: true}
	// tampered keeps seq 3's stored hash while its summary changed.
	for _, e := range []fleet.AuditEntry{entry(evs[0]), entry(fork), entry(tampered), entry(evs[3]), entry(evs[4]), entry(restart)} {
		e.Host, e.Subject = "h1", "cockpit.audit.h1"
		tail.Entries = append(tail.Entries, e)
	}
	for i := range tail.Entries { // signed as h1 would sign them
		tail.Entries[i] = signed(t, f, tail.Entries[i])
	}
	unsigned := entry(evs[4])
	unsigned.Host, unsigned.Subject = "h1", "cockpit.audit.h1"
	tail.Entries = append(tail.Entries, unsigned)
	checked := f.CheckAudit(ctx, tail, rehash, nil)
	want := []string{fleet.MarkOK, fleet.MarkForged, fleet.MarkForged, fleet.MarkGap, fleet.MarkOK, fleet.MarkRestart, fleet.MarkForged}
	for i, c := range checked {
		if c.Mark != want[i] {
			t.Errorf("entry %d (seq %d): %s (%s), want %s", i, c.Seq, c.Mark, c.Why, want[i])
		}
	}
}

// signed is e as its host publishes it: through PublishAudit's signature, read back.
func signed(t *testing.T, f *fleet.Fleet, e fleet.AuditEntry) fleet.AuditEntry {
	t.Helper()
	if err := f.PublishAudit(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	tail, err := f.ReadAuditTail(context.Background(), 1)
	if err != nil || len(tail.Entries) != 1 {
		t.Fatalf("read back: %v", err)
	}
	return tail.Entries[0]
}
