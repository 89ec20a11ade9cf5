package lots

import (
	"errors"
	"math/rand/v2"
	"testing"

	"cockpit/live/money"
)

func amt(s string) money.Amount { return money.MustParse(s) }

func buy(seq int64, qty, px, fee string) Fill {
	return Fill{Seq: seq, Side: "buy", Qty: amt(qty), Price: amt(px), Fee: amt(fee)}
}

func sell(seq int64, qty, px, fee string) Fill {
	f := buy(seq, qty, px, fee)
	f.Side = "sell"
	return f
}

// play applies fills to an empty book and returns the lots left and every round trip.
func play(t *testing.T, fills ...Fill) ([]Lot, []Trip) {
	t.Helper()
	var book []Lot
	var trips []Trip
	for _, f := range fills {
		r, err := Apply(book, f)
		if err != nil {
			t.Fatalf("Apply(%+v) = %v", f, err)
		}
		book = r.Left
		if r.Opened != nil {
			book = append(book, *r.Opened)
		}
		trips = append(trips, r.Trips...)
	}
	return book, trips
}

func TestApply(t *testing.T) {
	type trip struct{ qty, open, close, net string }
	cases := []struct {
		name  string
		fills []Fill
		trips []trip
		left  []string // lots left: qty@price
	}{
		{"open only", []Fill{buy(1, "10", "100", "0")}, nil, []string{"10@100"}},
		{"round trip", []Fill{buy(1, "10", "100", "0"), sell(2, "10", "101.5", "0")}, []trip{{"10", "100", "101.5", "15"}}, nil},
		{"fifo: oldest lot first", []Fill{buy(1, "5", "100", "0"), buy(2, "5", "110", "0"), sell(3, "6", "120", "0")},
			[]trip{{"5", "100", "120", "100"}, {"1", "110", "120", "10"}}, []string{"4@110"}},
		{"short then cover at a loss", []Fill{sell(1, "3", "50", "0"), buy(2, "3", "55", "0")}, []trip{{"3", "50", "55", "-15"}}, nil},
		{"flip long to short", []Fill{buy(1, "2", "10", "0"), sell(2, "5", "12", "0")}, []trip{{"2", "10", "12", "4"}}, []string{"-3@12"}},
		{"fees: both sides' shares", []Fill{buy(1, "10", "100", "1"), sell(2, "4", "100", "2")}, []trip{{"4", "100", "100", "-2.4"}}, []string{"6@100"}},
		{"fees: the last share takes the rest", []Fill{buy(1, "3", "1", "1"), sell(2, "1", "1", "0"), sell(3, "1", "1", "0"), sell(4, "1", "1", "0")},
			[]trip{{"1", "1", "1", "-0.3333333333333333"}, {"1", "1", "1", "-0.3333333333333334"}, {"1", "1", "1", "-0.3333333333333333"}}, nil}, // sums to -1 exactly
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			left, trips := play(t, c.fills...)
			if got, want := len(trips), len(c.trips); got != want {
				t.Fatalf("trips = %d (%+v), want %d", got, trips, want)
			}
			for i, w := range c.trips {
				g := trips[i]
				if g.Qty.Cmp(amt(w.qty)) != 0 || g.OpenPrice.Cmp(amt(w.open)) != 0 || g.ClosePrice.Cmp(amt(w.close)) != 0 || g.Net.Cmp(amt(w.net)) != 0 {
					t.Errorf("trip %d = %s %s→%s net %s, want %s %s→%s net %s", i, g.Qty, g.OpenPrice, g.ClosePrice, g.Net, w.qty, w.open, w.close, w.net)
				}
			}
			if got, want := len(left), len(c.left); got != want {
				t.Fatalf("lots left = %d (%+v), want %d", got, left, want)
			}
			for i, w := range c.left {
				if got := left[i].Qty.String() + "@" + left[i].Price.String(); got != w {
					t.Errorf("lot %d = %s, want %s", i, got, w)
				}
			}
		})
	}
}

func TestApplyRefuses(t *testing.T) {
	cases := []struct {
		name string
		book []Lot
		f    Fill
		want error
	}{
		{"zero quantity", nil, buy(1, "0", "1", "0"), ErrFill},
		{"no price", nil, buy(1, "1", "0", "0"), ErrFill},
		{"unknown side", nil, Fill{Side: "short", Qty: amt("1"), Price: amt("1")}, ErrFill},
		{"mixed book", []Lot{{Qty: amt("1"), Price: amt("1")}, {Qty: amt("-1"), Price: amt("1")}}, buy(1, "1", "1", "0"), ErrMixed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Apply(c.book, c.f); !errors.Is(err, c.want) {
				t.Fatalf("Apply = %v, want %v", err, c.want)
			}
		})
	}
}

// TestApplyConserves is the property: for any sequence of fills, what the round trips realised
// plus what the open lots would realise at a mark equals the cash the fills moved plus the
// position's value at that mark, to the last decimal; and the book's totals follow DQty, DCost
// and DFee exactly.
func TestApplyConserves(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	for run := 0; run < 500; run++ {
		var book []Lot
		realised, cash, pos, cost, fee := money.Zero, money.Zero, money.Zero, money.Zero, money.Zero
		mark := money.Zero
		for i := 0; i < 1+rng.IntN(30); i++ {
			f := Fill{Seq: int64(i + 1), Side: []string{"buy", "sell"}[rng.IntN(2)],
				Qty: money.FromFixed(int64(1+rng.IntN(500)), 1), Price: money.FromFixed(int64(1+rng.IntN(100000)), 2),
				Fee: money.FromFixed(int64(rng.IntN(300)), 2)}
			r, err := Apply(book, f)
			if err != nil {
				t.Fatalf("run %d: Apply = %v", run, err)
			}
			book = r.Left
			if r.Opened != nil {
				book = append(book, *r.Opened)
			}
			realised = realised.Add(r.Realized())
			pos, cost, fee = pos.Add(r.DQty), cost.Add(r.DCost), fee.Add(r.DFee)
			flow := f.Qty.Mul(f.Price)
			if f.Side == "buy" {
				flow = flow.Neg()
			}
			cash = cash.Add(flow).Sub(f.Fee)
			mark = f.Price
		}
		bq, bc, bf := money.Zero, money.Zero, money.Zero
		for _, l := range book {
			bq, bc, bf = bq.Add(l.Qty), bc.Add(l.Qty.Mul(l.Price)), bf.Add(l.Fee)
		}
		if pos.Cmp(bq) != 0 || cost.Cmp(bc) != 0 || fee.Cmp(bf) != 0 {
			t.Fatalf("run %d: totals from deltas %s/%s/%s, from lots %s/%s/%s", run, pos, cost, fee, bq, bc, bf)
		}
		got := realised.Add(Unrealized(pos, cost, fee, mark))
		want := cash.Add(pos.Mul(mark))
		if got.Cmp(want) != 0 {
			t.Fatalf("run %d: realised + unrealised = %s, want cash + value = %s", run, got, want)
		}
	}
}
