package alpaca

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/alpacahq/alpaca-trade-api-go/v3/alpaca"
	"github.com/alpacahq/alpaca-trade-api-go/v3/marketdata"

	"cockpit/live"
	"cockpit/live/money"
)

// Quote implements live.Broker through the market data client's latest quote.
func (b *Broker) Quote(ctx context.Context, symbol string) (live.Quote, error) {
	c, err := b.newCall(ctx)
	if err != nil {
		return live.Quote{}, err
	}
	q, err := c.data.GetLatestQuote(symbol, marketdataRequest(b.cfg.Feed))
	if err = b.done(c, err, false); err != nil {
		return live.Quote{}, err
	}
	if q == nil {
		return live.Quote{}, live.Rejected("no quote for " + symbol)
	}
	bid, err := price(q.BidPrice)
	if err != nil {
		return live.Quote{}, live.Transport(fmt.Errorf("%s bid: %w", symbol, err))
	}
	ask, err := price(q.AskPrice)
	if err != nil {
		return live.Quote{}, live.Transport(fmt.Errorf("%s ask: %w", symbol, err))
	}
	return live.Quote{Symbol: symbol, Bid: bid, Ask: ask, Time: q.Timestamp}, nil
}

// Account implements live.Broker.
func (b *Broker) Account(ctx context.Context) (live.Account, error) {
	c, err := b.newCall(ctx)
	if err != nil {
		return live.Account{}, err
	}
	a, err := c.trade.GetAccount()
	if err = b.done(c, err, false); err != nil {
		return live.Account{}, err
	}
	var out live.Account
	var errs [3]error
	out.Cash, errs[0] = dec(a.Cash)
	out.Equity, errs[1] = dec(a.Equity)
	out.BuyingPower, errs[2] = dec(a.BuyingPower)
	if err := errors.Join(errs[:]...); err != nil {
		return live.Account{}, live.Transport(fmt.Errorf("account: %w", err))
	}
	return out, nil
}

