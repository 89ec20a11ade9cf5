package live

import (
	"errors"
	"fmt"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// Replace is a change to a resting order (Alpaca's replace_order_by_id): a nil field keeps
// the old order's value.
type Replace struct {
	OrderID    string
	Quantity   *money.Amount
	LimitPrice *money.Amount
	StopPrice  *money.Amount
}

// ReplaceRaises reports whether rep raises old's size or any of its prices, so that it must
// be checked as a new order: a quantity or limit price above the old one, a value the old
// order does not carry (a limit on a market order, a quantity on a dollar order), or any stop
// price (an Order carries none to compare with) raises. A replace that only lowers returns
// false. An unusable replace is an error: no order id or the wrong one, an order that is no
// longer open, nothing to change, or a value that is not positive.
func ReplaceRaises(old Order, rep Replace) (bool, error) {
	switch {
	case rep.OrderID == "":
		return false, errors.New("replace: order id is missing")
	case rep.OrderID != old.ID:
		return false, fmt.Errorf("replace: order id %s is not the order read (%s)", rep.OrderID, old.ID)
	case !old.Status.Open():
		return false, fmt.Errorf("replace: order %s is %s, not open", old.ID, old.Status)
	case rep.Quantity == nil && rep.LimitPrice == nil && rep.StopPrice == nil:
		return false, errors.New("replace: nothing to change (qty, limit_price or stop_price)")
	}
	for name, v := range map[string]*money.Amount{"qty": rep.Quantity, "limit_price": rep.LimitPrice, "stop_price": rep.StopPrice} {
		if v != nil && v.Sign() <= 0 {
			return false, fmt.Errorf("replace: %s %s is not positive", name, v)
		}
	}
	raises := func(newV, oldV *money.Amount) bool {
		return newV != nil && (oldV == nil || newV.GreaterThan(*oldV))
	}
	return raises(rep.Quantity, old.Quantity) || raises(rep.LimitPrice, old.LimitPrice) || rep.StopPrice != nil, nil
}

// ReplaceOrder is the order a replace amounts to: old's symbol and side at the replace's
// quantity and limit price (old's where the replace keeps them), typed t (the symbol's shape
// when t is ""). Its request's Replaces names old, so the gate values it with old's resting
// exposure swapped out of the book and the broker replaces rather than adds.
func ReplaceOrder(old Order, rep Replace, t InstrumentType) (OrderIntent, OrderRequest) {
	sym := pystr.Upper(pystr.Strip(old.Symbol))
	if t == "" {
		if i, err := ClassifyInstrument(sym, ""); err == nil {
			t = i.Type
		}
	}
	qty, limit := old.Quantity, old.LimitPrice
	if rep.Quantity != nil {
		qty = rep.Quantity
	}
	if rep.LimitPrice != nil {
		limit = rep.LimitPrice
	}
	in := OrderIntent{Symbol: sym, Side: old.Side, Quantity: qty, LimitPrice: limit, InstrumentType: t}
	if qty == nil {
		in.NotionalUSD = old.Notional
	}
	typ := old.Type
	if limit != nil {
		typ = Limit
	}
	req := OrderRequest{Symbol: sym, Side: old.Side, Type: typ, Quantity: qty, Notional: in.NotionalUSD,
		LimitPrice: limit, Instrument: t, Replaces: old.ID}
	return in, req
}

// WithoutOrder is orders without the one whose id is id (the order a replace swaps out).
func WithoutOrder(orders []Order, id string) []Order {
	if id == "" {
		return orders
	}
	out := make([]Order, 0, len(orders))
	for _, o := range orders {
		if o.ID != id {
			out = append(out, o)
		}
	}
	return out
}

// ReplaceFromArgs reads a replace tool's arguments (Alpaca's replace_order_by_id): order_id,
// qty, limit_price, stop_price; time_in_force and client_order_id change no risk and are
// ignored. A trail (which the gate cannot value) or a number that is not positive is an
// error naming the field.
func ReplaceFromArgs(args *jsonv.Object) (Replace, error) {
	var rep Replace
	if args == nil {
		return rep, errors.New("replace: no arguments")
	}
	id, _ := rowString(args, "order_id")
	rep.OrderID = pystr.Strip(id)
	if args.Has("trail") {
		return rep, errors.New("replace: trail cannot be valued by the gate")
	}
	for key, dst := range map[string]**money.Amount{"qty": &rep.Quantity, "limit_price": &rep.LimitPrice, "stop_price": &rep.StopPrice} {
		v, ok := args.Get(key)
		if !ok || v == nil {
			continue
		}
		a, err := DecimalFromJSON(v)
		if err != nil || a.Sign() <= 0 {
			return rep, fmt.Errorf("replace: %s %s is not a positive number", key, DescribeValue(v))
		}
		*dst = &a
	}
	return rep, nil
}
