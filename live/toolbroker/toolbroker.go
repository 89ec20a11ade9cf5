package toolbroker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// Caller calls one tool of a tool-shaped broker and returns its decoded JSON reply (a
// text reply that is not JSON comes back as the string). An error means the call failed
// (transport or protocol); an error envelope is a reply, not an error.
type Caller interface {
	CallTool(ctx context.Context, name string, args *jsonv.Object) (any, error)
}

// Broker adapts a tool-shaped broker (an MCP server) to live.Broker through its Profile. Orders
// are forwarded with the agent's original arguments; a reply whose status is "error" is a
// rejection, and a failed call after sending is indeterminate.
type Broker struct {
	Key     string // normalised broker key
	Profile *live.Profile
	Caller  Caller
	Now     func() time.Time
	// PollEvery is how often a subscribed broker re-reads its open orders for fills (0:
	// DefaultFillPoll).
	PollEvery time.Duration

	watch watch // the orders its replies showed (fills.go)
}

var _ live.Broker = (*Broker)(nil)

// Name implements live.Broker.
func (t *Broker) Name() string { return t.Key }

func (t *Broker) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// read calls a read tool with empty arguments; a failed call or an error envelope is an error.
// The profile's fixed arguments of the tool come first. A profile without the read refuses it.
func (t *Broker) read(ctx context.Context, tool string, args *jsonv.Object) (any, error) {
	if tool == "" {
		return nil, fmt.Errorf("the %s profile names no tool for this read", t.Profile.Name)
	}
	merged := jsonv.NewObject()
	if fixed := t.Profile.ReadArgs[tool]; fixed != nil {
		merged = jsonv.Clone(fixed).(*jsonv.Object)
	}
	if args != nil {
		for _, m := range args.Members() {
			merged.Set(m.Key, m.Value)
		}
	}
	reply, err := t.Caller.CallTool(ctx, tool, merged)
	if err != nil {
		return nil, live.Transport(err)
	}
	o, ok := reply.(*jsonv.Object)
	if s, isText := reply.(string); isText {
		o, ok = jsonv.ObjectOf("raw", s), true
	}
	if ok && live.IsErrorEnvelope(o) {
		return nil, live.Rejected(live.EnvelopeError(o, tool+" returned an error"))
	} else if ok && t.Profile.ReplyError != nil {
		if err := t.Profile.ReplyError(o); err != nil {
			return nil, err
		}
	}
	return reply, nil
}

// Quote implements live.Broker: the profile's quote tool with {"symbol": SYMBOL}.
func (t *Broker) Quote(ctx context.Context, symbol string) (live.Quote, error) {
	reply, err := t.read(ctx, t.Profile.QuoteToolOf(symbol), jsonv.ObjectOf("symbol", symbol))
	if err != nil {
		return live.Quote{}, err
	}
	p, ok := t.Profile.ParseQuote(reply, symbol)
	if !ok {
		return live.Quote{}, fmt.Errorf("%s: no usable price for %s", t.Profile.QuoteToolOf(symbol), symbol)
	}
	return live.Quote{Symbol: symbol, Last: p, Time: t.now()}, nil
}

// Positions implements live.Broker: the raw payload is read with the reference's rules (a
// row's value is its exposure, E22); an unreadable payload is an error, never an empty book.
// A symbol with a row that has a value and no quantity has an unknown quantity (QtyUnknown).
func (t *Broker) Positions(ctx context.Context) ([]live.Position, error) {
	reply, err := t.read(ctx, t.Profile.PositionsTool, nil)
	if err != nil {
		return nil, err
	}
	if t.Profile.PositionFields != nil {
		if reply, err = live.RenamePositionFields(reply, t.Profile.PositionFields); err != nil {
			return nil, err
		}
	}
	book := live.ParsePositions(reply)
	if book.Err != nil {
		return nil, book.Err
	}
	rows, err := live.ParsePositionList(reply) // quantities, for flatten
	if err != nil {
		return nil, err
	}
	qty, unknown := map[string]money.Amount{}, map[string]bool{}
	for _, r := range rows {
		qty[r.Symbol] = qty[r.Symbol].Add(r.Qty)
		unknown[r.Symbol] = unknown[r.Symbol] || r.QtyUnknown // one row without a quantity: the symbol's is unknown
	}
	out := make([]live.Position, len(book.Exposures))
	for i, e := range book.Exposures {
		out[i] = live.Position{Symbol: e.Symbol, MarketValue: e.Net, Qty: qty[e.Symbol], QtyUnknown: unknown[e.Symbol]}
		if unknown[e.Symbol] {
			out[i].Qty = money.Zero
		}
	}
	return out, nil
}

// Account implements live.Broker.
func (t *Broker) Account(ctx context.Context) (live.Account, error) {
	reply, err := t.read(ctx, t.Profile.AccountTool, nil)
	if err != nil {
		return live.Account{}, err
	}
	var a live.Account
	if o, ok := reply.(*jsonv.Object); ok {
		for key, dst := range map[string]*money.Amount{"cash": &a.Cash, "equity": &a.Equity, "buying_power": &a.BuyingPower} {
			if v, ok := o.Get(key); ok {
				if x, err := live.DecimalFromJSON(v); err == nil {
					*dst = x
				}
			}
		}
	}
	return a, nil
}

