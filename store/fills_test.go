package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/lots"
	"cockpit/live/money"
)

// day0 is a fixed UTC day; fills are placed at hours of it.
var day0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// fillAt is a paper order update that fills id completely: qty of sym at px, at hour h of day d.
func fillAt(d, h int, id, side, sym, qty, px string) live.OrderUpdate {
	q, p := money.MustParse(qty), money.MustParse(px)
	o := live.Order{ID: id, ClientOrderID: "c-" + id, Symbol: sym, Side: side, Status: live.StatusFilled, FilledQty: q, AvgFillPrice: p}
	return live.OrderUpdate{Order: o, FillQty: q, FillPx: p, Time: day0.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour)}
}

func recorder(db *DB) *live.FillRecorder {
	return &live.FillRecorder{Broker: "paper", Audit: db, Ledger: db, Session: "s1"}
}

func observe(t *testing.T, r *live.FillRecorder, us ...live.OrderUpdate) int {
	t.Helper()
	n := 0
	for _, u := range us {
		_, ok, err := r.Observe(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			n++
		}
	}
	return n
}

func TestDayTrades(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	observe(t, recorder(db),
		fillAt(-1, 20, "P1", "buy", "AAPL", "10", "100"), // yesterday's lot
		fillAt(0, 9, "P2", "buy", "AAPL", "5", "110"),
		fillAt(0, 10, "P3", "sell", "AAPL", "12", "120"), // closes 10 @ 100 and 2 @ 110
		fillAt(0, 11, "P4", "sell", "MSFT", "1", "400"),  // opens a short
	)
	got, err := db.DayTrades(ctx, day0.Add(15*time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Trades); n != 3 {
		t.Fatalf("trades = %d, want the day's 3", n)
	}
	if n := len(got.Trips); n != 2 {
		t.Fatalf("round trips = %d (%+v), want 2", n, got.Trips)
	}
	for i, w := range []struct{ qty, open, net string }{{"10", "100", "200"}, {"2", "110", "20"}} {
		rt := got.Trips[i]
		if rt.Qty.String() != w.qty || rt.OpenPrice.String() != w.open || rt.Net.String() != w.net || rt.Symbol != "AAPL" {
			t.Errorf("trip %d = %s %s @ %s net %s, want AAPL %s @ %s net %s", i, rt.Symbol, rt.Qty, rt.OpenPrice, rt.Net, w.qty, w.open, w.net)
		}
	}
	if got, want := got.Realized.String(), "220"; got != want {
		t.Errorf("realised = %s, want %s", got, want)
	}
	if got, want := got.Trades[1].Position.String(), "3"; got != want {
		t.Errorf("AAPL position after the sell = %s, want %s", got, want)
	}
	empty, err := db.DayTrades(ctx, day0.AddDate(0, 0, 5), "paper")
	if err != nil || len(empty.Trades) != 0 || len(empty.Trips) != 0 || empty.Trades == nil || empty.Trips == nil {
		t.Fatalf("a day without fills = %+v, %v; want empty, non-nil lists", empty, err)
	}
	other, _ := db.DayTrades(ctx, day0, "alpaca")
	if len(other.Trades) != 0 {
		t.Errorf("--broker alpaca listed %d paper fills", len(other.Trades))
	}
}

// TestFillRecordedOnceAcrossRestart: the same update seen again by a new process (a reopened
// store, a fresh recorder) adds nothing, and a repeated fill event that does reach the trail
// (two writers) is kept there but not matched twice.
func TestFillRecordedOnceAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cockpit.db")
	db := mustOpen(t, path)
	u := fillAt(0, 9, "P1", "buy", "AAPL", "10", "100")
	if n := observe(t, recorder(db), u); n != 1 {
		t.Fatalf("first sight recorded %d fills, want 1", n)
	}
	db.Close()
	db = mustOpen(t, path)
	ctx := context.Background()
	if n := observe(t, recorder(db), u, u); n != 0 {
		t.Fatalf("after a restart the same fill was recorded %d more times", n)
	}
	f, _ := live.NextFill("paper", u, live.FillProgress{})
	if err := db.Record(ctx, f.Record("s2")); err != nil { // a second writer's copy
		t.Fatal(err)
	}
	evs, _ := db.Events(ctx, Filter{Type: live.KindFill})
	if len(evs) != 2 {
		t.Fatalf("fill events = %d, want 2 (the trail keeps the copy)", len(evs))
	}
	day, err := db.DayTrades(ctx, day0, "")
	if err != nil {
		t.Fatal(err)
	}
	if day.NotApplied != 1 || day.Trades[1].State != FillDuplicate || day.Trades[1].Position.String() != "0" {
		t.Fatalf("the copy: state %s, not applied %d; want duplicate, 1", day.Trades[1].State, day.NotApplied)
	}
	pnl, _ := db.DailyPnL(ctx, day0, 1, "")
	if got := pnl[0].Open[0].Qty.String(); got != "10" {
		t.Errorf("position = %s, want 10 (not 20)", got)
	}
}

