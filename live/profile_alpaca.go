package live

import (
	"regexp"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// alpacaMCPTools is the curated map of the official Alpaca MCP server (alpaca-mcp.md): every
// tool that places, changes or cancels orders, positions, account settings or watchlists is
// WRITE; the listed reads are READ. A tool not listed falls to readOnlyHint, then UNKNOWN.
var alpacaMCPTools = func() map[string]ToolClass {
	m := map[string]ToolClass{}
	for _, t := range []string{"place_stock_order", "place_crypto_order", "place_option_order", "replace_order_by_id",
		"cancel_order_by_id", "cancel_all_orders", "close_position", "close_all_positions",
		"exercise_options_position", "do_not_exercise_options_position", "update_account_config",
		"create_watchlist", "update_watchlist_by_id", "delete_watchlist_by_id",
		"add_asset_to_watchlist_by_id", "remove_asset_from_watchlist_by_id"} {
		m[t] = ClassWrite
	}
	for _, t := range []string{"get_account_info", "get_account_config", "get_portfolio_history",
		"get_account_activities", "get_account_activities_by_type",
		"get_orders", "get_order_by_id", "get_order_by_client_id", "get_all_positions", "get_open_position",
		"get_stock_latest_quote", "get_stock_latest_trade", "get_stock_latest_bar", "get_stock_snapshot",
		"get_stock_bars", "get_stock_quotes", "get_stock_trades",
		"get_crypto_latest_quote", "get_crypto_latest_trade", "get_crypto_latest_bar", "get_crypto_snapshot",
		"get_crypto_latest_orderbook", "get_crypto_bars", "get_crypto_quotes", "get_crypto_trades",
		"get_option_latest_quote", "get_option_latest_trade", "get_option_snapshot", "get_option_chain",
		"get_option_bars", "get_option_trades", "get_option_contracts", "get_option_contract",
		"get_option_exchange_codes", "get_most_active_stocks", "get_market_movers",
		"get_all_assets", "get_asset", "get_calendar", "get_clock", "get_corporate_actions",
		"get_corporate_action_announcements", "get_corporate_action_announcement", "get_news",
		"get_watchlists", "get_watchlist_by_id"} {
		m[t] = ClassRead
	}
	return m
}()

// AlpacaMCP is the profile of the official Alpaca MCP server: stock, crypto and single-leg
// option orders yield an intent; multi-leg, bracket/OCO/OTO, stop and trailing orders, replaces
// and cancels do not (the gate denies them until they are mapped).
var AlpacaMCP = &Profile{
	Name:  "alpaca",
	Tools: alpacaMCPTools,
	// alpaca-mcp.md: the map is authoritative; a newer server's unknown tool is denied until mapped.
	ToolsAuthoritative: true,
	QuoteTool:          "get_stock_latest_quote",
	PositionsTool:      "get_all_positions",
	AccountTool:        "get_account_info",
	OrdersTool:         "get_orders",
	PlaceTool:          "place_stock_order",
	CancelTool:         "cancel_order_by_id",
	Extract:            extractAlpaca,
	ParseQuote:         parseAlpacaQuote,
	QuoteToolFor:       alpacaQuoteTool,
	BuildOrder:         buildAlpacaOrder,
	ReplyError:         alpacaReplyError,
}

// alpacaReplyError reads the server's failure shape: an "error" member (a message, or an
// object with message, http_status, detail, and timeout: true when the request may have
// reached the broker, which is indeterminate).
func alpacaReplyError(reply *jsonv.Object) error {
	v, ok := reply.Get("error")
	if !ok || v == nil || v == false {
		return nil
	}
	msg := "the broker returned an error"
	switch e := v.(type) {
	case string:
		msg = e
	case *jsonv.Object:
		msg = EnvelopeError(e, msg)
		if jsonv.Truthy(e.Value("timeout")) {
			return Indeterminate(errString("the submit timed out and may have reached the broker: " + msg))
		}
	}
	return Rejected(msg)
}

// Profiles are the MCP profiles a config can name.
var Profiles = map[string]*Profile{"robinhood": Robinhood, "alpaca": AlpacaMCP}

// occSymbol matches an OCC option symbol: root, yymmdd, C/P, strike × 1000 in 8 digits.
var occSymbol = regexp.MustCompile(`^[A-Z]{1,6}[0-9]{6}[CP][0-9]{8}$`)

// OptionMultiplier is the shares one listed equity option contract covers.
var OptionMultiplier = money.FromInt(100)

func alpacaQuoteTool(symbol string) string {
	s := pystr.Upper(pystr.Strip(symbol))
	switch {
	case strings.Contains(s, "/"):
		return "get_crypto_latest_quote"
	case occSymbol.MatchString(s):
		return "get_option_latest_quote"
	}
	return ""
}

// parseAlpacaQuote reads the reference's price keys first, then Alpaca's ask_price and
// bid_price on the payload, under "quote" or under the symbol.
func parseAlpacaQuote(payload any, symbol string) (money.Amount, bool) {
	if p, ok := ParseMCPQuote(payload, symbol); ok {
		return p, true
	}
	o, ok := payload.(*jsonv.Object)
	if !ok {
		return money.Zero, false
	}
	keys := []string{"ask_price", "bid_price"}
	if p, ok := priceFrom(o, keys); ok {
		return p, true
	}
	for _, k := range []string{"quote", pystr.Upper(pystr.Strip(symbol))} {
		if inner, ok := o.Value(k).(*jsonv.Object); ok {
			if p, ok := priceFrom(inner, append([]string{"price", "last"}, keys...)); ok {
				return p, true
			}
		}
	}
	return money.Zero, false
}

// extractAlpaca reads an order tool's arguments. Only shapes the gate can price exactly yield
// an intent: market, limit, stop, stop_limit or trailing_stop with the prices its type needs
// (alpacaPrices), simple order class, exactly one of qty and notional. An option
// order's contracts are counted in shares (× 100) and its limit is valued at contracts × 100
// × limit; a limit order's notional is at least quantity × limit.
func extractAlpaca(tool string, args *jsonv.Object) (OrderIntent, bool) {
	if args == nil {
		return OrderIntent{}, false
	}
	in := OrderIntent{}
	switch tool {
	case "place_stock_order":
		in.InstrumentType = Equity
	case "place_crypto_order":
		in.InstrumentType = Crypto
	case "place_option_order":
		in.InstrumentType = Option
		if args.Has("legs") || strField(args, "order_class") == "mleg" {
			return OrderIntent{}, false // multi-leg: priced leg by leg, not here
		}
	default:
		return OrderIntent{}, false
	}
	sym, ok := rowString(args, "symbol")
	if !ok || pystr.Strip(sym) == "" {
		return OrderIntent{}, false
	}
	in.Symbol = pystr.Upper(pystr.Strip(sym))
	switch strField(args, "side") {
	case "buy":
		in.Side = Buy
	case "sell":
		in.Side = Sell
	default:
		return OrderIntent{}, false
	}
	switch strField(args, "order_class") {
	case "", "simple":
	default:
		return OrderIntent{}, false
	}
	for _, k := range []string{"take_profit_limit_price", "stop_loss_stop_price", "stop_loss_limit_price", "advanced_instructions"} {
		if v, ok := args.Get(k); ok && v != nil {
			return OrderIntent{}, false
		}
	}
	qty, hasQty, okQ := positiveArg(args, "qty")
	notional, hasNotional, okN := positiveArg(args, "notional")
	if !okQ || !okN || hasQty == hasNotional {
		return OrderIntent{}, false
	}
	limit, ok := alpacaPrices(args, &in)
	if !ok {
		return OrderIntent{}, false
	}
	if in.InstrumentType == Option {
		if !hasQty {
			return OrderIntent{}, false
		}
		qty = qty.Mul(OptionMultiplier)
	}
	if hasQty {
		in.Quantity = &qty
	}
	if hasNotional {
		in.NotionalUSD = &notional
	}
	if limit != nil {
		in.LimitPrice = limit
		if hasQty {
			n := qty.Mul(*limit)
			in.NotionalUSD = &n
		}
	}
	return in, true
}

// strField is a string argument stripped and lower-cased ("" when absent or not a string).
func strField(args *jsonv.Object, key string) string {
	s, _ := rowString(args, key)
	return pystr.Lower(pystr.Strip(s))
}

// positiveArg reads an optional positive number: has says it is present (and not null), ok
// false means present but unusable.
func positiveArg(args *jsonv.Object, key string) (money.Amount, bool, bool) {
	v, present := args.Get(key)
	if !present || v == nil {
		return money.Zero, false, true
	}
	a, err := DecimalFromJSON(v)
	if err != nil || a.Sign() <= 0 {
		return money.Zero, true, false
	}
	return a, true, true
}

// alpacaPrices reads an order tool's type and prices into in (stop_price, trail_price,
// trail_percent as the type needs; CheckOrderPrices) and returns its limit price; false for a
// type or prices the gate cannot value exactly. A stop's notional is the gate's to value (at
// its trigger); a limit price still sets quantity × limit as the notional floor.
func alpacaPrices(args *jsonv.Object, in *OrderIntent) (*money.Amount, bool) {
	t := OrderType(strField(args, "type"))
	if t == "" {
		t = Market
	}
	if !t.Valid() {
		return nil, false
	}
	var p OrderPrices
	for _, f := range []struct {
		key string
		dst **money.Amount
	}{{"limit_price", &p.Limit}, {"stop_price", &p.Stop}, {"trail_price", &p.TrailAmount}, {"trail_percent", &p.TrailPercent}} {
		v, has, ok := positiveArg(args, f.key)
		if has && !ok {
			return nil, false
		}
		if has {
			*f.dst = &v
		}
	}
	if CheckOrderPrices(t, p) != nil {
		return nil, false
	}
	if t.Triggered() {
		in.Type, in.StopPrice, in.TrailAmount, in.TrailPercent = t, p.Stop, p.TrailAmount, p.TrailPercent
	}
	return p.Limit, true
}
