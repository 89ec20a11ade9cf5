package live

import (
	"fmt"
	"strings"

	"cockpit/live/money"
	"cockpit/live/pystr"
)

// Leg is one leg of a multi-leg option order (Alpaca's order_class "mleg").
type Leg struct {
	Symbol         string       // OCC option symbol
	Side           string       // buy or sell
	Ratio          money.Amount // ratio_qty: contracts per unit of the order's quantity, whole, ≥ 1
	PositionIntent string       // as given (buy_to_open, …); forwarded, not checked
}

// MaxLegs is the most legs a multi-leg order may have.
const MaxLegs = 4

// ValidateLegs checks a multi-leg order's legs: 2 to MaxLegs legs, each a valid OCC symbol,
// side buy or sell, a whole ratio ≥ 1, no symbol twice. The error names the leg and field.
func ValidateLegs(legs []Leg) error {
	if len(legs) < 2 || len(legs) > MaxLegs {
		return fmt.Errorf("legs: %d legs, want 2 to %d", len(legs), MaxLegs)
	}
	seen := map[string]bool{}
	for i, l := range legs {
		if err := symbolError(l.Symbol); err != nil {
			return fmt.Errorf("legs[%d].%w", i, err)
		}
		sym := pystr.Upper(pystr.Strip(l.Symbol))
		if _, err := ParseOCC(sym); err != nil {
			return fmt.Errorf("legs[%d].symbol %s is not an OCC option symbol: %v", i, pystr.Repr(l.Symbol), err)
		}
		if seen[sym] {
			return fmt.Errorf("legs[%d].symbol %s appears twice", i, sym)
		}
		seen[sym] = true
		if l.Side != Buy && l.Side != Sell {
			return fmt.Errorf("legs[%d].side %s is not buy or sell", i, pystr.Repr(l.Side))
		}
		if !l.Ratio.IsInteger() || l.Ratio.Sign() <= 0 {
			return fmt.Errorf("legs[%d].ratio_qty %s is not a whole number of at least 1", i, l.Ratio)
		}
	}
	return nil
}

// LegsSymbol is the key a multi-leg order is booked under: its leg symbols joined by "+".
// No position carries it, so a spread never counts as reducing an existing position.
func LegsSymbol(legs []Leg) string {
	syms := make([]string, len(legs))
	for i, l := range legs {
		syms[i] = pystr.Upper(pystr.Strip(l.Symbol))
	}
	return strings.Join(syms, "+")
}

// MultiLegIntent is the intent of a multi-leg option order of qty strategy units: booked
// under LegsSymbol with side buy (a spread adds exposure), valued leg by leg (PriceLegs).
func MultiLegIntent(qty *money.Amount, legs []Leg) OrderIntent {
	return OrderIntent{Symbol: LegsSymbol(legs), Side: Buy, Quantity: qty, InstrumentType: Option, Legs: legs}
}

// PriceLegs values a multi-leg order: each leg at its own premium (the price premium returns
// for the leg's symbol and side, per share), and the exposure is the sum of the legs'
// absolute notionals, qty × ratio × 100 × premium. A leg without a positive premium is an
// error: a spread is never valued from some of its legs.
func PriceLegs(qty money.Amount, legs []Leg, premium func(symbol, side string) (money.Amount, error)) (money.Amount, error) {
	if err := ValidateLegs(legs); err != nil {
		return money.Zero, err
	}
	total := money.Zero
	for i, l := range legs {
		sym := pystr.Upper(pystr.Strip(l.Symbol))
		p, err := premium(sym, l.Side)
		if err != nil {
			return money.Zero, fmt.Errorf("legs[%d] %s: %w", i, sym, err)
		}
		if p.Sign() <= 0 {
			return money.Zero, fmt.Errorf("legs[%d] %s: no positive premium", i, sym)
		}
		total = total.Add(qty.Mul(l.Ratio).Mul(OptionContractSize).Mul(p).Abs())
	}
	return total, nil
}

// ImpliedNotional is what a single-instrument quantity order is worth at price: quantity ×
// multiplier × price (a contract of an option is 100 shares at the quoted premium).
func ImpliedNotional(in OrderIntent, price money.Amount) money.Amount {
	if in.Quantity == nil {
		return money.Zero
	}
	return in.Quantity.Mul(Multiplier(in.InstrumentType)).Mul(price)
}
