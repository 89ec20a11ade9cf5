package live

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// OrderType is market, limit, stop, stop-limit or trailing stop.
type OrderType string

// Order types.
const (
	Market       OrderType = "market"
	Limit        OrderType = "limit"
	Stop         OrderType = "stop"          // a market order once the stop price trades
	StopLimit    OrderType = "stop_limit"    // a limit order once the stop price trades
	TrailingStop OrderType = "trailing_stop" // a stop that trails the price by an amount or a percent
)

// OrderStatus is where an order is in its life.
type OrderStatus string

// Order statuses.
const (
	StatusAccepted  OrderStatus = "accepted" // resting or working
	StatusPartial   OrderStatus = "partially_filled"
	StatusFilled    OrderStatus = "filled"
	StatusCancelled OrderStatus = "cancelled"
	StatusRejected  OrderStatus = "rejected"
)

// Open reports whether an order can still fill.
func (s OrderStatus) Open() bool { return s == StatusAccepted || s == StatusPartial }

// Quote is a broker's top of book.
type Quote struct {
	Symbol string
	Bid    money.Amount
	Ask    money.Amount
	Last   money.Amount
	Time   time.Time // when the quote was observed
}

// ValuationPrice is the price the gate values an order at: the larger of the last trade and
// the side's touch (ask for buys, bid for sells), so a cap binds conservatively. Zero when
// the quote carries no positive price.
func (q Quote) ValuationPrice(side string) money.Amount {
	p := money.Zero
	if q.Last.Sign() > 0 {
		p = q.Last
	}
	touch := q.Ask
	if side == Sell {
		touch = q.Bid
	}
	if touch.Sign() > 0 {
		p = money.Max(p, touch)
	}
	return p
}

// Position is one holding. MarketValue is signed (short negative) and is what exposure caps
// count.
type Position struct {
	Symbol        string
	Qty           money.Amount // signed
	AvgPrice      money.Amount
	MarketValue   money.Amount // signed
	RealizedPnL   money.Amount
	UnrealizedPnL money.Amount
	// QtyUnknown marks a row the broker gave a value and no quantity for (the reference
	// values it by market_value): its exposure counts, but nothing can close it by quantity
	// (Qty is zero and means nothing).
	QtyUnknown bool
}

// Open reports whether the position is held: a non-zero quantity, or a non-zero value whose
// quantity is unknown.
func (p Position) Open() bool {
	return p.Qty.Sign() != 0 || (p.QtyUnknown && !p.MarketValue.IsZero())
}

// Account is the broker's money view.
type Account struct {
	Cash        money.Amount
	Equity      money.Amount
	BuyingPower money.Amount
}

// OrderRequest is what the gate forwards to a broker.
type OrderRequest struct {
	ClientOrderID string // idempotency key: a resend with the same id returns the original order
	Symbol        string
	Side          string // buy or sell
	Type          OrderType
	Quantity      *money.Amount
	Notional      *money.Amount
	LimitPrice    *money.Amount
	StopPrice     *money.Amount `json:",omitempty"` // stop and stop-limit orders' trigger
	TrailAmount   *money.Amount `json:",omitempty"` // a trailing stop's trail in price units
	TrailPercent  *money.Amount `json:",omitempty"` // a trailing stop's trail in percent
	ReduceOnly    bool
	Instrument    InstrumentType `json:",omitempty"` // the order's instrument type
	Legs          []Leg          `json:",omitempty"` // a multi-leg option order's legs
	// Replaces is the id of the resting order this one replaces: the gate checks the new
	// order with the old one's resting exposure swapped out (see ReplaceRaises).
	Replaces string `json:",omitempty"`
	// Tool and Args carry a tool-shaped call (an MCP broker): the agent's original arguments,
	// forwarded verbatim to the remote tool.
	Tool string
	Args *jsonv.Object
}