func TestDailyPnL(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	observe(t, recorder(db),
		fillAt(0, 9, "P1", "buy", "AAPL", "10", "100"),
		fillAt(0, 10, "P2", "buy", "AAPL", "10", "104"), // marks AAPL at 104 at day 0's end
		fillAt(1, 9, "P3", "sell", "AAPL", "15", "106"), // realises 10×6 + 5×2 = 70
		fillAt(1, 10, "P4", "sell", "BTC/USD", "0.5", "60000"),
	)
	days, err := db.DailyPnL(ctx, day0.AddDate(0, 0, 2), 4, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		fills            int
		realised, unreal string
		open             int
	}{
		{0, "0", "0", 0},
		{2, "0", "40", 1},  // 20 AAPL, cost 2040, marked 104
		{2, "70", "10", 2}, // 5 AAPL left at 104 marked 106; the BTC short at its own fill price
		{0, "0", "10", 2},
	}
	for i, w := range want {
		d := days[i]
		if d.Fills != w.fills || d.Realized.String() != w.realised || d.Unrealized.String() != w.unreal || len(d.Open) != w.open {
			t.Errorf("day %s: fills %d realised %s unrealised %s open %d; want %d %s %s %d", d.Day.Format(time.DateOnly),
				d.Fills, d.Realized, d.Unrealized, len(d.Open), w.fills, w.realised, w.unreal, w.open)
		}
	}
	if _, err := db.DailyPnL(ctx, day0, 0, ""); err == nil {
		t.Errorf("0 days accepted")
	}
}

// TestFillQueriesUseIndexes: every read of the trades and P&L views is an index search, not a
// scan of the fills (or the events) that grows with history (issue 32). The list of symbols
// (one row per broker and symbol ever filled) is read whole; it grows with symbols, not fills.
func TestFillQueriesUseIndexes(t *testing.T) {
	db := mustOpen(t, "")
	for _, q := range []string{tradesOfDay, fillsInRange, lastFillAt,
		`SELECT qty, notional FROM fill_orders WHERE broker = ? AND order_key = ?`} {
		rows, err := db.r.Query("EXPLAIN QUERY PLAN "+q, 1, 2, "", "")
		if err != nil && strings.Contains(err.Error(), "arguments") {
			rows, err = db.r.Query("EXPLAIN QUERY PLAN "+q, 1, 2, 3)
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			rows.Scan(&id, &parent, &notused, &detail)
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "; ")
		if strings.Contains(text, "SCAN fills ") || strings.HasSuffix(text, "SCAN fills") || strings.Contains(text, "SCAN events") ||
			!strings.Contains(text, "USING") {
			t.Errorf("%s\nplan: %s; want an index search", q, text)
		}
	}
}

// TestFillMigrationDerivesExistingFills: fill events already in a trail written before
// migration 9 (an import) get their rows when the store opens.
func TestFillMigrationDerivesExistingFills(t *testing.T) {
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
	prev := GenesisHash
	for i, u := range []live.OrderUpdate{fillAt(0, 9, "P1", "buy", "ETH/USD", "2", "3000"), fillAt(0, 10, "P2", "sell", "ETH/USD", "2", "3100")} {
		f, _ := live.NextFill("paper", u, live.FillProgress{})
		e := EventFromRecord(f.Record("old"))
		e.Seq, e.PrevHash, e.ActorKind, e.Time = int64(i+1), prev, "system", e.Time.UTC()
		e.Hash = HashEvent(e)
		prev = e.Hash
		if _, err := w.Exec(`INSERT INTO events (`+eventColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, e.Seq, e.Time.UnixNano(),
			e.SessionID, e.ActorKind, e.ActorID, e.TurnID, e.ToolCallID, e.Type, e.Outcome, e.Reason, e.Broker, e.Tool, e.OrderID,
			e.ClientOrderID, e.ApprovalID, e.Summary, e.Payload, e.PrevHash, e.Hash); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	db := mustOpen(t, path)
	day, err := db.DayTrades(ctx, day0, "paper")
	if err != nil {
		t.Fatal(err)
	}
	if len(day.Trades) != 2 || day.Realized.String() != "200" {
		t.Fatalf("after the migration: %d trades, realised %s; want 2, 200", len(day.Trades), day.Realized)
	}
	if rep, err := db.Verify(ctx, nil); err != nil || !rep.OK() {
		t.Fatalf("chain after the migration: %+v %v", rep, err)
	}
}

// TestFillUnreadableIsKept: a fill event that does not read as a fill is appended (the trail
// never refuses a record) and listed as unreadable, outside the lots.
func TestFillUnreadableIsKept(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	if err := db.Record(ctx, live.AuditRecord{Time: livetest.Epoch, Kind: live.KindFill, Broker: "paper", OrderID: "X",
		Intent: "fill ?", Detail: map[string]any{"symbol": "AAPL", "qty": "lots"}}); err != nil {
		t.Fatal(err)
	}
	day, err := db.DayTrades(ctx, livetest.Epoch, "")
	if err != nil || len(day.Trades) != 1 || day.Trades[0].State != FillUnreadable || day.NotApplied != 1 {
		t.Fatalf("day = %+v, %v; want one unreadable fill", day, err)
	}
}

// TestTradeCells: one row's cells, as the screen and `cockpit trades` both print them.
func TestTradeCells(t *testing.T) {
	dt := DayTrades{Trips: []RoundTrip{{Trip: lots.Trip{CloseSeq: 7}}}}
	tests := []struct {
		name              string
		tr                Trade
		price, state, pos string
		closed            bool
	}{
		{"opening fill", Trade{Seq: 3, State: FillApplied, Price: money.MustParse("190.5"), Position: money.FromInt(10)}, "190.5", "", "10", false},
		{"closing fill", Trade{Seq: 7, State: FillApplied, Price: money.MustParse("191"), Position: money.Zero}, "191", "", "0", true},
		{"unpriced", Trade{Seq: 9, State: FillUnpriced, Position: money.FromInt(4)}, "?", FillUnpriced, "-", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			price, closed, state, pos := dt.Cells(tt.tr)
			if price != tt.price || closed != tt.closed || state != tt.state || pos != tt.pos {
				t.Errorf("Cells = %q %v %q %q, want %q %v %q %q", price, closed, state, pos, tt.price, tt.closed, tt.state, tt.pos)
			}
		})
	}
}
