package paper

import (
	"cockpit/live"
	"cockpit/live/money"
)

// Stop orders in the paper market: a stop (or stop-limit) triggers when the last trade reaches
// its stop price (at or above it for a buy, at or below for a sell); a trailing stop's stop
// follows the best last price since it was placed (the highest for a sell, less the trail; the
// lowest for a buy, plus the trail). A triggered stop or trailing stop fills at the touch like
// a market order; a triggered stop-limit rests as a limit order at its limit price. Like
// resting limit orders, they are matched on the prices the broker observes (each call and
// each Run tick), not on every market step in between.

// arm sets up a new trailing stop at tick t (its reference is the last price, its stop the
// reference less or plus the trail) and triggers any stop whose trigger has already traded.
func arm(o *live.Order, t Tick) {
	if o.Type == live.TrailingStop {
		ref := t.Last
		o.TrailRef = &ref
		stop := trailStop(o)
		o.StopPrice = &stop
	}
	advance(o, t)
}

// advance moves a resting stop on to tick t: a trailing stop's reference and stop follow the
// price, and a stop whose trigger traded is marked Triggered. It reports whether the order
// changed (the account must be saved).
func advance(o *live.Order, t Tick) bool {
	if !o.Type.Triggered() || o.Triggered || !o.Status.Open() {
		return false
	}
	changed := false
	if o.Type == live.TrailingStop && o.TrailRef != nil {
		better := (o.Side == live.Sell && t.Last.GreaterThan(*o.TrailRef)) || (o.Side == live.Buy && t.Last.LessThan(*o.TrailRef))
		if better {
			ref := t.Last
			o.TrailRef = &ref
			stop := trailStop(o)
			o.StopPrice = &stop
			changed = true
		}
	}
	if o.StopPrice == nil {
		return changed
	}
	if (o.Side == live.Buy && t.Last.Cmp(*o.StopPrice) >= 0) || (o.Side == live.Sell && t.Last.Cmp(*o.StopPrice) <= 0) {
		o.Triggered = true
		changed = true
	}
	return changed
}

// trailStop is a trailing stop's stop for its reference price.
func trailStop(o *live.Order) money.Amount {
	p := live.OrderPrices{TrailAmount: o.TrailAmount, TrailPercent: o.TrailPercent}
	stop, _ := live.TriggerPrice(live.TrailingStop, o.Side, p, *o.TrailRef)
	return stop
}