// Positions implements live.Broker.
func (b *Broker) Positions(ctx context.Context) ([]live.Position, error) {
	c, err := b.newCall(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := c.trade.GetPositions()
	if err = b.done(c, err, false); err != nil {
		return nil, err
	}
	out := make([]live.Position, 0, len(ps))
	for _, p := range ps {
		lp, err := position(p)
		if err != nil {
			return nil, live.Transport(err)
		}
		out = append(out, lp)
	}
	return out, nil
}

// OpenOrders implements live.Broker: every open order, up to Alpaca's page limit of 500.
func (b *Broker) OpenOrders(ctx context.Context) ([]live.Order, error) {
	c, err := b.newCall(ctx)
	if err != nil {
		return nil, err
	}
	list, err := c.trade.GetOrders(sdk.GetOrdersRequest{Status: "open", Limit: 500})
	if err = b.done(c, err, false); err != nil {
		return nil, err
	}
	if len(list) >= 500 {
		return nil, live.Transport(errors.New("500 or more open orders: the list may be cut off"))
	}
	out := make([]live.Order, 0, len(list))
	for i := range list {
		o, err := order(&list[i])
		if err != nil {
			return nil, live.Transport(err)
		}
		out = append(out, o)
	}
	return out, nil
}

// PlaceOrder implements live.Broker. It checks the request first (nothing is sent for a
// malformed one), sends it exactly once, and never resends: a timeout, a 5xx or an
// unreadable reply is live.ErrIndeterminate.
func (b *Broker) PlaceOrder(ctx context.Context, req live.OrderRequest) (live.Order, error) {
	pr, err := b.request(ctx, req)
	if err != nil {
		return live.Order{}, err
	}
	c, err := b.newCall(ctx)
	if err != nil {
		return live.Order{}, err
	}
	o, err := c.trade.PlaceOrder(pr)
	if err = b.done(c, err, true); err != nil {
		return live.Order{}, err
	}
	lo, err := order(o)
	if err != nil { // it was accepted; what was accepted is unclear
		return live.Order{}, live.Indeterminate(err)
	}
	b.placed(lo)
	return lo, nil
}

// request builds the SDK request; unknown shapes are refused, never guessed.
func (b *Broker) request(ctx context.Context, req live.OrderRequest) (sdk.PlaceOrderRequest, error) {
	var pr sdk.PlaceOrderRequest
	switch {
	case req.Tool != "" || req.Args != nil:
		return pr, live.Rejected("alpaca takes no tool-shaped orders")
	case req.ClientOrderID == "":
		return pr, live.Rejected("no client order id: an unknown outcome could not be reconciled")
	case req.Symbol == "":
		return pr, live.Rejected("no symbol")
	case req.Replaces != "":
		// A replace must replace or fail, never land as a second order; this connector does not
		// send replaces yet.
		return pr, live.Rejected(fmt.Sprintf("replace of %s: this connector does not send replaces", req.Replaces))
	case len(req.Legs) > 0:
		return pr, live.Rejected("multi-leg orders: this connector does not send them")
	}
	inst, err := live.ClassifyInstrument(req.Symbol, req.Instrument)
	switch {
	case err != nil:
		return pr, live.Rejected(err.Error())
	case req.Instrument == "" && inst.Type != live.Equity:
		// The gate names what the mandate priced: a pair or an option it did not name could have
		// been priced as a share.
		return pr, live.Rejected(fmt.Sprintf("%s looks like a %s symbol but the order names no instrument type", req.Symbol, inst.Type))
	case inst.Type != live.Equity && inst.Type != live.ETF && inst.Type != live.Crypto && inst.Type != live.Option:
		return pr, live.Rejected(fmt.Sprintf("instrument %s: Alpaca trades equities, ETFs, crypto and options", inst.Type))
	case inst.Type == live.Option && (req.Quantity == nil || !req.Quantity.IsInteger()):
		return pr, live.Rejected("an option order is a whole number of contracts")
	case req.Side != live.Buy && req.Side != live.Sell:
		return pr, live.Rejected(fmt.Sprintf("side %q: want buy or sell", req.Side))
	case (req.Quantity == nil) == (req.Notional == nil):
		return pr, live.Rejected("exactly one of quantity and notional")
	case inst.Type == live.Crypto && (req.Type == live.Stop || req.Type == live.TrailingStop):
		return pr, live.Rejected(fmt.Sprintf("a crypto %s order: Alpaca takes crypto stops as stop_limit only", req.Type))
	case req.Type.Triggered() && req.Notional != nil:
		return pr, live.Rejected(fmt.Sprintf("a %s order needs a quantity (Alpaca takes notional sizes on market and limit orders only)", req.Type))
	}
	if err := live.CheckOrderPrices(req.Type, req.Prices()); err != nil { // each type with its own prices, as Alpaca wants them
		return pr, live.Rejected(err.Error())
	}
	qty, err1 := toDec(req.Quantity)
	notional, err2 := toDec(req.Notional)
	limit, err3 := toDec(req.LimitPrice)
	stop, err4 := toDec(req.StopPrice)
	trail, err5 := toDec(req.TrailAmount)
	trailPct, err6 := toDec(req.TrailPercent)
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		return pr, live.Rejected(err.Error())
	}
	for _, d := range []*money.Amount{req.Quantity, req.Notional, req.LimitPrice} {
		if d != nil && d.Sign() <= 0 {
			return pr, live.Rejected(fmt.Sprintf("%s must be positive", d))
		}
	}
	if req.ReduceOnly {
		if err := b.checkReduces(ctx, req); err != nil {
			return pr, err
		}
	}
	tif := sdk.Day
	if inst.Type == live.Crypto || (req.Type.Triggered() && inst.Type != live.Option) {
		tif = sdk.GTC // Alpaca takes crypto orders as gtc or ioc only; a protective stop outlives the day
	}
	return sdk.PlaceOrderRequest{Symbol: inst.Symbol, Qty: qty, Notional: notional, Side: sdk.Side(req.Side),
		Type: sdkOrderType(req.Type), TimeInForce: tif, LimitPrice: limit, StopPrice: stop, TrailPrice: trail, TrailPercent: trailPct,
		ClientOrderID: req.ClientOrderID}, nil
}

