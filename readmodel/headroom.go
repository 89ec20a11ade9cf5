package readmodel

import (
	"fmt"
	"math"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/money"
)

// Gross is the gross exposure the gate would count: positions plus resting orders in their
// worst direction, valued at the snapshot's quotes (positions alone when a resting order
// cannot be priced; the gate itself then fails closed).
func (s *Snapshot) Gross() money.Amount {
	rows := make([]live.Exposure, len(s.Positions))
	for i, p := range s.Positions {
		rows[i] = live.Exposure{Symbol: p.Symbol, Net: p.MarketValue}
	}
	book := live.BookFromExposures(rows).WithOpenOrders(s.Orders, func(sym string) (money.Amount, error) {
		if q, ok := s.Quotes[sym]; ok {
			if p := q.ValuationPrice(live.Buy); p.Sign() > 0 {
				return p, nil
			}
		}
		return money.Zero, fmt.Errorf("no quote for %s", sym)
	})
	if book.Err != nil {
		return live.BookFromExposures(rows).Gross()
	}
	return book.Gross()
}

// LargestResting is the largest notional among the open orders, valued at the order's own
// notional or limit price, else at the snapshot's quote (zero when it cannot be priced): a
// per-order breach is live only while that order rests.
func (s *Snapshot) LargestResting() money.Amount {
	top := money.Zero
	for _, o := range s.Orders {
		n := money.Zero
		switch {
		case o.Notional != nil:
			n = *o.Notional
		case o.Quantity != nil && o.LimitPrice != nil:
			n = o.Quantity.Mul(*o.LimitPrice)
		case o.Quantity != nil:
			if q, ok := s.Quotes[o.Symbol]; ok {
				n = o.Quantity.Mul(q.ValuationPrice(o.Side))
			}
		}
		if n = n.Abs(); n.Cmp(top) > 0 {
			top = n
		}
	}
	return top
}

// BookUnread reports a snapshot whose book was not read: its exposure levels are unknown,
// not zero.
func (s *Snapshot) BookUnread() bool { return s.BrokerErr != "" && len(s.Positions) == 0 }

// Usage is the headroom of every mandate limit as a ratio used / limit (1 is at the cap; a
// cap of 0 with anything used is +Inf), by the limit's mandate name. A limit whose level is
// unknown (the book or the equity was not read) is left out; nil without a mandate.
func (s *Snapshot) Usage() map[string]float64 {
	if s.Mandate == nil {
		return nil
	}
	c := s.Mandate.HardCaps
	out := map[string]float64{live.LimitTradesPerDay: ratio(money.FromInt(int64(s.OrdersToday)), money.FromInt(int64(c.MaxTradesPerDay)))}
	if !s.BookUnread() {
		gross := s.Gross()
		lev := money.Zero
		if c.AccountFundingUSD.Sign() > 0 {
			lev = gross.Div(c.AccountFundingUSD)
		}
		out[live.LimitOrderNotional] = ratio(s.LargestResting(), c.MaxOrderNotionalUSD)
		out[live.LimitTotalExposure] = ratio(gross, c.MaxTotalExposureUSD)
		out[live.LimitLeverage] = ratio(lev, c.MaxLeverage)
		out[live.LimitFunding] = ratio(gross, c.AccountFundingUSD)
	}
	if s.LossErr == "" {
		for _, g := range s.Loss {
			out[g.Limit] = ratio(g.Used, g.Value)
		}
	}
	return out
}

func ratio(used, limit money.Amount) float64 {
	switch {
	case limit.Sign() > 0:
		return used.Float64() / limit.Float64()
	case used.Sign() > 0:
		return math.Inf(1)
	}
	return 0
}

// HaltScopes says which halts are in force for the snapshot's broker: the global HALT file,
// the broker's own HALT file (an unreadable one counts as set), and the owner's latch.
func (s *Snapshot) HaltScopes(root live.Root) map[string]bool {
	return map[string]bool{
		"global": halt.ScopeSet(root, live.HaltSentinel, live.GlobalScope),
		"broker": halt.ScopeSet(root, live.HaltSentinel, live.BrokerScope(s.Broker)),
		"latch":  s.OwnerHalt != "",
	}
}
