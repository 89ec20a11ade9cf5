package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// whatIf runs the runtime's gate (session.Runtime.Gate) in dry-run mode for one order on
// broker b: every step the gate takes up to the forward, nothing sent, counted or audited.
// `check` and `check --live` differ only in b: the offline book of the flags, or the broker.
func (a *App) whatIf(rt *runtime, b live.Broker, key string, intent live.OrderIntent, id string, explain_ bool) int {
	days, done := a.whatIfDays(rt)
	defer done()
	d := rt.gate(days).Submit(context.Background(), gate.Submission{Broker: b, BrokerKey: key, Intent: &intent,
		Order: live.OrderRequest{Type: live.Market}, Actor: live.Operator(operatorName(), "cli"), DryRun: true})
	res := live.WhatIfResult{ID: id, Verdict: d.Verdict, Breach: d.Breach, Loss: d.Loss}
	if d.Denial != nil {
		res.Breach = live.DenialBreach(d.Denial)
		if ob, ok := b.(*offlineBook); ok && d.Denial.Code == live.ReasonNoQuote && res.Breach.Cause == "" {
			res.Breach.Cause = ob.noQuote(intent.NormalizedSymbol())
		}
		if lb := lossBreach(d); lb != nil { // the loss step's refusal as check --batch words it
			res.Breach = lb
		}
	}
	out := res.JSON()
	if d.Intent != nil && d.Intent.NotionalUSD != nil {
		out.Set("valued_notional", live.EncodeAmount(*d.Intent.NotionalUSD))
	}
	out.Set("orders_today", jsonv.Number(fmt.Sprint(d.Count)))
	a.printJSON(out)
	if explain_ {
		fmt.Fprintln(a.Stderr, explain(res))
	}
	if res.Verdict != live.Allow {
		return exitNotAllow
	}
	return exitOK
}

// lossBreach is a loss-limit denial as a what-if breach (kind loss_limit with the limit, its
// value and the loss used; kind data naming the limit when the equity is unknown), nil for
// any other decision.
func lossBreach(d gate.Decision) *live.Breach {
	if d.Loss == nil || d.Denial == nil || (d.Denial.Code != live.ReasonLossLimit && d.Denial.Code != live.ReasonEquityUnknown) {
		return nil
	}
	return d.Loss.Breach(true) // the gate denied: the order adds exposure, or a limit is crossed
}

// whatIfDays is the fleet's day count for a what-if when a fleet is configured, so that the
// dry run counts the day as the gate does; a fleet that does not answer is one whose count
// is unknown, which the gate denies (fleet_unavailable).
func (a *App) whatIfDays(rt *runtime) (live.DayReserver, func()) {
	if !rt.Config.Fleet.Enabled() {
		return nil, func() {}
	}
	f, _, err := a.dialFleet(rt.Root, 3*time.Second)
	if err != nil {
		return downFleet{err}, func() {}
	}
	return &fleet.Days{F: f}, f.Close
}

// downFleet is a configured fleet this process could not reach: its count is unknown.
type downFleet struct{ err error }

func (f downFleet) Reserve(context.Context, string, string) (int, error) { return 0, f.err }
func (f downFleet) Release(context.Context, string, string) error        { return f.err }
func (f downFleet) Count(context.Context, string, string) (int, error)   { return 0, f.err }

// offlineBook is the broker of an offline `check`: the book the flags describe (--positions,
// no resting orders) and the price --price gives; it never places or cancels anything (a dry
// run does not reach the forward).
type offlineBook struct {
	key       string
	positions any                                   // the --positions payload, read with the reference's rules
	price     *money.Amount                         // --price, nil when not given
	equity    *money.Amount                         // --equity, nil when not given (the loss limits then deny what adds exposure)
	marks     func() (live.EquityMark, bool, error) // the broker's durable day mark, read only
	now       func() time.Time
}

var _ live.Broker = (*offlineBook)(nil)

func (o *offlineBook) noQuote(sym string) string {
	return fmt.Sprintf("an offline check has no quote for %s: give --price (or --live to ask the broker)", sym)
}

// Name implements live.Broker.
func (o *offlineBook) Name() string { return o.key }

// Quote implements live.Broker: --price, as of now; without it there is no quote.
func (o *offlineBook) Quote(_ context.Context, sym string) (live.Quote, error) {
	if o.price == nil {
		return live.Quote{}, errors.New(o.noQuote(sym))
	}
	return live.Quote{Symbol: sym, Last: *o.price, Time: o.now()}, nil
}

// Positions implements live.Broker: the --positions payload; an unreadable one is an error
// (the gate's data denial, DV4).
func (o *offlineBook) Positions(context.Context) ([]live.Position, error) {
	book := live.ParsePositions(o.positions)
	if book.Err != nil {
		return nil, book.Err
	}
	out := make([]live.Position, len(book.Exposures))
	for i, e := range book.Exposures {
		out[i] = live.Position{Symbol: e.Symbol, MarketValue: e.Net}
	}
	return out, nil
}

// Account implements live.Broker: the equity --equity gives (the loss limits' reading; the
// balance is not a mandate limit input); without it the account cannot be read.
func (o *offlineBook) Account(context.Context) (live.Account, error) {
	if o.equity == nil {
		return live.Account{}, errors.New("no equity given: pass --equity E (the account's equity now), or --live to read the broker's")
	}
	return live.Account{Equity: *o.equity}, nil
}

// MarkEquity implements live.EquityMarker without marking anything: an offline check values
// the loss limits at --equity against the broker's durable day mark as it stands (a mark of
// another day counts as none: the equity given is then the day's start), so a what-if never
// moves the mark the gate and the day P&L read.
func (o *offlineBook) MarkEquity(now time.Time, equity money.Amount) (live.EquityMark, error) {
	if o.marks == nil {
		return live.EquityMark{}, errors.New("no day mark to read")
	}
	mark, found, err := o.marks()
	if err != nil {
		return live.EquityMark{}, err
	}
	if !found || mark.Day != live.UTCDay(now) {
		mark = live.EquityMark{Day: live.UTCDay(now), Start: equity, Peak: equity}
	}
	mark.Peak = money.Max(money.Max(mark.Peak, mark.Start), equity)
	return mark, nil
}

// OpenOrders implements live.Broker: an offline book has no resting orders.
func (o *offlineBook) OpenOrders(context.Context) ([]live.Order, error) { return nil, nil }

var errOffline = errors.New("an offline check sends nothing")

// PlaceOrder implements live.Broker; a dry run never calls it.
func (o *offlineBook) PlaceOrder(context.Context, live.OrderRequest) (live.Order, error) {
	return live.Order{}, &live.BrokerError{Class: live.ErrRejected, Msg: errOffline.Error()}
}

// CancelOrder implements live.Broker.
func (o *offlineBook) CancelOrder(context.Context, string) error { return errOffline }

// OrderByClientID implements live.Broker.
func (o *offlineBook) OrderByClientID(context.Context, string) (live.Order, error) {
	return live.Order{}, live.ErrOrderNotFound
}

// Subscribe implements live.Broker: no updates.
func (o *offlineBook) Subscribe(context.Context) <-chan live.OrderUpdate {
	ch := make(chan live.OrderUpdate)
	close(ch)
	return ch
}
