package mcpbroker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// HasBars reports whether the broker's profile can read recent bars.
func (b *Broker) HasBars() bool { return b.Profile.BarsTool != "" }

// Bars reads n closing prices of symbol spaced every, oldest first, through the profile's
// bars tool ({"symbol", "timeframe", "limit"}; Alpaca's timeframe spelling). Every row must
// carry a positive close ("c" or "close"), or the read is an error.
func (b *Broker) Bars(ctx context.Context, symbol string, n int, every time.Duration) ([]money.Amount, error) {
	tool := b.Profile.BarsTool
	if tool == "" {
		return nil, errors.New("this broker's profile reads no bars")
	}
	tf, err := Timeframe(every)
	if err != nil {
		return nil, err
	}
	reply, err := b.CallTool(ctx, tool, jsonv.ObjectOf("symbol", symbol, "timeframe", tf, "limit", jsonv.Number(fmt.Sprint(n))))
	if err != nil {
		return nil, live.Transport(err)
	}
	return parseBars(reply, symbol)
}

// Timeframe spells a bar spacing the way Alpaca does: 1Min…59Min, 1Hour…23Hour, 1Day.
func Timeframe(every time.Duration) (string, error) {
	switch {
	case every == 24*time.Hour:
		return "1Day", nil
	case every >= time.Hour && every < 24*time.Hour && every%time.Hour == 0:
		return fmt.Sprintf("%dHour", every/time.Hour), nil
	case every >= time.Minute && every < time.Hour && every%time.Minute == 0:
		return fmt.Sprintf("%dMin", every/time.Minute), nil
	}
	return "", fmt.Errorf("bars every %s: want whole minutes, hours or one day", every)
}

// ParseTimeframe reads a timeframe written by Timeframe.
func ParseTimeframe(tf string) (time.Duration, error) {
	for suffix, unit := range map[string]time.Duration{"Min": time.Minute, "Hour": time.Hour, "Day": 24 * time.Hour} {
		if n, ok := strings.CutSuffix(tf, suffix); ok {
			var k int
			if _, err := fmt.Sscanf(n, "%d", &k); err == nil && k > 0 && fmt.Sprint(k) == n {
				return time.Duration(k) * unit, nil
			}
		}
	}
	return 0, fmt.Errorf("timeframe %q: want e.g. 1Min, 1Hour, 1Day", tf)
}

// parseBars reads the rows under "bars" (a list, or an object keyed by symbol) or a bare list.
func parseBars(reply any, symbol string) ([]money.Amount, error) {
	if o, ok := reply.(*jsonv.Object); ok {
		if live.IsErrorEnvelope(o) {
			return nil, live.Rejected(live.EnvelopeError(o, "bars read failed"))
		}
		reply = o.Value("bars")
		if by, ok := reply.(*jsonv.Object); ok {
			reply = by.Value(strings.ToUpper(symbol))
		}
	}
	rows, ok := reply.([]any)
	if !ok || len(rows) == 0 {
		return nil, fmt.Errorf("no bars for %s", symbol)
	}
	out := make([]money.Amount, len(rows))
	for i, r := range rows {
		row, ok := r.(*jsonv.Object)
		if !ok {
			return nil, fmt.Errorf("bar %d is %s", i, jsonv.TypeName(r))
		}
		v, ok := row.Get("c")
		if !ok {
			v, ok = row.Get("close")
		}
		a, err := live.DecimalFromJSON(v)
		if !ok || err != nil || a.Sign() <= 0 {
			return nil, fmt.Errorf("bar %d has no positive close", i)
		}
		out[i] = a
	}
	return out, nil
}
