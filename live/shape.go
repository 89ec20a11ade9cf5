package live

import (
	"errors"
	"fmt"
	"slices"

	"cockpit/live/pystr"
)

// ErrShape marks an order whose shape the gate does not recognise.
var ErrShape = errors.New("unrecognised order shape")

// ShapeError checks that an intent's shape is one the gate knows how to price: its symbol
// has its instrument type's shape (ClassifyInstrument); an option order is a whole number of
// contracts (never a dollar amount); a multi-leg order is options only with valid legs. The
// error names the field. An intent Invalid for another reason is left to CheckMandate.
func ShapeError(in OrderIntent) error {
	if in.Invalid != nil {
		if errors.Is(in.Invalid, ErrShape) {
			return in.Invalid
		}
		return nil
	}
	if len(in.Legs) > 0 {
		if in.InstrumentType != Option {
			return fmt.Errorf("%w: legs: a multi-leg order must be options, not %s", ErrShape, in.InstrumentType)
		}
		if err := ValidateLegs(in.Legs); err != nil {
			return fmt.Errorf("%w: %v", ErrShape, err)
		}
		if in.NormalizedSymbol() != LegsSymbol(in.Legs) {
			return fmt.Errorf("%w: symbol %s is not the legs' symbol %s", ErrShape, in.NormalizedSymbol(), LegsSymbol(in.Legs))
		}
	} else if _, err := ClassifyInstrument(in.Symbol, in.InstrumentType); err != nil {
		return fmt.Errorf("%w: %v", ErrShape, err)
	}
	if in.InstrumentType == Option {
		switch {
		case in.Quantity == nil:
			return fmt.Errorf("%w: quantity: an option order needs a number of contracts", ErrShape)
		case !in.Quantity.IsInteger() || in.Quantity.Sign() <= 0:
			return fmt.Errorf("%w: quantity %s is not a whole number of contracts", ErrShape, in.Quantity)
		}
	}
	return nil
}

// ShapeBreach is the structural breach of an intent ShapeError refuses (kind instrument,
// limit order_intent), or, for an option, multi-leg or crypto order whose underlying (the
// option root, the pair's base asset) is on the mandate's exclude list, the universe breach
// exclude_symbols: excluding GME excludes GME's options, excluding BTC excludes BTC/USD.
// Nil when the shape is known and no underlying is excluded, and nil for an instrument type
// the mandate does not allow: CheckMandate denies that as allowed_instruments, as before.
func ShapeBreach(m *Mandate, in OrderIntent) *Breach {
	if m != nil && in.Invalid == nil && !slices.Contains(m.HardCaps.AllowedInstruments, in.InstrumentType) {
		return nil // CheckMandate denies it as allowed_instruments, the reference's reason
	}
	if err := ShapeError(in); err != nil {
		return &Breach{Kind: KindInstrument, Limit: LimitOrderIntent, Detail: ErrShape.Error(), Cause: unwrapShape(err)}
	}
	if m == nil {
		return nil
	}
	for _, root := range underlyings(in) {
		if slices.ContainsFunc(m.Universe.ExcludeSymbols, func(s string) bool { return pystr.Upper(pystr.Strip(s)) == root }) {
			return structural(KindUniverse, LimitExcludeSymbols, root+" is on the mandate exclude list")
		}
	}
	return nil
}

// underlyings are the option roots of an option intent's contracts, or a crypto pair's base.
func underlyings(in OrderIntent) []string {
	if in.InstrumentType == Crypto {
		if i, err := ClassifyInstrument(in.Symbol, Crypto); err == nil {
			return []string{i.Base}
		}
	}
	if in.InstrumentType != Option {
		return nil
	}
	syms := []string{in.NormalizedSymbol()}
	if len(in.Legs) > 0 {
		syms = syms[:0]
		for _, l := range in.Legs {
			syms = append(syms, pystr.Upper(pystr.Strip(l.Symbol)))
		}
	}
	var roots []string
	for _, s := range syms {
		if c, err := ParseOCC(s); err == nil && !slices.Contains(roots, c.Root) {
			roots = append(roots, c.Root)
		}
	}
	return roots
}

// unwrapShape drops the ErrShape prefix, leaving the part that names the field.
func unwrapShape(err error) string {
	msg := err.Error()
	prefix := ErrShape.Error() + ": "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		return msg[len(prefix):]
	}
	return msg
}
