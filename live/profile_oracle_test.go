package live

import (
	"errors"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// The hand-written Robinhood and Alpaca-MCP extractors, builders and reply readers as they
// were before the shipped profile files replaced them (issue 30). They are kept here, in a
// test file, only as the oracle the differential tests (profile_diff_test.go) hold the files to.

// extractRobinhood is X1–X5: only place_equity_order carries an intent; symbol, side,
// instrument and at least one usable size are required; the extractor never sets an asset
// class. Numbers follow DecimalFromJSON, so "inf", "nan", booleans and "1_000" are not sizes.
func extractRobinhood(tool string, args *jsonv.Object) (OrderIntent, bool) {
	if tool != "place_equity_order" || args == nil {
		return OrderIntent{}, false
	}
	var in OrderIntent
	for _, k := range []string{"symbol", "ticker", "instrument"} {
		if s, ok := rowString(args, k); ok && pystr.Strip(s) != "" {
			in.Symbol = pystr.Upper(pystr.Strip(s))
			break
		}
	}
	for _, k := range []string{"side", "action", "direction"} {
		s, ok := rowString(args, k)
		if !ok {
			continue
		}
		switch pystr.Lower(pystr.Strip(s)) {
		case "buy", "b", "long":
			in.Side = Buy
		case "sell", "s", "short":
			in.Side = Sell
		default:
			continue
		}
		break
	}
	for _, k := range []string{"instrument_type", "asset_class", "type", "instrument_class"} {
		s, ok := rowString(args, k)
		if !ok {
			continue
		}
		if t := instrumentAlias(pystr.Lower(s)); t != "" {
			in.InstrumentType = t
			break
		}
	}
	in.NotionalUSD = firstSize(args, "notional_usd", "notional", "dollar_amount", "amount")
	in.Quantity = firstSize(args, "quantity", "qty", "shares", "units")
	if in.Symbol == "" || in.Side == "" || in.InstrumentType == "" || (in.NotionalUSD == nil && in.Quantity == nil) {
		return OrderIntent{}, false
	}
	return in, true
}

func instrumentAlias(s string) InstrumentType {
	switch s {
	case "equity", "stock", "stocks":
		return Equity
	case "etf":
		return ETF
	case "option", "options":
		return Option
	case "crypto", "cryptocurrency":
		return Crypto
	}
	return ""
}

// firstSize reads the first present key: a value that is not a positive number makes the
// size absent (no fall-through to the next key).
func firstSize(args *jsonv.Object, keys ...string) *money.Amount {
	_, v, ok := firstPresent(args, keys)
	if !ok {
		return nil
	}
	a, err := DecimalFromJSON(v)
	if err != nil || a.Sign() <= 0 {
		return nil
	}
	return &a
}

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

// extractAlpaca reads an order tool's arguments. Only shapes the gate can price exactly yield
// an intent: market, limit, stop, stop_limit or trailing_stop with the prices its type needs
// (alpacaPrices), simple order class, exactly one of qty and notional. An option order's
// contracts are counted in shares (× 100) and its limit is valued at contracts × 100 × limit;
// a limit order's notional is at least quantity × limit.
//
// Changed with issue 29 item 2 (stop orders): stop, stop_limit and trailing_stop with
// stop_price, trail_price and trail_percent yield an intent (they were refused); the shipped
// alpaca.toml changed the same way, so the oracle stays the behaviour the file is held to.
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

// alpacaPrices reads an order tool's type and prices into in (stop_price, trail_price,
// trail_percent as the type needs; CheckOrderPrices) and returns its limit price; false for a
// type or prices the gate cannot value exactly.
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

// buildAlpacaOrder is a typed order as place_stock_order (or place_crypto_order for a pair)
// arguments, with our client order id so an indeterminate submit can be looked up. Changed
// with issue 29 item 2: a stop carries stop_price, trail_price and trail_percent, and one
// whose prices do not fit its type is refused (alpaca.toml's build does the same).
func buildAlpacaOrder(req OrderRequest) (string, *jsonv.Object, error) {
	tool := "place_stock_order"
	args := jsonv.ObjectOf("symbol", req.Symbol, "side", req.Side)
	if err := sizeArgs(args, req, "qty", "notional"); err != nil {
		return "", nil, err
	}
	args.Set("type", string(orderType(req)))
	if req.Type.Triggered() { // added at the merge with the data builders: never a stop without its prices
		if err := CheckOrderPrices(req.Type, req.Prices()); err != nil {
			return "", nil, err
		}
	}
	for _, f := range []struct {
		key string
		v   *money.Amount
	}{{"limit_price", req.LimitPrice}, {"stop_price", req.StopPrice}, {"trail_price", req.TrailAmount}, {"trail_percent", req.TrailPercent}} {
		if f.v != nil {
			args.Set(f.key, f.v.String())
		}
	}
	if strings.Contains(req.Symbol, "/") {
		tool = "place_crypto_order"
		args.Set("time_in_force", "gtc")
	} else {
		args.Set("time_in_force", "day")
	}
	if req.ClientOrderID != "" {
		args.Set("client_order_id", req.ClientOrderID)
	}
	return tool, args, nil
}

// buildRobinhoodOrder is a typed order as place_equity_order arguments. Changed with issue 29
// item 2: a stop, stop-limit or trailing stop is refused (its stop arguments are not known),
// never sent as a plain order; robinhood.toml's build refuses them the same way.
func buildRobinhoodOrder(req OrderRequest) (string, *jsonv.Object, error) {
	if req.Type.Triggered() {
		return "", nil, errors.New("the robinhood profile does not map " + string(req.Type) + " orders")
	}
	args := jsonv.ObjectOf("symbol", req.Symbol, "side", req.Side, "instrument_type", string(Equity))
	if err := sizeArgs(args, req, "quantity", "notional_usd"); err != nil {
		return "", nil, err
	}
	args.Set("order_type", string(orderType(req)))
	if req.LimitPrice != nil {
		args.Set("limit_price", req.LimitPrice.String())
	}
	return "place_equity_order", args, nil
}

func sizeArgs(args *jsonv.Object, req OrderRequest, qtyKey, notionalKey string) error {
	switch {
	case req.Quantity != nil:
		args.Set(qtyKey, req.Quantity.String())
	case req.Notional != nil:
		args.Set(notionalKey, req.Notional.String())
	default:
		return errNoSize
	}
	return nil
}
