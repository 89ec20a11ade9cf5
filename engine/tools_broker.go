package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// BarSource gives recent closing prices for a symbol (the paper market, a data vendor).
type BarSource func(ctx context.Context, symbol string, n int, every time.Duration) ([]money.Amount, error)

// BrokerTools registers the trading tools: quotes, bars (when bars is set), positions,
// account, open orders, and placing and cancelling orders. Reads call the broker directly;
// place_order and cancel_order are trade tools the engine sends through the gate.
func BrokerTools(r *Registry, b live.Broker, bars BarSource) {
	sym := Param{Name: "symbol", Type: TypeString, Required: true, Description: "ticker, e.g. AAPL"}
	r.Add(&Tool{Name: "get_quote", Description: "Top of book for one symbol: bid, ask, last and when it was observed.",
		Effect: EffectRead, Params: []Param{sym},
		Run: func(ctx context.Context, args *jsonv.Object, _ Policy) (any, error) {
			q, err := b.Quote(ctx, argString(args, "symbol"))
			if err != nil {
				return nil, err
			}
			return quoteJSON(q), nil
		}})
	if bars != nil {
		r.Add(&Tool{Name: "get_bars", Description: "Recent closing prices of one symbol, oldest first.",
			Effect: EffectRead, Params: []Param{sym,
				{Name: "count", Type: TypeInteger, Description: "how many prices (1-500, default 30)"},
				{Name: "every_seconds", Type: TypeInteger, Description: "spacing in seconds (1-86400, default 60)"}},
			Run: func(ctx context.Context, args *jsonv.Object, _ Policy) (any, error) {
				n, err := argInt(args, "count", 30, 1, 500)
				if err != nil {
					return nil, err
				}
				every, err := argInt(args, "every_seconds", 60, 1, 86400)
				if err != nil {
					return nil, err
				}
				s := strings.ToUpper(argString(args, "symbol"))
				px, err := bars(ctx, s, int(n), time.Duration(every)*time.Second)
				if err != nil {
					return nil, err
				}
				closes := make([]any, len(px))
				for i, p := range px {
					closes[i] = jsonv.Number(p.String())
				}
				return jsonv.ObjectOf("symbol", s, "every_seconds", jsonv.Number(fmt.Sprint(every)), "closes", closes), nil
			}})
	}
	r.Add(&Tool{Name: "get_positions", Description: "Open positions with quantity, average price, market value and P&L.",
		Effect: EffectRead, Run: func(ctx context.Context, _ *jsonv.Object, _ Policy) (any, error) {
			ps, err := b.Positions(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]any, len(ps))
			for i, p := range ps {
				var qty any = num(p.Qty)
				if p.QtyUnknown { // the broker gave a value and no quantity: not zero
					qty = nil
				}
				out[i] = jsonv.ObjectOf("symbol", p.Symbol, "quantity", qty, "avg_price", num(p.AvgPrice),
					"market_value", num(p.MarketValue), "unrealized_pnl", num(p.UnrealizedPnL), "realized_pnl", num(p.RealizedPnL))
			}
			return jsonv.ObjectOf("positions", out), nil
		}})
	r.Add(&Tool{Name: "get_account", Description: "Cash, equity and buying power.",
		Effect: EffectRead, Run: func(ctx context.Context, _ *jsonv.Object, _ Policy) (any, error) {
			a, err := b.Account(ctx)
			if err != nil {
				return nil, err
			}
			return jsonv.ObjectOf("cash", num(a.Cash), "equity", num(a.Equity), "buying_power", num(a.BuyingPower)), nil
		}})
	r.Add(&Tool{Name: "get_open_orders", Description: "Orders that can still fill.",
		Effect: EffectRead, Run: func(ctx context.Context, _ *jsonv.Object, _ Policy) (any, error) {
			os, err := b.OpenOrders(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]any, len(os))
			for i, o := range os {
				out[i] = orderJSON(o)
			}
			return jsonv.ObjectOf("orders", out), nil
		}})
	r.Add(&Tool{Name: "place_order", Effect: EffectTrade,
		Description: "Place an order. It passes the mandate's limits; an order over a limit waits for a human or is denied.",
		Params: []Param{sym,
			{Name: "side", Type: TypeString, Required: true, Enum: []string{"buy", "sell"}},
			{Name: "quantity", Type: TypeNumber, Description: "shares, units or option contracts (whole); give quantity or notional"},
			{Name: "notional", Type: TypeNumber, Description: "order size in USD; give quantity or notional"},
			{Name: "type", Type: TypeString, Enum: orderTypes(), Description: "default market; stop, stop_limit and trailing_stop wait for their trigger (a protective stop that only closes a position counts as reducing)"},
			{Name: "limit_price", Type: TypeNumber, Description: "required for limit and stop_limit orders"},
			{Name: "stop_price", Type: TypeNumber, Description: "required for stop and stop_limit orders: the last trade that triggers the order"},
			{Name: "trail_amount", Type: TypeNumber, Description: "trailing_stop: the trail in price units (give this or trail_percent)"},
			{Name: "trail_percent", Type: TypeNumber, Description: "trailing_stop: the trail in percent of the price (give this or trail_amount)"},
			{Name: "instrument_type", Type: TypeString, Enum: instrumentTypes(), Description: "default from the symbol: an OCC symbol is an option, BTC/USD crypto, else equity"},
			{Name: "reason", Type: TypeString, Description: "why, in one sentence (shown to the human reviewer)"},
		}})
	r.Add(&Tool{Name: "cancel_order", Description: "Cancel an open order by its order_id.", Effect: EffectTrade,
		Params: []Param{{Name: "order_id", Type: TypeString, Required: true}}})
}

func orderTypes() []string {
	out := make([]string, len(live.OrderTypes))
	for i, t := range live.OrderTypes {
		out[i] = string(t)
	}
	return out
}

func instrumentTypes() []string {
	out := make([]string, len(live.InstrumentTypes))
	for i, t := range live.InstrumentTypes {
		out[i] = string(t)
	}
	return out
}

// PaperBars reads bars from a paper market's price function.
func PaperBars(history func(sym string, t time.Time, n int, every time.Duration) []money.Amount, now func() time.Time) BarSource {
	return func(_ context.Context, symbol string, n int, every time.Duration) ([]money.Amount, error) {
		px := history(symbol, now(), n, every)
		if len(px) == 0 {
			return nil, fmt.Errorf("no prices for %q", symbol)
		}
		return px, nil
	}
}

func quoteJSON(q live.Quote) *jsonv.Object {
	return jsonv.ObjectOf("symbol", q.Symbol, "bid", num(q.Bid), "ask", num(q.Ask), "last", num(q.Last),
		"time", live.FormatTimestamp(q.Time))
}

func num(a money.Amount) jsonv.Number { return jsonv.Number(a.String()) }

func argString(args *jsonv.Object, key string) string {
	v, _ := args.Get(key)
	s, _ := v.(string)
	return s
}

// argInt reads an optional integer argument within [lo, hi].
func argInt(args *jsonv.Object, key string, def, lo, hi int64) (int64, error) {
	v, ok := args.Get(key)
	if !ok || v == nil {
		return def, nil
	}
	a, err := live.DecimalFromJSON(v)
	if err != nil || !a.IsInteger() {
		return 0, fmt.Errorf("%s must be an integer", key)
	}
	n := a.Int64()
	if n < lo || n > hi {
		return 0, fmt.Errorf("%s = %d: want %d to %d", key, n, lo, hi)
	}
	return n, nil
}
