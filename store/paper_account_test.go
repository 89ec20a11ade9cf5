package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// paperBroker is a paper broker saved to db under "paper".
func paperBroker(t *testing.T, db *DB, clock *livetest.Clock, st *paper.State) *paper.Broker {
	t.Helper()
	b, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 7, Symbols: paper.DefaultSymbols()}, Now: clock.Now,
		State: st, Store: db.PaperStore("paper")})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPaperAccountRoundTrip: an account saved change by change reloads with its cash, its
// positions and its open orders; its settled orders stay in the store, where a lookup by id or
// client order id finds them.
func TestPaperAccountRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, "")
	clock := livetest.NewClock(livetest.Epoch)
	if _, found, err := db.LoadPaper(ctx, "paper"); found || err != nil {
		t.Fatalf("an account before any save: found %v, %v", found, err)
	}
	b := paperBroker(t, db, clock, nil)
	if err := b.Save(); err != nil {
		t.Fatal(err)
	}
	one := money.MustParse("1")
	for i := range 20 {
		side := []string{live.Buy, live.Sell}[i%3%2]
		if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("m%d", i), Symbol: "AAPL", Side: side, Quantity: &one}); err != nil {
			t.Fatal(err)
		}
	}
	low := money.MustParse("1")
	rest, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "rest", Symbol: "MSFT", Side: live.Buy, Type: live.Limit, Quantity: &one, LimitPrice: &low})
	if err != nil {
		t.Fatal(err)
	}
	st, found, err := db.LoadPaper(ctx, "paper")
	if err != nil || !found {
		t.Fatalf("LoadPaper: found %v, %v", found, err)
	}
	if len(st.Orders) != 1 || st.Orders[rest.ID] == nil {
		t.Errorf("reloaded orders %v, want only the resting %s", st.Orders, rest.ID)
	}
	again := paperBroker(t, db, clock, st)
	before, _ := b.Positions(ctx)
	after, _ := again.Positions(ctx)
	if len(after) != 1 || len(before) != 1 || after[0].Qty.Cmp(before[0].Qty) != 0 || after[0].AvgPrice.Cmp(before[0].AvgPrice) != 0 {
		t.Errorf("positions after reload %+v, before %+v", after, before)
	}
	a1, _ := b.Account(ctx)
	a2, _ := again.Account(ctx)
	if a1.Cash.Cmp(a2.Cash) != 0 {
		t.Errorf("cash after reload %s, before %s", a2.Cash, a1.Cash)
	}
	if o, err := again.OrderByClientID(ctx, "m3"); err != nil || o.Status != live.StatusFilled {
		t.Errorf("a settled order after reload: %+v %v, want filled", o, err)
	}
	if o, err := again.OrderByID(ctx, "P000002"); err != nil || o.ClientOrderID != "m1" {
		t.Errorf("a settled order by id after reload: %+v %v, want m1", o, err)
	}
	if err := again.CancelOrder(ctx, "P000001"); err == nil || !strings.Contains(err.Error(), "is filled") {
		t.Errorf("cancel of a settled order after reload: %v, want it said filled", err)
	}
	if err := again.CancelOrder(ctx, rest.ID); err != nil {
		t.Errorf("cancel of the resting order after reload: %v", err)
	}
	if st, _, _ := db.LoadPaper(ctx, "paper"); len(st.Orders) != 0 {
		t.Errorf("open orders after the cancel: %d, want none", len(st.Orders))
	}
}

// TestPaperRowsStaySmall (issue 32): after 300 orders no row of the paper account holds the
// history; each save rewrites the header and the rows of what changed.
func TestPaperRowsStaySmall(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, "")
	b := paperBroker(t, db, livetest.NewClock(livetest.Epoch), nil)
	one := money.MustParse("1")
	for i := range 300 {
		side := []string{live.Buy, live.Sell}[i%2]
		if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("m%d", i), Symbol: "AAPL", Side: side, Quantity: &one}); err != nil {
			t.Fatal(err)
		}
	}
	var header, orders, largest int
	if err := db.r.QueryRowContext(ctx, `SELECT max(length(state)) FROM paper_accounts`).Scan(&header); err != nil {
		t.Fatal(err)
	}
	if err := db.r.QueryRowContext(ctx, `SELECT count(*), max(length(body)) FROM paper_orders`).Scan(&orders, &largest); err != nil {
		t.Fatal(err)
	}
	if header > 1024 || largest > 1024 || orders != 300 {
		t.Errorf("header %d bytes, %d order rows, the largest %d bytes; want both under 1 KB and 300 rows", header, orders, largest)
	}
}

