package alpaca

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/alpacahq/alpaca-trade-api-go/v3/marketdata"

	"cockpit/live"
	"cockpit/live/money"
)

// Bars returns the last n closes of symbol, oldest first, at the bar size nearest every
// (minutes up to an hour, then hours, then days); the strategy agent reads them through the
// get_bars tool. Prices go from float64 to money through their decimal text.
func (b *Broker) Bars(ctx context.Context, symbol string, n int, every time.Duration) ([]money.Amount, error) {
	if n <= 0 {
		return nil, live.Rejected("bars: count must be positive")
	}
	tf := marketdata.OneDay
	switch {
	case every < time.Hour:
		tf = marketdata.NewTimeFrame(max(1, int(every/time.Minute)), marketdata.Min)
	case every < 24*time.Hour:
		tf = marketdata.NewTimeFrame(int(every/time.Hour), marketdata.Hour)
	}
	c, err := b.newCall(ctx)
	if err != nil {
		return nil, err
	}
	look := max(7*24*time.Hour, time.Duration(n)*max(every, time.Minute)*5) // weekends and closed hours
	bars, err := c.data.GetBars(symbol, marketdata.GetBarsRequest{TimeFrame: tf, Start: b.cfg.Now().Add(-look),
		TotalLimit: n, Sort: marketdata.SortDesc, Feed: marketdata.Feed(b.cfg.Feed)})
	if err = b.done(c, err, false); err != nil {
		return nil, err
	}
	out := make([]money.Amount, 0, len(bars))
	for _, bar := range bars {
		px, err := price(bar.Close)
		if err != nil {
			return nil, live.Transport(fmt.Errorf("%s bar: %w", symbol, err))
		}
		out = append(out, px)
	}
	slices.Reverse(out)
	return out, nil
}
