package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/store"
)

// openChecked opens a session on home and waits for its page check.
func openChecked(t *testing.T, home string) *Session {
	t.Helper()
	s, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	<-s.pages.finished()
	return s
}

// TestDamagedPagesBeforeTheCheckpointHaltBeforeAnyOrder (issue 32, DV15): the start-up check
// of the chain covers only what was written since the last verified point, and the check of
// every page runs beside the screen; garbage over pages written long before that point is
// still found before any order: an order sent at once waits for the check, then is DENY
// audit_unavailable and never reaches the broker.
func TestDamagedPagesBeforeTheCheckpointHaltBeforeAnyOrder(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "cockpit.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("padding ", 60)
	for i := range 400 {
		if err := db.Record(context.Background(), live.AuditRecord{Kind: "tool_call", Outcome: "accepted", Intent: fmt.Sprint("read ", i),
			Detail: jsonv.ObjectOf("pad", pad)}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s := openChecked(t, home)
	if msg := s.integrityProblem(); msg != "" {
		t.Fatalf("healthy store: %s", msg)
	}
	s.Close()
	if a, _, _ := store.ReadHead(filepath.Join(home, store.AnchorFile)); a.VerifiedSeq < 400 {
		t.Fatalf("anchor %+v: the checkpoint is not past the padded events", a)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mid := (len(data) / 4096 / 2) * 4096
	copy(data[mid:], bytes.Repeat([]byte{0xA5}, 4*4096))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := Open(testOptions(home))
	if err != nil {
		t.Logf("open refused the damaged store: %v", err)
		return // caught before any order, at open
	}
	defer again.Close()
	if msg := again.integrityProblem(); msg != "" {
		t.Errorf("the chain since the checkpoint was found damaged (%s): the damage should be before it", msg)
	}
	d := again.buy(t)
	if d.Forwarded || d.Reason != live.ReasonAuditUnavailable {
		t.Fatalf("order on a store with damaged pages: %s %s forwarded=%v, want DENY audit_unavailable", d.Verdict, d.Reason, d.Forwarded)
	}
	if h, ok := again.Latched(); !ok || !strings.Contains(h.Detail, "first bad event") {
		t.Errorf("latch %+v %v, want audit_unavailable naming the first bad event", h, ok)
	}
	if open, _ := again.broker.OpenOrders(context.Background()); len(open) != 0 {
		t.Errorf("the broker holds %d orders", len(open))
	}
}

// TestEditedEventAfterTheCheckpointHaltsAtOpen (DV15): an event written after the last
// verified point and edited since is found by the chain's check at open, before anything is
// written: the session starts HALTED audit_unavailable and the next order is denied.
func TestEditedEventAfterTheCheckpointHaltsAtOpen(t *testing.T) {
	home := t.TempDir()
	s := openChecked(t, home)
	verified, _, _ := store.ReadHead(filepath.Join(home, store.AnchorFile))
	if d := s.buy(t); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("first order: %s %s", d.Verdict, d.Reason)
	}
	s.Close()
	sqlExec(t, home, fmt.Sprintf(`DROP TRIGGER events_append_only_update; UPDATE events SET summary = 'edited' WHERE seq = %d`, verified.VerifiedSeq+1))
	again, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	want := fmt.Sprintf("broken at event %d", verified.VerifiedSeq+1)
	if msg := again.integrityProblem(); !strings.Contains(msg, want) {
		t.Errorf("chain check at open: %q, want %q", msg, want)
	}
	if d := again.buy(t); d.Forwarded || d.Reason != live.ReasonAuditUnavailable {
		t.Errorf("order after the edit: %s %s forwarded=%v, want DENY audit_unavailable", d.Verdict, d.Reason, d.Forwarded)
	}
}
