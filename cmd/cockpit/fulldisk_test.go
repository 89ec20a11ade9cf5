package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/halt"
	"cockpit/live/paper"
	"cockpit/store"
)

// diskFull makes the store refuse what a full disk refuses once a write-ahead row is in: the
// paper account and the journal's outcomes (the triggers stand in for SQLITE_FULL).
const diskFull = `
CREATE TRIGGER full_paper_insert BEFORE INSERT ON paper_accounts BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;
CREATE TRIGGER full_paper_update BEFORE UPDATE ON paper_accounts BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;
CREATE TRIGGER full_journal BEFORE UPDATE ON order_journal BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;`

const diskFreed = `DROP TRIGGER full_paper_insert; DROP TRIGGER full_paper_update; DROP TRIGGER full_journal;`

// TestFullDiskHaltSurvivesARestart is issue 27 item 6's disk-full repro, with the disk's
// refusals injected (no new file can be written, the paper account and the journal's outcomes
// cannot be stored): a burst trips HALTED audit_unavailable and the global HALT is on disk all
// the same; after space is freed a restart with three orders places none and exits 1, and the
// journal agrees with the paper account it reloads (today no HALT file was written and the
// restart traded 3 orders without a resume, and the fill was reconciled as rejected).
func TestFullDiskHaltSurvivesARestart(t *testing.T) {
	home := fastHome(t, "")
	if _, e, code := runLive(t, home, nil, "init"); code != 0 {
		t.Fatal(e)
	}
	if _, e, code := runLive(t, home, nil, "run", "--headless", "--agent", "none", "--for", "100ms"); code != 0 {
		t.Fatalf("first run: exit %d %s", code, e)
	}
	db := filepath.Join(home, "cockpit.db")
	sqlExec(t, db, diskFull)
	restore := atomicfile.FailWrites(syscall.ENOSPC)
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", ordersScript(t, 20), "--for", "10s")
	restore()
	sqlExec(t, db, diskFreed)
	if code != exitFailure || !strings.Contains(errOut, "HALTED audit_unavailable") {
		t.Fatalf("burst on a full disk: exit %d, want %d and HALTED audit_unavailable\nstdout %s\nstderr %s", code, exitFailure, out, errOut)
	}
	book := storedBook(t, home)
	for _, m := range placed.FindAllStringSubmatch(out, -1) {
		if o, ok := book.byID(t, m[1]); !ok || o.Status != live.StatusFilled {
			t.Errorf("the burst said order %s was placed and filled; the stored paper account holds %v %+v", m[1], ok, o)
		}
	}
	if a, _ := halt.ReadSentinel(live.Root(home), live.HaltSentinel, live.GlobalScope); a == nil || !strings.HasPrefix(a.Reason, "audit_unavailable") {
		t.Errorf("global HALT after the burst: %+v, want one saying audit_unavailable", a)
	}
	out, errOut, code = runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", ordersScript(t, 3), "--for", "3s")
	if code != exitFailure || !strings.Contains(out, "orders placed 0") || !strings.Contains(errOut, "ended HALTED") {
		t.Errorf("restart after space was freed: exit %d, want %d, no order and HALTED\nstdout %s\nstderr %s", code, exitFailure, out, errOut)
	}
	checkBookAgreesWithJournal(t, home)
}

// checkBookAgreesWithJournal: every order the stored paper account holds is accepted in the
// journal, and every accepted order is in the account; an order reconciled as rejected is
// one the paper broker never took.
func checkBookAgreesWithJournal(t *testing.T, home string) {
	t.Helper()
	st := storedBook(t, home)
	entries, err := st.db.JournalEntries(context.Background(), "paper")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		_, held := st.byClient(t, e.ClientOrderID)
		if held != (e.State == live.JournalAccepted) {
			t.Errorf("order %s: journal %s, in the paper account %v", e.ClientOrderID, e.State, held)
		}
	}
	t.Logf("%d journal rows agree with the paper account", len(entries))
}

// placed finds the broker order ids a headless run says it placed.
var placed = regexp.MustCompile(`→ order (P\d+)`)

// savedAccount is the paper account as the store holds it.
type savedAccount struct {
	db    *store.DB
	store paper.Store
}

// storedBook opens the root's store to read the paper account (closed with the test).
func storedBook(t *testing.T, home string) savedAccount {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, found, err := db.LoadPaper(context.Background(), "paper"); err != nil || !found {
		t.Fatalf("paper account: found %v, %v", found, err)
	}
	return savedAccount{db: db, store: db.PaperStore("paper")}
}

func (a savedAccount) byID(t *testing.T, id string) (live.Order, bool) {
	t.Helper()
	return decodeOrder(t)(a.store.OrderByID(id))
}

func (a savedAccount) byClient(t *testing.T, cid string) (live.Order, bool) {
	t.Helper()
	return decodeOrder(t)(a.store.OrderByClientID(cid))
}

func decodeOrder(t *testing.T) func([]byte, bool, error) (live.Order, bool) {
	return func(data []byte, found bool, err error) (live.Order, bool) {
		t.Helper()
		var o live.Order
		if err != nil {
			t.Fatal(err)
		}
		if found {
			if err := json.Unmarshal(data, &o); err != nil {
				t.Fatal(err)
			}
		}
		return o, found
	}
}
