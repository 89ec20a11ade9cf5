package live

import (
	"fmt"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// Profile describes a tool-shaped broker (an MCP server) as plain data and functions: which
// tools read and write, what each read is called, how an order tool's arguments become an
// intent and how a quote payload becomes a price.
type Profile struct {
	Name  string
	About string // one line for the operator (the profile file's about)
	Tools map[string]ToolClass
	// ToolsAuthoritative: Tools lists every tool the profile knows, so an unmapped tool is
	// UNKNOWN (gated, no intent → deny) whatever its readOnlyHint says.
	ToolsAuthoritative bool
	QuoteTool          string
	PositionsTool      string
	AccountTool        string
	OrdersTool         string
	PlaceTool          string
	CancelTool         string // "" when the server has none: a cancel is then refused
	BarsTool           string // recent bars (Alpaca's timeframe spelling); "" = none
	// CancelIDArg is the cancel tool's order id argument ("" = order_id).
	CancelIDArg string
	// ReadArgs are fixed arguments of read tools (a quote read adds its symbol).
	ReadArgs map[string]*jsonv.Object
	// PositionFields renames a positions payload's row keys to cockpit's (symbol, quantity,
	// market_value, price): cockpit's name → the payload's key. Nil: the reference's keys.
	PositionFields map[string]string
	// OrderTools are the tools Extract reads an intent from (nil for a Go-built profile).
	OrderTools map[string]bool
	// Vars are the variables a broker table must give (profile_vars) before Bind.
	Vars []string
	// OrderTool, when set, reads one order by its id (OrderToolArg, default "order_id"): how a
	// fill of an order that left the open list is seen.
	OrderTool    string
	OrderToolArg string
	// Extract returns the intent of an order-placing tool call, or false when the call does
	// not carry one (any other tool, or unusable arguments): the gate then denies.
	Extract func(tool string, args *jsonv.Object) (OrderIntent, bool)
	// ParseQuote reads a price from the quote tool's payload, or false.
	ParseQuote func(payload any, symbol string) (money.Amount, bool)
	// QuoteToolFor, when set, names the quote tool of a symbol (crypto pairs and option
	// contracts have their own); "" means QuoteTool.
	QuoteToolFor func(symbol string) string
	// BuildOrder, when set, turns a typed order (cockpit's own place_order, a flatten's
	// closing order) into the place tool's name and arguments; an error refuses the order.
	BuildOrder func(req OrderRequest) (string, *jsonv.Object, error)
	// ReplyError, when set, reads a broker-specific failure from an order or cancel tool's
	// reply (besides status "error"): a rejection, an indeterminate (ErrIndeterminate) one,
	// or nil for a success.
	ReplyError func(reply *jsonv.Object) error

	spec *ProfileSpec // the file a data profile was read from (Bind re-reads it)
}

// QuoteToolOf is the quote tool the profile reads symbol's price with.
func (p *Profile) QuoteToolOf(symbol string) string {
	if p.QuoteToolFor != nil {
		if t := p.QuoteToolFor(symbol); t != "" {
			return t
		}
	}
	return p.QuoteTool
}

// Robinhood is the profile of Robinhood's MCP server (reference §5.1, §6 N3, §11 K3), read
// from the shipped profiles/robinhood.toml.
func Robinhood() *Profile { return shipped()["robinhood"] }

// GenericMCP is the fallback profile of an unmapped MCP broker: the reads are get_quotes,
// get_positions and get_account, and no tool yields an intent (every write is denied until a
// profile exists).
var GenericMCP = &Profile{
	Name:          "generic",
	QuoteTool:     "get_quotes",
	PositionsTool: "get_positions",
	AccountTool:   "get_account",
	OrdersTool:    "get_orders",
	PlaceTool:     "place_order",
	CancelTool:    "cancel_order",
	Extract:       func(string, *jsonv.Object) (OrderIntent, bool) { return OrderIntent{}, false },
	ParseQuote:    ParseMCPQuote,
}

// quotePriceKeys are read in order; the first usable value wins.
var quotePriceKeys = []string{"price", "last_price", "last", "mark_price", "close", "ask", "bid"}

// ParseMCPQuote reads a price from an MCP quote payload (reference N3): price keys on the
// top-level object, then the object under the symbol's key, then the first of quotes, data,
// results that is a list (the row labelled with the symbol, else the only row). The first
// value that is a positive finite number wins; unusable values are skipped.
func ParseMCPQuote(payload any, symbol string) (money.Amount, bool) {
	o, ok := payload.(*jsonv.Object)
	if !ok {
		return money.Zero, false
	}
	if p, ok := priceFrom(o, quotePriceKeys); ok {
		return p, true
	}
	sym := pystr.Upper(pystr.Strip(symbol))
	if inner, ok := o.Value(sym).(*jsonv.Object); ok {
		if p, ok := priceFrom(inner, quotePriceKeys); ok {
			return p, true
		}
	}
	for _, k := range []string{"quotes", "data", "results"} {
		rows, ok := o.Value(k).([]any)
		if !ok {
			continue
		}
		row := quoteRow(rows, sym)
		if row == nil {
			return money.Zero, false
		}
		return priceFrom(row, quotePriceKeys)
	}
	return money.Zero, false
}

func quoteRow(rows []any, sym string) *jsonv.Object {
	var only *jsonv.Object
	objects := 0
	for _, r := range rows {
		o, ok := r.(*jsonv.Object)
		if !ok {
			continue
		}
		objects++
		only = o
		for _, k := range []string{"symbol", "ticker", "instrument"} {
			if s, ok := rowString(o, k); ok && pystr.Upper(pystr.Strip(s)) == sym {
				return o
			}
		}
	}
	if objects == 1 {
		return only
	}
	return nil
}

func priceFrom(o *jsonv.Object, keys []string) (money.Amount, bool) {
	for _, k := range keys {
		v, ok := o.Get(k)
		if !ok {
			continue
		}
		if a, err := DecimalFromJSON(v); err == nil && a.Sign() > 0 {
			return a, true
		}
	}
	return money.Zero, false
}

// ParseConnectorQuote reads a price from a direct-SDK connector's quote envelope (reference
// N4): an object whose status is not "error", with a "quote" object; keys last, ask, bid, close.
func ParseConnectorQuote(payload any) (money.Amount, bool) {
	o, ok := payload.(*jsonv.Object)
	if !ok || IsErrorEnvelope(o) {
		return money.Zero, false
	}
	q, ok := o.Value("quote").(*jsonv.Object)
	if !ok {
		return money.Zero, false
	}
	return priceFrom(q, []string{"last", "ask", "bid", "close"})
}

// IsErrorEnvelope reports a tool reply whose status is "error" (any case).
func IsErrorEnvelope(o *jsonv.Object) bool {
	s, ok := rowString(o, "status")
	return ok && strings.EqualFold(s, "error")
}

// EnvelopeError is the message of an error envelope: error, message or detail.
func EnvelopeError(o *jsonv.Object, fallback string) string {
	for _, k := range []string{"error", "message", "detail"} {
		if s, ok := rowString(o, k); ok && s != "" {
			return s
		}
	}
	return fallback
}

// ExtractGeneric reads cockpit's own place_order arguments: symbol, side ("buy"/"sell"),
// quantity or notional, optional type (market, limit, stop, stop_limit, trailing_stop) with
// limit_price, stop_price, trail_amount or trail_percent as the type needs (CheckOrderPrices),
// instrument_type (default: the symbol's
// shape, see InferInstrument), asset_class, and legs for a multi-leg option order. Unusable
// fields leave the intent Invalid so CheckMandate denies it.
func ExtractGeneric(args *jsonv.Object) (OrderIntent, OrderRequest) {
	if args == nil {
		args = jsonv.NewObject()
	}
	withDefault := jsonv.Clone(args).(*jsonv.Object)
	if !withDefault.Has("instrument_type") {
		withDefault.Set("instrument_type", string(InferInstrument(args)))
	}
	if !withDefault.Has("notional_usd") && withDefault.Has("notional") {
		v, _ := withDefault.Get("notional")
		withDefault.Set("notional_usd", v)
	}
	in := IntentFromJSON(withDefault)
	in.Side = strings.ToLower(pystr.Strip(in.Side))
	applyShape(withDefault, &in)
	typ := Market
	if t, ok := rowString(args, "type"); ok {
		typ = canonical(OrderType(strings.ToLower(pystr.Strip(t))), OrderTypes)
	}
	for _, f := range []struct {
		key string
		dst **money.Amount
	}{{"stop_price", &in.StopPrice}, {"trail_amount", &in.TrailAmount}, {"trail_percent", &in.TrailPercent}} {
		v, ok := args.Get(f.key)
		if !ok || v == nil {
			continue
		}
		a, err := DecimalFromJSON(v)
		if err != nil {
			in.Invalid = joinInvalid(in.Invalid, fmt.Sprintf("%s: %v", f.key, err))
			continue
		}
		*f.dst = &a
	}
	if err := CheckOrderPrices(typ, in.Prices()); err != nil {
		in.Invalid = joinInvalid(in.Invalid, strings.TrimPrefix(err.Error(), ErrOrderPrices.Error()+": "))
	}
	if typ != Market {
		in.Type = typ
	}
	req := OrderRequest{Symbol: in.NormalizedSymbol(), Side: in.Side, Type: typ,
		Quantity: in.Quantity, Notional: in.NotionalUSD, LimitPrice: in.LimitPrice,
		StopPrice: in.StopPrice, TrailAmount: in.TrailAmount, TrailPercent: in.TrailPercent,
		Instrument: in.InstrumentType, Legs: in.Legs}
	return in, req
}

func joinInvalid(err error, msg string) error {
	if err == nil {
		return errString(msg)
	}
	return errString(err.Error() + "; " + msg)
}

type errString string

func (e errString) Error() string { return string(e) }
