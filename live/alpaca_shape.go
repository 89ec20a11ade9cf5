package live

import (
	"fmt"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// alpacaOrderTools maps the official Alpaca MCP server's order tools to the instrument type
// their orders trade.
var alpacaOrderTools = map[string]InstrumentType{
	"place_stock_order":  Equity,
	"place_crypto_order": Crypto,
	"place_option_order": Option,
}

// alpacaOrderTypes are the order types the gate can value: a stop price is valued like a
// limit (the larger of it and the quote, for buys); trailing stops are not valued.
var alpacaOrderTypes = map[string]OrderType{"market": Market, "limit": Limit, "stop": Limit, "stop_limit": Limit}

// ExtractAlpaca reads the intent of an Alpaca order tool's arguments (place_stock_order,
// place_crypto_order, place_option_order; reference alpaca-mcp.md): symbol, side, qty or
// notional (not both), type, limit_price, stop_price, order_class (simple, bracket, oco,
// oto; mleg with legs for options). A bracket's, OCO's or OTO's legs are the broker's
// children (ChildOrders), the parent is the order checked. It returns false for any other
// tool. Arguments of an order tool that the gate cannot price (a trailing stop, an unknown
// type or class, a bad leg) give an intent whose Invalid names the field and matches
// ErrShape, so the gate refuses it as a structural breach instead of guessing.
func ExtractAlpaca(tool string, args *jsonv.Object) (OrderIntent, bool) {
	t, ok := alpacaOrderTools[tool]
	if !ok || args == nil {
		return OrderIntent{}, false
	}
	var in OrderIntent
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	in.InstrumentType = t
	sym, _ := rowString(args, "symbol")
	in.Symbol = pystr.Upper(pystr.Strip(sym))
	side, _ := rowString(args, "side")
	in.Side = pystr.Lower(pystr.Strip(side))
	num := func(key string) *money.Amount {
		v, ok := args.Get(key)
		if !ok || v == nil {
			return nil
		}
		a, err := DecimalFromJSON(v)
		if err != nil || a.Sign() <= 0 {
			bad("%s %s is not a positive number", key, DescribeValue(v))
			return nil
		}
		return &a
	}
	in.Quantity, in.NotionalUSD = num("qty"), num("notional")
	if in.Quantity != nil && in.NotionalUSD != nil {
		bad("qty and notional are mutually exclusive")
	}
	typ := "market"
	if s, ok := rowString(args, "type"); ok {
		typ = pystr.Lower(pystr.Strip(s))
	}
	if _, ok := alpacaOrderTypes[typ]; !ok {
		bad("type %s is not one the gate can value (market, limit, stop, stop_limit)", pystr.Repr(typ))
	}
	limit, stop := num("limit_price"), num("stop_price")
	switch {
	case limit != nil && stop != nil:
		m := money.Max(*limit, *stop)
		in.LimitPrice = &m
	case limit != nil:
		in.LimitPrice = limit
	default:
		in.LimitPrice = stop
	}
	class := "simple"
	if s, ok := rowString(args, "order_class"); ok && pystr.Strip(s) != "" {
		class = pystr.Lower(pystr.Strip(s))
	}
	switch {
	case class == "mleg" || args.Has("legs"):
		if t != Option || class != "mleg" {
			bad("legs need place_option_order with order_class mleg (order_class is %s)", pystr.Repr(class))
			break
		}
		legs, err := legsFromJSON(args.Value("legs"))
		if err != nil {
			bad("%v", err)
			break
		}
		in.Symbol, in.Side, in.Legs = LegsSymbol(legs), Buy, legs
		in.LimitPrice = nil // a net debit or credit, not a leg's price
	case class == "simple", class == "bracket", class == "oco", class == "oto":
	default:
		bad("order_class %s is not simple, bracket, oco, oto or mleg", pystr.Repr(class))
	}
	if len(problems) > 0 {
		in.Invalid = shapeInvalid(strings.Join(problems, "; "))
	}
	return in, true
}
