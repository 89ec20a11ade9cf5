package live

import (
	"context"
	"fmt"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// KindFill is the audit kind of a fill: the broker reported that (part of) an order traded.
const KindFill = "fill"

// Fill is one execution of an order as the audit trail records it.
type Fill struct {
	Broker        string
	Symbol        string
	Side          string       // buy or sell, as the broker reported the order
	Qty           money.Amount // what this fill traded (positive)
	Price         money.Amount // zero when the broker reported no price
	Fee           money.Amount // zero when the broker reports none (paper, Alpaca, MCP servers today)
	OrderID       string
	ClientOrderID string
	// OrderFilled is the order's filled quantity after this fill (zero: the broker did not say);
	// with it a fill reported twice is recorded once.
	OrderFilled money.Amount
	OrderStatus OrderStatus
	Time        time.Time
	// Derived says how Price was found when the update did not carry this fill alone: "average"
	// when it comes from the order's average fill price and what the trail already holds.
	Derived string
}

// FillProgress is what the audit trail holds of one order's fills: the filled quantity and
// its notional (Σ quantity × price).
type FillProgress struct {
	Qty      money.Amount
	Notional money.Amount
}

// FillLedger reads what the audit trail has recorded of an order's fills, by FillOrderKey.
type FillLedger interface {
	FillProgress(ctx context.Context, broker, orderKey string) (FillProgress, error)
}

// FillOrderKey is the key an order's fills are counted under: the broker's order id, else
// "client:" and the client order id; "" when the update names neither.
func FillOrderKey(orderID, clientOrderID string) string {
	switch {
	case orderID != "":
		return orderID
	case clientOrderID != "":
		return "client:" + clientOrderID
	}
	return ""
}

// NextFill is the fill an order update adds to what the trail holds of its order, or false
// when it adds none (not a fill, or one already recorded). The order's cumulative filled
// quantity decides: only an increase over the recorded one is a new fill, so a replayed or
// repeated update, or one seen again after a restart, is not recorded twice. When the update
// is exactly the new part, its own price and fee are the fill's; when it is not (updates were
// missed, or part of it was recorded already), the price is what the order's average fill
// price leaves for the new part, rounded to 16 decimals, and the fee is prorated.
func NextFill(broker string, u OrderUpdate, rec FillProgress) (Fill, bool) {
	o := u.Order
	f := Fill{Broker: broker, Symbol: o.Symbol, Side: o.Side, OrderID: o.ID, ClientOrderID: o.ClientOrderID,
		OrderStatus: o.Status, Time: u.Time}
	if o.FilledQty.Sign() <= 0 { // the broker does not say how much of the order has filled
		if u.FillQty.Sign() <= 0 {
			return Fill{}, false
		}
		f.Qty, f.Price, f.Fee = u.FillQty, u.FillPx, u.Fee
		return f, true
	}
	delta := o.FilledQty.Sub(rec.Qty)
	if delta.Sign() <= 0 {
		return Fill{}, false
	}
	f.Qty, f.OrderFilled = delta, o.FilledQty
	if u.FillQty.Cmp(delta) == 0 && u.FillPx.Sign() > 0 {
		f.Price, f.Fee = u.FillPx, u.Fee
		return f, true
	}
	if u.FillQty.Sign() > 0 && u.Fee.Sign() != 0 {
		f.Fee = u.Fee.Mul(delta).Div(u.FillQty)
	}
	f.Price = u.FillPx
	if o.AvgFillPrice.Sign() > 0 {
		if n := o.FilledQty.Mul(o.AvgFillPrice).Sub(rec.Notional); n.Sign() > 0 {
			f.Price, f.Derived = n.Div(delta), "average"
		}
	}
	return f, true
}

// Summary is the fill in one line: "fill buy 10 AAPL @ 190.5 (order P000001)".
func (f Fill) Summary() string {
	px := "price unknown"
	if f.Price.Sign() > 0 {
		px = "@ " + f.Price.String()
	}
	s := fmt.Sprintf("fill %s %s %s %s (order %s)", f.Side, f.Qty, f.Symbol, px, FillOrderKey(f.OrderID, f.ClientOrderID))
	if f.Fee.Sign() != 0 {
		s += " fee " + f.Fee.String()
	}
	return s
}

// Record is the fill's audit record, attributed to the broker (a system actor).
func (f Fill) Record(session string) AuditRecord {
	d := jsonv.ObjectOf("symbol", f.Symbol, "side", f.Side, "qty", EncodeAmount(f.Qty), "fee", EncodeAmount(f.Fee))
	if f.Price.Sign() > 0 {
		d.Set("price", EncodeAmount(f.Price))
		d.Set("notional", EncodeAmount(f.Qty.Mul(f.Price)))
	}
	if f.OrderFilled.Sign() > 0 {
		d.Set("order_filled_qty", EncodeAmount(f.OrderFilled))
	}
	if f.OrderStatus != "" {
		d.Set("order_status", string(f.OrderStatus))
	}
	if f.Derived != "" {
		d.Set("price_from", f.Derived)
	}
	return AuditRecord{Time: f.Time, Actor: System("broker:"+f.Broker, session), Kind: KindFill,
		Outcome: string(f.OrderStatus), Broker: f.Broker, OrderID: f.OrderID, ClientOrderID: f.ClientOrderID,
		Intent: f.Summary(), Detail: d}
}

// FillFromDetail reads a fill back from the detail of its audit record (as stored); false when
// a field it needs is missing or unreadable.
func FillFromDetail(d *jsonv.Object) (Fill, bool) {
	if d == nil {
		return Fill{}, false
	}
	var f Fill
	f.Symbol, _ = d.Value("symbol").(string)
	f.Side, _ = d.Value("side").(string)
	status, _ := d.Value("order_status").(string)
	f.OrderStatus = OrderStatus(status)
	f.Derived, _ = d.Value("price_from").(string)
	for key, dst := range map[string]*money.Amount{"qty": &f.Qty, "price": &f.Price, "fee": &f.Fee, "order_filled_qty": &f.OrderFilled} {
		v, ok := d.Get(key)
		if !ok {
			if key == "qty" {
				return Fill{}, false
			}
			continue
		}
		a, err := DecimalFromJSON(v)
		if err != nil {
			return Fill{}, false
		}
		*dst = a
	}
	return f, f.Symbol != "" && f.Qty.Sign() > 0
}
