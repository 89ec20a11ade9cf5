package live

import (
	"errors"
	"fmt"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// Side values an intent may carry (exactly, lower-case).
const (
	Buy  = "buy"
	Sell = "sell"
)

// sides are the side values, for canonical.
var sides = []string{Buy, Sell}

// OrderIntent is what an order would do, as the gate understands it.
type OrderIntent struct {
	Symbol         string         // as given; CheckMandate strips and upper-cases it
	Side           string         // must be exactly "buy" or "sell"
	NotionalUSD    *money.Amount  // nil: not given
	Quantity       *money.Amount  // nil: not given
	InstrumentType InstrumentType // must be valid
	AssetClass     AssetClass     // "" = use the instrument's default bucket
	LimitPrice     *money.Amount  // nil for market orders
	Type           OrderType      // "" when the tool does not say (market, or limit with a limit price)
	StopPrice      *money.Amount  // stop and stop-limit orders' trigger; nil otherwise
	TrailAmount    *money.Amount  // a trailing stop's trail in price units; nil otherwise
	TrailPercent   *money.Amount  // a trailing stop's trail in percent; nil otherwise
	Legs           []Leg          // a multi-leg option order's legs (see MultiLegIntent); nil otherwise
	// Invalid, when set, says why the intent's own fields are unusable (for example a
	// non-finite notional); CheckMandate denies such an intent as instrument/order_intent.
	Invalid error
}

// NormalizedSymbol is the symbol stripped of whitespace and upper-cased (Python semantics).
func (i OrderIntent) NormalizedSymbol() string { return pystr.Upper(pystr.Strip(i.Symbol)) }

// Bucket is the asset class the intent falls in ("" for options and CFDs without one).
func (i OrderIntent) Bucket() AssetClass {
	if i.AssetClass != "" {
		return i.AssetClass
	}
	return DefaultBucket(i.InstrumentType)
}

// Describe renders the intent the way the audit's intent_normalized field does:
// "buy $100 AAPL (equity)" or "sell 3 units AAPL (equity)".
func (i OrderIntent) Describe() string {
	sym := i.NormalizedSymbol()
	switch {
	case i.NotionalUSD != nil:
		return fmt.Sprintf("%s $%s %s (%s)", i.Side, i.NotionalUSD, sym, i.InstrumentType)
	case i.Quantity != nil:
		return fmt.Sprintf("%s %s units %s (%s)", i.Side, i.Quantity, sym, i.InstrumentType)
	}
	return fmt.Sprintf("%s %s (%s)", i.Side, sym, i.InstrumentType)
}

// ErrNonFinite marks a NaN or infinite number in broker or agent data (DV9).
var ErrNonFinite = errors.New("non-finite number")

// ErrNotNumber marks a value that is not a JSON number or a plain decimal string (DV10).
var ErrNotNumber = errors.New("not a number")

// DecimalFromJSON reads a broker or agent number: a JSON number, or a string holding a plain
// decimal (surrounding whitespace allowed). Booleans, "1_000", "nan", "inf" and non-finite
// values are refused (DV9, DV10), as are numbers outside money's bounds.
func DecimalFromJSON(v any) (money.Amount, error) {
	switch t := v.(type) {
	case jsonv.Number:
		a, err := money.Parse(string(t))
		if err != nil {
			return money.Zero, err
		}
		return a, nil
	case string:
		s := pystr.Strip(t)
		a, err := money.Parse(s)
		if err != nil {
			if looksNonFinite(s) {
				return money.Zero, fmt.Errorf("%s: %w", pystr.Repr(t), ErrNonFinite)
			}
			return money.Zero, err
		}
		return a, nil
	case jsonv.Float:
		return money.Zero, fmt.Errorf("%s: %w", DescribeValue(t), ErrNonFinite)
	}
	return money.Zero, fmt.Errorf("%s: %w", jsonv.TypeName(v), ErrNotNumber)
}

func looksNonFinite(s string) bool {
	s = strings.TrimLeft(strings.ToLower(s), "+-")
	return s == "nan" || s == "inf" || s == "infinity"
}

// IntentFromJSON builds an intent from a JSON object with the fields symbol, side,
// notional_usd, quantity, instrument_type, asset_class (and optional limit_price). Fields
// that cannot be used leave the intent Invalid, so CheckMandate denies it.
func IntentFromJSON(o *jsonv.Object) OrderIntent {
	return intentFrom(o.Get)
}

// intentFrom is IntentFromJSON over an object's members picked out by get (the value of a
// key and whether it is there).
func intentFrom(get func(key string) (any, bool)) OrderIntent {
	var in OrderIntent
	var problems []string
	str := func(key string) string {
		v, ok := get(key)
		if !ok || v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is %s", key, jsonv.TypeName(v)))
		}
		return s
	}
	num := func(key string) *money.Amount {
		v, ok := get(key)
		if !ok || v == nil {
			return nil
		}
		a, err := DecimalFromJSON(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", key, err))
			return nil
		}
		return &a
	}
	in.Symbol = str("symbol")
	in.Side = canonical(str("side"), sides)
	in.NotionalUSD = num("notional_usd")
	in.Quantity = num("quantity")
	in.LimitPrice = num("limit_price")
	in.InstrumentType = canonical(InstrumentType(str("instrument_type")), InstrumentTypes)
	if !in.InstrumentType.Valid() {
		problems = append(problems, fmt.Sprintf("instrument_type %s is not one of %s", pystr.Repr(string(in.InstrumentType)), joinEnum(InstrumentTypes)))
	}
	in.AssetClass = canonical(AssetClass(str("asset_class")), AssetClasses)
	if in.AssetClass != "" && !in.AssetClass.Valid() {
		problems = append(problems, fmt.Sprintf("asset_class %s is not one of %s", pystr.Repr(string(in.AssetClass)), joinEnum(AssetClasses)))
	}
	if len(problems) > 0 {
		in.Invalid = errors.New(strings.Join(problems, "; "))
	}
	return in
}