// TestPaperMigrationSplitsWholeAccounts: migration 0009 splits an account saved whole into its
// header and rows; what it held reloads the same, settled orders are found by client order id,
// and an account that never decoded is left as it was and still refused, naming it.
func TestPaperMigrationSplitsWholeAccounts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cockpit.db")
	w, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	old := &DB{path: path, w: w, Now: time.Now, notify: newNotifier()}
	if err := old.migrateTo(ctx, 8); err != nil {
		t.Fatal(err)
	}
	qty, lp, px := money.MustParse("2"), money.MustParse("1.00"), money.MustParse("190")
	at := livetest.Epoch
	st := paper.State{Seed: 1, MarketStart: at, Cash: money.MustParse("98100"), Seq: 2,
		Positions: map[string]*paper.PositionState{"AAPL": {Qty: money.MustParse("10"), Avg: px, Realized: money.MustParse("-7")}},
		Orders: map[string]*live.Order{
			"P000001": {ID: "P000001", ClientOrderID: "c1", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: &qty,
				FilledQty: qty, AvgFillPrice: px, Status: live.StatusFilled, CreatedAt: at},
			"P000002": {ID: "P000002", ClientOrderID: "c2", Symbol: "MSFT", Side: live.Buy, Type: live.Limit, Quantity: &qty,
				LimitPrice: &lp, Status: live.StatusAccepted, CreatedAt: at}},
		ByClient: map[string]string{"c1": "P000001", "c2": "P000002"}}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range [][2]string{{"paper", string(data)}, {"paper-b", `{"cash":`}} {
		if _, err := w.Exec(`INSERT INTO paper_accounts (broker, state, updated_at) VALUES (?, ?, 0)`, row[0], row[1]); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	db := mustOpen(t, path)
	got, found, err := db.LoadPaper(ctx, "paper")
	if err != nil || !found {
		t.Fatalf("LoadPaper after the migration: found %v, %v", found, err)
	}
	if len(got.Orders) != 1 || got.Orders["P000002"] == nil || got.Seq != 2 || got.Cash.Cmp(st.Cash) != 0 ||
		got.Positions["AAPL"] == nil || got.Positions["AAPL"].Realized.Cmp(money.MustParse("-7")) != 0 {
		t.Errorf("reloaded %+v, want cash 98100, seq 2, the AAPL position and the one open order", got)
	}
	var header string
	db.r.QueryRowContext(ctx, `SELECT state FROM paper_accounts WHERE broker = 'paper'`).Scan(&header)
	if strings.Contains(header, "orders") || strings.Contains(header, "positions") {
		t.Errorf("the header still holds the account: %s", header)
	}
	if body, ok, err := db.PaperStore("paper").OrderByClientID("c1"); err != nil || !ok || !strings.Contains(string(body), `"filled"`) {
		t.Errorf("the settled order by client id: %s %v %v", body, ok, err)
	}
	if _, _, err := db.LoadPaper(ctx, "paper-b"); err == nil || !strings.Contains(err.Error(), "paper-b is unreadable") {
		t.Errorf("an account that never decoded: %v, want unreadable, naming it", err)
	}
}

// TestPaperDayMarkSurvivesARestart: the paper account's day mark (start and peak, what the
// loss limits and the day P&L read) is saved with the account's header, so a database closed
// and opened again gives a broker the same day's start and peak.
func TestPaperDayMarkSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cockpit.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := livetest.NewClock(livetest.Epoch)
	b := paperBroker(t, db, clock, nil)
	for _, eq := range []string{"100000", "100400", "99900"} {
		if _, err := b.MarkEquity(clock.Now(), money.MustParse(eq)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, found, err := db.LoadPaper(ctx, "paper")
	if err != nil || !found {
		t.Fatalf("LoadPaper: found %v, %v", found, err)
	}
	again := paperBroker(t, db, clock, st)
	m, err := again.MarkEquity(clock.Now(), money.MustParse("99800"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Day+" "+m.Start.String()+"/"+m.Peak.String(), live.UTCDay(clock.Now())+" 100000/100400"; got != want {
		t.Fatalf("after a restart the day mark is %s, want %s", got, want)
	}
}