// Order is a broker's view of an order.
type Order struct {
	ID            string
	ClientOrderID string
	Symbol        string
	Side          string
	Type          OrderType
	Quantity      *money.Amount
	Notional      *money.Amount
	LimitPrice    *money.Amount
	StopPrice     *money.Amount `json:",omitempty"` // a stop or stop-limit's trigger; a trailing stop's current stop
	TrailAmount   *money.Amount `json:",omitempty"` // a trailing stop's trail in price units
	TrailPercent  *money.Amount `json:",omitempty"` // a trailing stop's trail in percent
	// TrailRef is a trailing stop's best price since it was placed (the highest for a sell,
	// the lowest for a buy), which its stop follows; Triggered says a stop's trigger traded
	// (a stop-limit then rests as a limit order).
	TrailRef     *money.Amount `json:",omitempty"`
	Triggered    bool          `json:",omitempty"`
	ReduceOnly   bool
	FilledQty    money.Amount
	AvgFillPrice money.Amount
	Status       OrderStatus
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Reply        any // the broker's raw reply (tool-shaped brokers), for the audit
	// Children is how many further orders the broker created with this one (a bracket's
	// take-profit and stop-loss, an OCO's other leg; see ChildOrders). Each counts for the day.
	Children int
}

// OrderUpdate is a change to an order: a fill, a cancel, a rejection.
type OrderUpdate struct {
	Order    Order
	FillQty  money.Amount // zero unless this update is a fill
	FillPx   money.Amount
	Fee      money.Amount // the fill's fee, when the broker reports one (none of today's adapters do)
	Time     time.Time
	Sequence uint64
}

// Broker is a trading venue. Implementations return errors that wrap ErrRejected (the broker
// said no), ErrTransport (the request did not reach the broker) or ErrIndeterminate (it may
// have reached the broker; the outcome is unknown and must be reconciled by client order id).
type Broker interface {
	Name() string
	Quote(ctx context.Context, symbol string) (Quote, error)
	Positions(ctx context.Context) ([]Position, error)
	Account(ctx context.Context) (Account, error)
	OpenOrders(ctx context.Context) ([]Order, error)
	PlaceOrder(ctx context.Context, req OrderRequest) (Order, error)
	CancelOrder(ctx context.Context, orderID string) error
	// OrderByClientID finds an order by its client order id; ErrOrderNotFound when the
	// broker never saw it.
	OrderByClientID(ctx context.Context, clientOrderID string) (Order, error)
	// Subscribe streams order updates until ctx ends. Slow readers may miss updates; the
	// broker never blocks on them (OpenOrders and Positions are the truth).
	Subscribe(ctx context.Context) <-chan OrderUpdate
}

// Sizer is implemented by brokers whose instruments need their own sizing (contract or lot
// sizes): its notional for a quantity is authoritative and no quote is consulted.
type Sizer interface {
	NotionalFor(ctx context.Context, symbol string, qty money.Amount) (money.Amount, error)
}

// Broker error classes.
var (
	ErrRejected      = errors.New("rejected by broker")
	ErrTransport     = errors.New("broker unreachable")
	ErrIndeterminate = errors.New("order outcome unknown")
	ErrOrderNotFound = errors.New("order not found")
)

// BrokerError is a classified broker failure with the broker's own message.
type BrokerError struct {
	Class error // ErrRejected, ErrTransport or ErrIndeterminate
	Msg   string
	Err   error // underlying cause, may be nil
}

func (e *BrokerError) Error() string {
	if e.Msg == "" {
		return e.Class.Error()
	}
	return fmt.Sprintf("%v: %s", e.Class, e.Msg)
}

// Is matches the error's class.
func (e *BrokerError) Is(target error) bool { return target == e.Class }

// Unwrap returns the cause.
func (e *BrokerError) Unwrap() error { return e.Err }

// Rejected returns a broker rejection with the broker's message.
func Rejected(msg string) error { return &BrokerError{Class: ErrRejected, Msg: msg} }

// Transport returns a failure to reach the broker (nothing was sent).
func Transport(err error) error { return &BrokerError{Class: ErrTransport, Msg: err.Error(), Err: err} }

// Indeterminate returns a failure after the request may have reached the broker.
func Indeterminate(err error) error {
	return &BrokerError{Class: ErrIndeterminate, Msg: err.Error(), Err: err}
}