// OpenOrders implements live.Broker: rows of the orders tool with an order_id (or id) whose status
// is not final.
func (t *Broker) OpenOrders(ctx context.Context) ([]live.Order, error) {
	reply, err := t.read(ctx, t.Profile.OrdersTool, nil)
	if err != nil {
		return nil, err
	}
	rows, err := live.PositionRows(reply)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Profile.OrdersTool, err)
	}
	var out []live.Order
	for _, r := range rows {
		o, ok := r.(*jsonv.Object)
		if !ok {
			return nil, fmt.Errorf("%s: a row is %s", t.Profile.OrdersTool, jsonv.TypeName(r))
		}
		seen, ok := orderRow(o)
		if !ok {
			return nil, fmt.Errorf("%s: an order row has no id", t.Profile.OrdersTool)
		}
		t.observe(seen, false) // its fills (fills.go)
		id := seen.ID
		status, _ := fieldString(o, "status")
		switch status {
		case "filled", "cancelled", "canceled", "rejected", "expired":
			continue
		}
		sym, _ := fieldString(o, "symbol")
		side, _ := fieldString(o, "side")
		ord := live.Order{ID: id, Symbol: sym, Side: side, Type: live.Market, Status: live.StatusAccepted, Reply: o}
		if typ, _ := fieldString(o, "type"); typ == string(live.Limit) {
			ord.Type = live.Limit
		}
		// Sizes let the gate count a resting order's exposure; one it cannot read still fails
		// the book closed there.
		ord.Quantity = amount(o, "qty", "quantity")
		ord.Notional = amount(o, "notional", "notional_usd")
		ord.LimitPrice = amount(o, "limit_price")
		if f := amount(o, "filled_qty"); f != nil {
			ord.FilledQty = *f
		}
		out = append(out, ord)
	}
	return out, nil
}

// PlaceOrder implements live.Broker: the agent's arguments go to the order tool verbatim.
func (t *Broker) PlaceOrder(ctx context.Context, req live.OrderRequest) (live.Order, error) {
	tool := req.Tool
	if tool == "" {
		tool = t.Profile.PlaceTool
	}
	args := req.Args
	if args == nil && t.Profile.BuildOrder != nil {
		built, a, err := t.Profile.BuildOrder(req)
		if err != nil {
			return live.Order{}, live.Rejected(err.Error())
		}
		tool, args = built, a
	}
	if args == nil {
		return live.Order{}, live.Rejected("a tool-shaped broker needs the order's tool arguments")
	}
	reply, err := t.Caller.CallTool(ctx, tool, args)
	if err != nil {
		return live.Order{}, live.Indeterminate(err)
	}
	o, ok := reply.(*jsonv.Object)
	if !ok {
		reply = jsonv.ObjectOf("raw", reply)
		o = reply.(*jsonv.Object)
	}
	if live.IsErrorEnvelope(o) {
		return live.Order{Reply: reply}, &live.BrokerError{Class: live.ErrRejected, Msg: live.EnvelopeError(o, "broker forward returned an error")}
	}
	if t.Profile.ReplyError != nil {
		if err := t.Profile.ReplyError(o); err != nil {
			return live.Order{Reply: reply}, err
		}
	}
	id, _ := fieldString(o, "order_id")
	if id == "" {
		id, _ = fieldString(o, "id")
	}
	if seen, ok := orderRow(o); ok { // a reply that shows the order filled is its fill (fills.go)
		t.observe(merged(seen, live.Order{Symbol: req.Symbol, Side: req.Side, ClientOrderID: req.ClientOrderID}), true)
	}
	return live.Order{ID: id, ClientOrderID: req.ClientOrderID, Symbol: req.Symbol, Side: req.Side,
		Status: live.StatusAccepted, Reply: reply, CreatedAt: t.now(), Children: live.ChildOrders(reply)}, nil
}

// CancelOrder implements live.Broker.
// A profile without a cancel tool refuses the cancel (the server offers none).
func (t *Broker) CancelOrder(ctx context.Context, orderID string) error {
	if t.Profile.CancelTool == "" {
		return live.Rejected("the " + t.Profile.Name + " profile has no cancel tool: cancel the order at the broker")
	}
	idArg := t.Profile.CancelIDArg
	if idArg == "" {
		idArg = "order_id"
	}
	reply, err := t.Caller.CallTool(ctx, t.Profile.CancelTool, jsonv.ObjectOf(idArg, orderID))
	if err != nil {
		return live.Indeterminate(err)
	}
	o, ok := reply.(*jsonv.Object)
	if s, isText := reply.(string); isText {
		o, ok = jsonv.ObjectOf("raw", s), true
	}
	if ok && live.IsErrorEnvelope(o) {
		return live.Rejected(live.EnvelopeError(o, "cancel returned an error"))
	} else if ok && t.Profile.ReplyError != nil {
		return t.Profile.ReplyError(o)
	}
	return nil
}

// errNoClientIDs reports that the broker cannot look orders up by our client order id.
var errNoClientIDs = errors.New("this broker cannot look orders up by client order id")

// OrderByClientID implements live.Broker: tool-shaped brokers do not carry our client order ids,
// so an indeterminate forward stays indeterminate until an operator reconciles it.
func (t *Broker) OrderByClientID(context.Context, string) (live.Order, error) {
	return live.Order{}, errNoClientIDs
}

// fieldString is row[key] when it is a string.
func fieldString(row *jsonv.Object, key string) (string, bool) {
	v, ok := row.Get(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// amount is the first of keys that reads as a number (nil when none does).
func amount(row *jsonv.Object, keys ...string) *money.Amount {
	for _, k := range keys {
		if v, ok := row.Get(k); ok && v != nil {
			if a, err := live.DecimalFromJSON(v); err == nil {
				return &a
			}
		}
	}
	return nil
}