// sdkOrderType is the SDK's name of an order type (the same words: market, limit, stop,
// stop_limit, trailing_stop); anything else was refused before.
func sdkOrderType(t live.OrderType) sdk.OrderType {
	switch t {
	case live.Limit:
		return sdk.Limit
	case live.Stop:
		return sdk.Stop
	case live.StopLimit:
		return sdk.StopLimit
	case live.TrailingStop:
		return sdk.TrailingStop
	}
	return sdk.Market
}

// checkReduces enforces reduce-only, which Alpaca has no flag for: the order must oppose the
// position and not exceed it.
func (b *Broker) checkReduces(ctx context.Context, req live.OrderRequest) error {
	if req.Quantity == nil {
		return live.Rejected("a reduce-only order needs a quantity")
	}
	ps, err := b.Positions(ctx)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.Symbol != req.Symbol {
			continue
		}
		opposes := (p.Qty.Sign() > 0 && req.Side == live.Sell) || (p.Qty.Sign() < 0 && req.Side == live.Buy)
		if opposes && req.Quantity.Cmp(p.Qty.Abs()) <= 0 {
			return nil
		}
		return live.Rejected(fmt.Sprintf("reduce-only %s %s %s would not reduce the position of %s", req.Side, req.Quantity, req.Symbol, p.Qty))
	}
	return live.Rejected("reduce-only: no " + req.Symbol + " position")
}

// OrderByClientID implements live.Broker through GetOrderByClientOrderID.
func (b *Broker) OrderByClientID(ctx context.Context, clientOrderID string) (live.Order, error) {
	c, err := b.newCall(ctx)
	if err != nil {
		return live.Order{}, err
	}
	o, err := c.trade.GetOrderByClientOrderID(clientOrderID)
	if err != nil && notFound(c.rt) {
		b.done(c, nil, false)
		return live.Order{}, fmt.Errorf("%s: %w", clientOrderID, live.ErrOrderNotFound)
	}
	if err = b.done(c, err, false); err != nil {
		return live.Order{}, err
	}
	lo, err := order(o)
	if err != nil {
		return live.Order{}, live.Transport(err)
	}
	b.track(lo)
	return lo, nil
}

// CancelOrder implements live.Broker.
func (b *Broker) CancelOrder(ctx context.Context, orderID string) error {
	if orderID == "" {
		return live.Rejected("no order id")
	}
	c, err := b.newCall(ctx)
	if err != nil {
		return err
	}
	return b.done(c, c.trade.CancelOrder(orderID), false)
}

// CloseAll closes every position at market and cancels every open order
// (DELETE /v2/positions?cancel_orders=true). Alpaca answers 207 with a result per symbol:
// the orders it placed come back with the symbols it could not close, joined.
func (b *Broker) CloseAll(ctx context.Context) ([]live.Order, error) {
	c, err := b.newCall(ctx)
	if err != nil {
		return nil, err
	}
	list, err := c.trade.CloseAllPositions(sdk.CloseAllPositionsRequest{CancelOrders: true})
	status, _, _ := c.rt.snapshot()
	var perSymbol error
	if err != nil && status == 207 {
		perSymbol, err = &live.BrokerError{Class: live.ErrRejected, Msg: apiMessage(err), Err: err}, nil
	}
	if err = b.done(c, err, false); err != nil {
		return nil, err
	}
	out := make([]live.Order, 0, len(list))
	for i := range list {
		o, err := order(&list[i])
		if err != nil {
			return out, live.Transport(err)
		}
		out = append(out, o)
	}
	return out, perSymbol
}

// marketdataRequest asks the configured feed for the latest quote.
func marketdataRequest(feed string) marketdata.GetLatestQuoteRequest {
	return marketdata.GetLatestQuoteRequest{Feed: marketdata.Feed(feed)}
}
