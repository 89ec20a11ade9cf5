package alpaca

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	sdk "github.com/alpacahq/alpaca-trade-api-go/v3/alpaca"
	"github.com/shopspring/decimal"

	"cockpit/live"
	"cockpit/live/money"
)

// dec converts an exact decimal from the SDK to money through its text.
func dec(d decimal.Decimal) (money.Amount, error) { return money.Parse(d.String()) }

// decPtr converts an optional decimal; nil stays nil.
func decPtr(d *decimal.Decimal) (*money.Amount, error) {
	if d == nil {
		return nil, nil
	}
	a, err := dec(*d)
	return &a, err
}

// toDec converts money to the SDK's decimal through its text; infinities are refused.
func toDec(a *money.Amount) (*decimal.Decimal, error) {
	if a == nil {
		return nil, nil
	}
	if a.IsInf() {
		return nil, fmt.Errorf("%s is not a finite amount", a)
	}
	d, err := decimal.NewFromString(a.String())
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// price converts a market-data float64 through its shortest decimal text, never through
// float arithmetic; NaN, infinities and negatives are errors.
func price(f float64) (money.Amount, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return money.Zero, fmt.Errorf("unusable price %v", f)
	}
	return money.Parse(strconv.FormatFloat(f, 'f', -1, 64))
}

// status maps Alpaca's order statuses; anything not known to be final counts as open, so a
// flatten never calls an unknown state done.
func status(s string) live.OrderStatus {
	switch s {
	case "partially_filled":
		return live.StatusPartial
	case "filled":
		return live.StatusFilled
	case "canceled", "expired", "replaced", "done_for_day":
		return live.StatusCancelled
	case "rejected", "suspended":
		return live.StatusRejected
	}
	return live.StatusAccepted
}

// order converts an SDK order; a money field that does not parse is an error.
func order(o *sdk.Order) (live.Order, error) {
	out := live.Order{ID: o.ID, ClientOrderID: o.ClientOrderID, Symbol: o.Symbol, Side: string(o.Side),
		Type: live.OrderType(o.Type), Status: status(o.Status), CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
	var err error
	if out.Quantity, err = decPtr(o.Qty); err != nil {
		return out, fmt.Errorf("order %s qty: %w", o.ID, err)
	}
	if out.Notional, err = decPtr(o.Notional); err != nil {
		return out, fmt.Errorf("order %s notional: %w", o.ID, err)
	}
	if out.LimitPrice, err = decPtr(o.LimitPrice); err != nil {
		return out, fmt.Errorf("order %s limit price: %w", o.ID, err)
	}
	for _, f := range []struct {
		name string
		src  *decimal.Decimal
		dst  **money.Amount
	}{{"stop price", o.StopPrice, &out.StopPrice}, {"trail price", o.TrailPrice, &out.TrailAmount},
		{"trail percent", o.TrailPercent, &out.TrailPercent}, {"hwm", o.HWM, &out.TrailRef}} {
		if *f.dst, err = decPtr(f.src); err != nil {
			return out, fmt.Errorf("order %s %s: %w", o.ID, f.name, err)
		}
	}
	if out.FilledQty, err = dec(o.FilledQty); err != nil {
		return out, fmt.Errorf("order %s filled qty: %w", o.ID, err)
	}
	if o.FilledAvgPrice != nil {
		if out.AvgFillPrice, err = dec(*o.FilledAvgPrice); err != nil {
			return out, fmt.Errorf("order %s fill price: %w", o.ID, err)
		}
	}
	return out, nil
}

// position converts an SDK position: quantity and market value signed (short negative).
func position(p sdk.Position) (live.Position, error) {
	out := live.Position{Symbol: p.Symbol}
	if p.AssetClass == sdk.Crypto { // Alpaca reports BTCUSD; orders and the book say BTC/USD
		if inst, err := live.ClassifyInstrument(p.Symbol, live.Crypto); err == nil {
			out.Symbol = inst.Symbol
		}
	}
	var err error
	if out.Qty, err = dec(p.Qty); err != nil {
		return out, fmt.Errorf("position %s qty: %w", p.Symbol, err)
	}
	if strings.EqualFold(p.Side, "short") && out.Qty.Sign() > 0 {
		out.Qty = out.Qty.Neg()
	}
	if out.AvgPrice, err = dec(p.AvgEntryPrice); err != nil {
		return out, fmt.Errorf("position %s avg price: %w", p.Symbol, err)
	}
	switch {
	case p.MarketValue != nil:
		if out.MarketValue, err = dec(*p.MarketValue); err != nil {
			return out, fmt.Errorf("position %s market value: %w", p.Symbol, err)
		}
	case p.CurrentPrice != nil:
		px, err := dec(*p.CurrentPrice)
		if err != nil {
			return out, fmt.Errorf("position %s price: %w", p.Symbol, err)
		}
		out.MarketValue = out.Qty.Mul(px)
	default:
		return out, fmt.Errorf("position %s has neither a market value nor a price", p.Symbol)
	}
	if out.Qty.Sign() < 0 && out.MarketValue.Sign() > 0 {
		out.MarketValue = out.MarketValue.Neg()
	}
	if p.UnrealizedPL != nil {
		if out.UnrealizedPnL, err = dec(*p.UnrealizedPL); err != nil {
			return out, fmt.Errorf("position %s unrealized P&L: %w", p.Symbol, err)
		}
	}
	return out, nil
}

// Instrument maps an Alpaca asset class to live's instrument type: us_equity is equity
// (Alpaca does not tell an ETF apart), crypto is crypto, us_option is option; anything else
// is "" (unknown, refused).
func Instrument(assetClass string) live.InstrumentType {
	switch assetClass {
	case "us_equity":
		return live.Equity
	case "crypto":
		return live.Crypto
	case "us_option":
		return live.Option
	}
	return ""
}
