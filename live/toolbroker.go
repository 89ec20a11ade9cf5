package live

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// ToolCaller calls one tool of a tool-shaped broker and returns its decoded JSON reply (a
// text reply that is not JSON comes back as the string). An error means the call failed
// (transport or protocol); an error envelope is a reply, not an error.
type ToolCaller interface {
	CallTool(ctx context.Context, name string, args *jsonv.Object) (any, error)
}

// ToolBroker adapts a tool-shaped broker (an MCP server) to Broker through its Profile. Orders
// are forwarded with the agent's original arguments; a reply whose status is "error" is a
// rejection, and a failed call after sending is indeterminate.
type ToolBroker struct {
	Key     string // normalised broker key
	Profile *Profile
	Caller  ToolCaller
	Now     func() time.Time
}

var _ Broker = (*ToolBroker)(nil)

// Name implements Broker.
func (t *ToolBroker) Name() string { return t.Key }

func (t *ToolBroker) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// read calls a read tool with empty arguments; a failed call or an error envelope is an error.
func (t *ToolBroker) read(ctx context.Context, tool string, args *jsonv.Object) (any, error) {
	if args == nil {
		args = jsonv.NewObject()
	}
	reply, err := t.Caller.CallTool(ctx, tool, args)
	if err != nil {
		return nil, Transport(err)
	}
	if o, ok := reply.(*jsonv.Object); ok && IsErrorEnvelope(o) {
		return nil, Rejected(EnvelopeError(o, tool+" returned an error"))
	}
	return reply, nil
}

// Quote implements Broker: the profile's quote tool with {"symbol": SYMBOL}.
func (t *ToolBroker) Quote(ctx context.Context, symbol string) (Quote, error) {
	reply, err := t.read(ctx, t.Profile.QuoteTool, jsonv.ObjectOf("symbol", symbol))
	if err != nil {
		return Quote{}, err
	}
	p, ok := t.Profile.ParseQuote(reply, symbol)
	if !ok {
		return Quote{}, fmt.Errorf("%s: no usable price for %s", t.Profile.QuoteTool, symbol)
	}
	return Quote{Symbol: symbol, Last: p, Time: t.now()}, nil
}

// Positions implements Broker: the raw payload is read with the reference's rules; an
// unreadable payload is an error, never an empty book.
func (t *ToolBroker) Positions(ctx context.Context) ([]Position, error) {
	reply, err := t.read(ctx, t.Profile.PositionsTool, nil)
	if err != nil {
		return nil, err
	}
	book := ParsePositions(reply)
	if book.Err != nil {
		return nil, book.Err
	}
	out := make([]Position, len(book.Exposures))
	for i, e := range book.Exposures {
		out[i] = Position{Symbol: e.Symbol, MarketValue: e.Net}
	}
	return out, nil
}

// Account implements Broker.
func (t *ToolBroker) Account(ctx context.Context) (Account, error) {
	reply, err := t.read(ctx, t.Profile.AccountTool, nil)
	if err != nil {
		return Account{}, err
	}
	var a Account
	if o, ok := reply.(*jsonv.Object); ok {
		for key, dst := range map[string]*money.Amount{"cash": &a.Cash, "equity": &a.Equity, "buying_power": &a.BuyingPower} {
			if v, ok := o.Get(key); ok {
				if x, err := DecimalFromJSON(v); err == nil {
					*dst = x
				}
			}
		}
	}
	return a, nil
}

// OpenOrders implements Broker: rows of the orders tool with an order_id (or id) whose status
// is not final.
func (t *ToolBroker) OpenOrders(ctx context.Context) ([]Order, error) {
	reply, err := t.read(ctx, t.Profile.OrdersTool, nil)
	if err != nil {
		return nil, err
	}
	rows, err := positionRows(reply)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Profile.OrdersTool, err)
	}
	var out []Order
	for _, r := range rows {
		o, ok := r.(*jsonv.Object)
		if !ok {
			return nil, fmt.Errorf("%s: a row is %s", t.Profile.OrdersTool, jsonv.TypeName(r))
		}
		id := ""
		for _, k := range []string{"order_id", "id", "broker_order_id"} {
			if s, ok := rowString(o, k); ok && s != "" {
				id = s
				break
			}
		}
		if id == "" {
			return nil, fmt.Errorf("%s: an order row has no id", t.Profile.OrdersTool)
		}
		status, _ := rowString(o, "status")
		switch status {
		case "filled", "cancelled", "canceled", "rejected", "expired":
			continue
		}
		sym, _ := rowString(o, "symbol")
		out = append(out, Order{ID: id, Symbol: sym, Status: StatusAccepted, Reply: o})
	}
	return out, nil
}

// PlaceOrder implements Broker: the agent's arguments go to the order tool verbatim.
func (t *ToolBroker) PlaceOrder(ctx context.Context, req OrderRequest) (Order, error) {
	tool := req.Tool
	if tool == "" {
		tool = t.Profile.PlaceTool
	}
	args := req.Args
	if args == nil {
		return Order{}, Rejected("a tool-shaped broker needs the order's tool arguments")
	}
	reply, err := t.Caller.CallTool(ctx, tool, args)
	if err != nil {
		return Order{}, Indeterminate(err)
	}
	o, ok := reply.(*jsonv.Object)
	if !ok {
		reply = jsonv.ObjectOf("raw", reply)
		o = reply.(*jsonv.Object)
	}
	if IsErrorEnvelope(o) {
		return Order{Reply: reply}, &BrokerError{Class: ErrRejected, Msg: EnvelopeError(o, "broker forward returned an error")}
	}
	id, _ := rowString(o, "order_id")
	if id == "" {
		id, _ = rowString(o, "id")
	}
	return Order{ID: id, ClientOrderID: req.ClientOrderID, Symbol: req.Symbol, Side: req.Side,
		Status: StatusAccepted, Reply: reply, CreatedAt: t.now()}, nil
}

// CancelOrder implements Broker.
func (t *ToolBroker) CancelOrder(ctx context.Context, orderID string) error {
	reply, err := t.Caller.CallTool(ctx, t.Profile.CancelTool, jsonv.ObjectOf("order_id", orderID))
	if err != nil {
		return Indeterminate(err)
	}
	if o, ok := reply.(*jsonv.Object); ok && IsErrorEnvelope(o) {
		return Rejected(EnvelopeError(o, "cancel returned an error"))
	}
	return nil
}

// errNoClientIDs reports that the broker cannot look orders up by our client order id.
var errNoClientIDs = errors.New("this broker cannot look orders up by client order id")

// OrderByClientID implements Broker: tool-shaped brokers do not carry our client order ids,
// so an indeterminate forward stays indeterminate until an operator reconciles it.
func (t *ToolBroker) OrderByClientID(context.Context, string) (Order, error) {
	return Order{}, errNoClientIDs
}

// Subscribe implements Broker: tool-shaped brokers do not stream; the channel closes with ctx.
func (t *ToolBroker) Subscribe(ctx context.Context) <-chan OrderUpdate {
	ch := make(chan OrderUpdate)
	go func() { <-ctx.Done(); close(ch) }()
	return ch
}
