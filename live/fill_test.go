package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

func fillUpdate(cum, avg, qty, px string, status OrderStatus) OrderUpdate {
	o := Order{ID: "o1", ClientOrderID: "c1", Symbol: "AAPL", Side: Buy, Status: status}
	if cum != "" {
		o.FilledQty = money.MustParse(cum)
	}
	if avg != "" {
		o.AvgFillPrice = money.MustParse(avg)
	}
	u := OrderUpdate{Order: o, Time: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)}
	if qty != "" {
		u.FillQty, u.FillPx = money.MustParse(qty), money.MustParse(px)
	}
	return u
}

func TestNextFill(t *testing.T) {
	prog := func(q, n string) FillProgress {
		return FillProgress{Qty: money.MustParse(q), Notional: money.MustParse(n)}
	}
	cases := []struct {
		name      string
		u         OrderUpdate
		rec       FillProgress
		ok        bool
		qty, px   string
		derived   string
		cumulated string
	}{
		{"first fill", fillUpdate("10", "190", "10", "190", StatusFilled), FillProgress{}, true, "10", "190", "", "10"},
		{"a partial fill after another", fillUpdate("6", "101", "2", "103", StatusPartial), prog("4", "400"), true, "2", "103", "", "6"},
		{"the same update again", fillUpdate("10", "190", "10", "190", StatusFilled), prog("10", "1900"), false, "", "", "", ""},
		{"a replay of an older fill", fillUpdate("4", "100", "4", "100", StatusPartial), prog("6", "606"), false, "", "", "", ""},
		{"a status update without a fill, all recorded", fillUpdate("10", "190", "", "", StatusFilled), prog("10", "1900"), false, "", "", "", ""},
		{"missed updates: priced from the average", fillUpdate("10", "102", "3", "105", StatusFilled), prog("4", "400"), true, "6", "103.3333333333333333", "average", "10"},
		{"missed fill seen on a status update", fillUpdate("5", "20", "", "", StatusFilled), FillProgress{}, true, "5", "20", "average", "5"},
		{"no cumulative quantity: the update's own", fillUpdate("", "", "2", "7", StatusPartial), prog("9", "9"), true, "2", "7", "", "0"},
		{"not a fill", fillUpdate("", "", "", "", StatusCancelled), FillProgress{}, false, "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ok := NextFill("paper", c.u, c.rec)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, c.ok, f)
			}
			if !ok {
				return
			}
			if got, want := f.Qty.String(), c.qty; got != want {
				t.Errorf("qty = %s, want %s", got, want)
			}
			if got, want := f.Price.String(), c.px; got != want {
				t.Errorf("price = %s, want %s", got, want)
			}
			if got, want := f.Derived, c.derived; got != want {
				t.Errorf("derived = %q, want %q", got, want)
			}
			if got, want := f.OrderFilled.String(), c.cumulated; got != want {
				t.Errorf("order filled = %s, want %s", got, want)
			}
		})
	}
}

func TestFillRecordRoundTrip(t *testing.T) {
	f := Fill{Broker: "paper", Symbol: "BTC/USD", Side: Sell, Qty: money.MustParse("0.015"), Price: money.MustParse("64123.45"),
		Fee: money.MustParse("0.25"), OrderID: "P7", ClientOrderID: "c7", OrderFilled: money.MustParse("0.015"), OrderStatus: StatusFilled,
		Time: time.Unix(1, 0).UTC()}
	r := f.Record("s1")
	if got, want := r.Intent, "fill sell 0.015 BTC/USD @ 64123.45 (order P7) fee 0.25"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	raw := jsonv.MustMarshal(r.Detail, jsonv.Compact)
	v, err := jsonv.Parse(raw, jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	back, ok := FillFromDetail(v.(*jsonv.Object))
	if !ok {
		t.Fatalf("FillFromDetail(%s) = false", raw)
	}
	if back.Symbol != f.Symbol || back.Side != f.Side || back.Qty.Cmp(f.Qty) != 0 || back.Price.Cmp(f.Price) != 0 ||
		back.Fee.Cmp(f.Fee) != 0 || back.OrderFilled.Cmp(f.OrderFilled) != 0 || back.OrderStatus != f.OrderStatus {
		t.Errorf("read back %+v, want %+v", back, f)
	}
	if _, ok := FillFromDetail(jsonv.ObjectOf("symbol", "X", "qty", "1e")); ok {
		t.Errorf("an unreadable quantity was read")
	}
}

// ledgerSink is an audit sink that is its own fill ledger, like the store.
type ledgerSink struct {
	recs []AuditRecord
	fail error
}

func (l *ledgerSink) Record(_ context.Context, r AuditRecord) error {
	if l.fail != nil {
		return l.fail
	}
	l.recs = append(l.recs, r)
	return nil
}

func (l *ledgerSink) FillProgress(_ context.Context, broker, key string) (FillProgress, error) {
	var p FillProgress
	for _, r := range l.recs {
		f, _ := FillFromDetail(r.Detail.(*jsonv.Object))
		if r.Broker == broker && FillOrderKey(r.OrderID, r.ClientOrderID) == key {
			p.Qty, p.Notional = p.Qty.Add(f.Qty), p.Notional.Add(f.Qty.Mul(f.Price))
		}
	}
	return p, nil
}

func TestFillRecorderRecordsEachFillOnce(t *testing.T) {
	l := &ledgerSink{}
	r := &FillRecorder{Broker: "paper", Audit: l, Ledger: l, Session: "s"}
	ctx := context.Background()
	for _, u := range []OrderUpdate{
		fillUpdate("4", "100", "4", "100", StatusPartial),
		fillUpdate("4", "100", "4", "100", StatusPartial), // the stream's replay
		fillUpdate("10", "102", "6", "103.3333333333333333", StatusFilled),
		fillUpdate("10", "102", "", "", StatusFilled), // the order's final status
	} {
		if _, _, err := r.Observe(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := len(l.recs), 2; got != want {
		t.Fatalf("fill records = %d, want %d", got, want)
	}
	var failed error
	l.fail = errors.New("disk full")
	r.OnFail = func(err error) { failed = err }
	if _, _, err := r.Observe(ctx, fillUpdate("12", "102", "2", "102", StatusFilled)); err == nil || failed == nil {
		t.Fatalf("a fill the audit refused: err = %v, OnFail told %v; want both", err, failed)
	}
}
