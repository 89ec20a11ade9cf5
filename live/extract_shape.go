package live

import (
	"fmt"

	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// InferInstrument is the instrument type of place_order arguments that name none: a legs
// list or an OCC symbol is an option, a "/" currency pair is crypto, anything else an
// equity (as before).
func InferInstrument(args *jsonv.Object) InstrumentType {
	if args.Has("legs") {
		return Option
	}
	s, _ := rowString(args, "symbol")
	sym := pystr.Upper(pystr.Strip(s))
	if _, err := ParseOCC(sym); err == nil {
		return Option
	}
	if slashPair(sym) {
		return Crypto
	}
	return Equity
}

// applyShape completes a generic intent with its instrument's shape: a crypto pair's symbol
// is put in BASE/QUOTE form, and a legs list becomes a multi-leg intent (booked under
// LegsSymbol, side buy). Legs that cannot be read leave the intent Invalid, naming the field.
func applyShape(args *jsonv.Object, in *OrderIntent) {
	if in.InstrumentType == Crypto && !args.Has("legs") {
		if i, err := ClassifyInstrument(in.Symbol, Crypto); err == nil {
			in.Symbol = i.Symbol
		}
	}
	v, ok := args.Get("legs")
	if !ok {
		return
	}
	legs, err := legsFromJSON(v)
	if err == nil && (args.Has("symbol") || args.Has("side")) {
		err = fmt.Errorf("legs: a multi-leg order names its symbols and sides in its legs, not at the top")
	}
	if err != nil {
		in.Invalid = shapeInvalid(joinInvalid(in.Invalid, err.Error()).Error())
		return
	}
	ml := MultiLegIntent(in.Quantity, legs)
	in.Symbol, in.Side, in.Legs = ml.Symbol, ml.Side, ml.Legs
}

// legsFromJSON reads a legs list: objects with symbol, side, ratio_qty (a positive whole
// number; required, never assumed) and optional position_intent.
func legsFromJSON(v any) ([]Leg, error) {
	rows, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("legs is %s, not a list", jsonv.TypeName(v))
	}
	legs := make([]Leg, 0, len(rows))
	for i, r := range rows {
		o, ok := r.(*jsonv.Object)
		if !ok {
			return nil, fmt.Errorf("legs[%d] is %s, not an object", i, jsonv.TypeName(r))
		}
		var l Leg
		l.Symbol, _ = rowString(o, "symbol")
		side, _ := rowString(o, "side")
		l.Side = pystr.Lower(pystr.Strip(side))
		l.PositionIntent, _ = rowString(o, "position_intent")
		rv, ok := o.Get("ratio_qty")
		if !ok {
			return nil, fmt.Errorf("legs[%d].ratio_qty is missing", i)
		}
		ratio, err := DecimalFromJSON(rv)
		if err != nil {
			return nil, fmt.Errorf("legs[%d].ratio_qty: %v", i, err)
		}
		l.Ratio = ratio
		legs = append(legs, l)
	}
	return legs, ValidateLegs(legs)
}

// shapeInvalid is an intent's Invalid error when its shape is unknown: it matches ErrShape,
// so the gate refuses the order as a shape breach before trying to price it.
type shapeInvalid string

func (e shapeInvalid) Error() string { return ErrShape.Error() + ": " + string(e) }

// Is matches ErrShape.
func (e shapeInvalid) Is(target error) bool { return target == ErrShape }
