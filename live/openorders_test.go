package live

import (
	"errors"
	"testing"

	"cockpit/live/money"
)

func TestBookWithOpenOrders(t *testing.T) {
	amt := money.MustParse
	p := func(s string) *money.Amount { a := amt(s); return &a }
	px := func(string) (money.Amount, error) { return amt("10"), nil }
	tests := []struct {
		name   string
		book   Book
		orders []Order
		want   map[string]string // symbol → net
		err    bool
	}{
		{"resting buy adds", BookFromExposures([]Exposure{{"AAPL", amt("100")}}),
			[]Order{{ID: "1", Symbol: "AAPL", Side: Buy, Quantity: p("5"), LimitPrice: p("20"), Status: StatusAccepted}},
			map[string]string{"AAPL": "200"}, false},
		{"resting sell on a long is not credited", BookFromExposures([]Exposure{{"AAPL", amt("100")}}),
			[]Order{{ID: "1", Symbol: "AAPL", Side: Sell, Quantity: p("5"), LimitPrice: p("20"), Status: StatusAccepted}},
			map[string]string{"AAPL": "100"}, false},
		{"resting sell beyond the long counts as short", BookFromExposures([]Exposure{{"AAPL", amt("100")}}),
			[]Order{{ID: "1", Symbol: "AAPL", Side: Sell, Quantity: p("30"), LimitPrice: p("10"), Status: StatusAccepted}},
			map[string]string{"AAPL": "-200"}, false},
		{"partial fill counts the rest, market order at the price", Book{},
			[]Order{{ID: "1", Symbol: "msft", Side: Buy, Quantity: p("5"), FilledQty: amt("2"), Status: StatusPartial}},
			map[string]string{"MSFT": "30"}, false},
		{"closed orders ignored", Book{},
			[]Order{{ID: "1", Symbol: "AAPL", Side: Buy, Quantity: p("5"), Status: StatusFilled}}, map[string]string{}, false},
		{"unpriceable order fails closed", Book{},
			[]Order{{ID: "1", Symbol: "AAPL", Side: Buy, Status: StatusAccepted}}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.book.WithOpenOrders(tt.orders, px)
			if (got.Err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", got.Err, tt.err)
			}
			for sym, want := range tt.want {
				if g := got.Net(sym); g.Cmp(amt(want)) != 0 {
					t.Errorf("%s net = %s, want %s", sym, g, want)
				}
			}
			if tt.err && !errors.Is(got.Err, errPositions) {
				t.Errorf("error %v does not wrap errPositions", got.Err)
			}
		})
	}
	if got := BookFromExposures([]Exposure{{"AAPL", amt("1")}}); got.WithOpenOrders(nil, px).Net("AAPL").Cmp(amt("1")) != 0 {
		t.Error("no orders changed the book")
	}
}
