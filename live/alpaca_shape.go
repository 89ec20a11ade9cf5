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

// alpacaOrderTypes are the order types of Alpaca's order tools, each valued at its worst case
// by the gate (a stop at its stop price, a trailing stop at the price ± its trail).
var alpacaOrderTypes = map[string]OrderType{"market": Market, "limit": Limit, "stop": Stop, "stop_limit": StopLimit,
	"trailing_stop": TrailingStop}

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
	ot, ok := alpacaOrderTypes[typ]
	if !ok {
		bad("type %s is not one the gate can value (market, limit, stop, stop_limit, trailing_stop)", pystr.Repr(typ))
	}
	in.LimitPrice, in.StopPrice = num("limit_price"), num("stop_price")
	in.TrailAmount, in.TrailPercent = num("trail_price"), num("trail_percent")
	if ok {
		if err := CheckOrderPrices(ot, in.Prices()); err != nil {
			bad("%s", strings.TrimPrefix(err.Error(), ErrOrderPrices.Error()+": "))
		}
		if ot != Market {
			in.Type = ot
		}
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
	case class == "simple", class == "bracket", class == "oto":
	case class == "oco": // both legs exit on the order's side: its stop-loss leg is valued like a stop
		if sl := num("stop_loss_stop_price"); sl != nil && in.Quantity != nil {
			n := in.Quantity.Mul(WorstCasePrice(Stop, in.Side, OrderPrices{Stop: sl}, money.Zero))
			if in.NotionalUSD == nil || n.GreaterThan(*in.NotionalUSD) {
				in.NotionalUSD = &n // the gate keeps the larger of this and the take-profit at the quote
			}
		}
	default:
		bad("order_class %s is not simple, bracket, oco, oto or mleg", pystr.Repr(class))
	}
	if len(problems) > 0 {
		in.Invalid = shapeInvalid(strings.Join(problems, "; "))
	}
	return in, true
}
