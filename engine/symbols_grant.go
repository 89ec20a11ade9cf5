package engine

import (
	"context"
	"fmt"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// allowsInstrument is AllowsSymbol for a symbol an order trades: an OCC option contract also
// needs its underlying root granted.
func (p Policy) allowsInstrument(sym string) (bool, string) {
	if ok, why := p.AllowsSymbol(sym); !ok {
		return false, why
	}
	if oc, err := live.ParseOCC(sym); err == nil {
		if ok, why := p.AllowsSymbol(oc.Root); !ok {
			return false, fmt.Sprintf("%s: the underlying %s", sym, why)
		}
	}
	return true, ""
}

// argSymbolsGranted checks every symbol a call's arguments name against a symbol grant: the
// top-level symbol and each leg's; a legs value that cannot be read names nothing granted.
func (p Policy) argSymbolsGranted(args *jsonv.Object) (bool, string) {
	if p.Symbols == nil {
		return true, ""
	}
	if sym, has := args.Get("symbol"); has {
		s, _ := sym.(string)
		if ok, why := p.allowsInstrument(s); !ok {
			return false, why
		}
	}
	v, has := args.Get("legs")
	if !has {
		return true, ""
	}
	legs, ok := v.([]any)
	if !ok {
		return false, fmt.Sprintf("legs is %s, not a list of granted symbols", jsonv.TypeName(v))
	}
	for i, l := range legs {
		o, _ := l.(*jsonv.Object)
		if o == nil {
			return false, fmt.Sprintf("legs[%d] names no symbol", i)
		}
		s, isStr := o.Value("symbol").(string)
		if !isStr {
			return false, fmt.Sprintf("legs[%d] names no symbol", i)
		}
		if ok, why := p.allowsInstrument(s); !ok {
			return false, fmt.Sprintf("legs[%d]: %s", i, why)
		}
	}
	return true, ""
}

// cancelGranted checks a cancel against a symbol grant: the order must be among the broker's
// open orders and its symbol granted; anything else (not found, unreadable) denies.
func (c *call) cancelGranted(ctx context.Context, orderID string) (bool, string) {
	if c.pol.Symbols == nil {
		return true, ""
	}
	if c.e.Broker == nil {
		return false, "no broker to look the order up with"
	}
	open, err := c.e.Broker.OpenOrders(ctx)
	if err != nil {
		return false, fmt.Sprintf("the open orders could not be read to check the symbol grant: %v", err)
	}
	for _, o := range open {
		if o.ID == orderID && orderID != "" {
			return c.pol.allowsInstrument(o.Symbol)
		}
	}
	return false, fmt.Sprintf("order %q is not among the open orders, so its symbol cannot be checked against the grant", orderID)
}
