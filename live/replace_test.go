package live

import (
	"strings"
	"testing"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

func TestReplaceRaises(t *testing.T) {
	old := Order{ID: "o1", Symbol: "AAPL", Side: Buy, Type: Limit, Quantity: pamt("10"), LimitPrice: pamt("180"), Status: StatusAccepted}
	tests := []struct {
		name    string
		old     Order
		rep     Replace
		want    bool
		wantErr string
	}{
		{"size up", old, Replace{OrderID: "o1", Quantity: pamt("12")}, true, ""},
		{"price up", old, Replace{OrderID: "o1", LimitPrice: pamt("180.01")}, true, ""},
		{"size down, price up", old, Replace{OrderID: "o1", Quantity: pamt("5"), LimitPrice: pamt("181")}, true, ""},
		{"size down", old, Replace{OrderID: "o1", Quantity: pamt("5")}, false, ""},
		{"price down", old, Replace{OrderID: "o1", LimitPrice: pamt("179.5")}, false, ""},
		{"both down", old, Replace{OrderID: "o1", Quantity: pamt("9.5"), LimitPrice: pamt("170")}, false, ""},
		{"same size", old, Replace{OrderID: "o1", Quantity: pamt("10")}, false, ""},
		{"a stop price cannot be compared", old, Replace{OrderID: "o1", StopPrice: pamt("150")}, true, ""},
		{"a limit on a market order", Order{ID: "o1", Side: Buy, Type: Market, Quantity: pamt("1"), Status: StatusAccepted}, Replace{OrderID: "o1", LimitPrice: pamt("1")}, true, ""},
		{"a quantity on a dollar order", Order{ID: "o1", Side: Buy, Notional: pamt("100"), Status: StatusAccepted}, Replace{OrderID: "o1", Quantity: pamt("0.1")}, true, ""},
		{"no id", old, Replace{Quantity: pamt("1")}, false, "order id is missing"},
		{"other id", old, Replace{OrderID: "o2", Quantity: pamt("1")}, false, "not the order read"},
		{"nothing to change", old, Replace{OrderID: "o1"}, false, "nothing to change"},
		{"zero size", old, Replace{OrderID: "o1", Quantity: pamt("0")}, false, "qty 0 is not positive"},
		{"filled order", Order{ID: "o1", Status: StatusFilled, Quantity: pamt("1")}, Replace{OrderID: "o1", Quantity: pamt("1")}, false, "not open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReplaceRaises(tt.old, tt.rep)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestReplaceOrder(t *testing.T) {
	old := Order{ID: "o1", Symbol: "aapl250117c00150000", Side: Buy, Type: Limit, Quantity: pamt("2"), LimitPrice: pamt("1.20"), Status: StatusAccepted}
	in, req := ReplaceOrder(old, Replace{OrderID: "o1", Quantity: pamt("3")}, "")
	if in.InstrumentType != Option || in.Symbol != "AAPL250117C00150000" || !in.Quantity.Equal(money.FromInt(3)) || !in.LimitPrice.Equal(money.MustParse("1.20")) {
		t.Errorf("intent = %+v, want 3 option contracts at the old limit 1.20", in)
	}
	if req.Replaces != "o1" || req.Type != Limit || req.Instrument != Option {
		t.Errorf("request = %+v, want a limit option order replacing o1", req)
	}
	orders := []Order{{ID: "o1"}, {ID: "o2"}}
	if got := WithoutOrder(orders, "o1"); len(got) != 1 || got[0].ID != "o2" {
		t.Errorf("WithoutOrder = %+v, want o2 only", got)
	}
}

func TestChildOrders(t *testing.T) {
	tests := []struct {
		reply string
		want  int
	}{
		{`{"id":"p","order_class":"bracket","legs":[{"id":"tp"},{"id":"sl"}]}`, 2},
		{`{"id":"p","order_class":"oco","legs":[{"id":"sl"}]}`, 1},
		{`{"id":"p","order_class":"oto","legs":[{"id":"sl"}]}`, 1},
		{`{"id":"p","order_class":"mleg","legs":[{"id":"a"},{"id":"b"},{"id":"c"}]}`, 0},
		{`{"id":"p","order_class":"simple","legs":null}`, 0},
		{`{"id":"p"}`, 0},
		{`{"order":{"id":"p","order_class":"bracket","legs":[{"id":"tp"},{"id":"sl"}]}}`, 2},
		{`{"id":"p","order_class":"new_kind","legs":[{"id":"a"}]}`, 1},
		{`"placed"`, 0},
	}
	for _, tt := range tests {
		v, err := jsonv.Parse([]byte(tt.reply), jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ChildOrders(v); got != tt.want {
			t.Errorf("ChildOrders(%s) = %d, want %d", tt.reply, got, tt.want)
		}
	}
}

func TestRestingOptionOrderCountsContracts(t *testing.T) {
	b := BookFromExposures(nil).WithOpenOrders([]Order{
		{ID: "o1", Symbol: "AAPL250117C00150000", Side: Buy, Quantity: pamt("3"), LimitPrice: pamt("1.25"), Status: StatusAccepted},
		{ID: "o2", Symbol: "BTC/USD", Side: Buy, Quantity: pamt("0.0015"), LimitPrice: pamt("64000.50"), Status: StatusAccepted},
	}, nil)
	if b.Err != nil {
		t.Fatal(b.Err)
	}
	if got, want := b.Gross(), money.MustParse("471.00075"); !got.Equal(want) { // 375 + 96.00075
		t.Errorf("gross = %s, want %s", got, want)
	}
}

func TestReplaceFromArgs(t *testing.T) {
	tests := []struct {
		args, wantErr string
		wantQty       string
	}{
		{`{"order_id":"o1","qty":"12","time_in_force":"day"}`, "", "12"},
		{`{"order_id":"o1","limit_price":181.5}`, "", ""},
		{`{"order_id":"o1","qty":"0"}`, "qty '0' is not a positive number", ""},
		{`{"order_id":"o1","trail":"1.5"}`, "trail cannot be valued", ""},
	}
	for _, tt := range tests {
		v, err := jsonv.Parse([]byte(tt.args), jsonv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := ReplaceFromArgs(v.(*jsonv.Object))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || rep.OrderID != "o1" || (tt.wantQty != "" && (rep.Quantity == nil || !rep.Quantity.Equal(money.MustParse(tt.wantQty)))) {
			t.Errorf("%s: got %+v, %v", tt.args, rep, err)
		}
	}
}
