package live

import (
	"strconv"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// stringTransforms are the named transforms of a string field, applied in the order listed.
var stringTransforms = map[string]func(string) string{
	"strip":      pystr.Strip,
	"upper":      pystr.Upper,
	"lower":      pystr.Lower,
	"pair_slash": pairSlash,
}

// amountTransforms are the named transforms of an amount field.
var amountTransforms = map[string]func(money.Amount) money.Amount{
	"div100": func(a money.Amount) money.Amount { return a.Div(money.FromInt(100)) },
}

func transformNames() string {
	return strings.Join(append(sortedKeys(stringTransforms), sortedKeys(amountTransforms)...), ", ")
}

// pairSlash writes a currency pair as BASE/QUOTE: BTC-USD and BTC_USDT get a slash; BTCUSDT
// is split before a quote currency cockpit knows (USDT, USDC, USD); anything else is kept.
func pairSlash(s string) string {
	if strings.Contains(s, "/") {
		return s
	}
	for _, sep := range []string{"-", "_"} {
		if b, q, ok := strings.Cut(s, sep); ok && b != "" && q != "" && !strings.Contains(q, sep) {
			return b + "/" + q
		}
	}
	u := pystr.Upper(s)
	for _, q := range []string{"USDT", "USDC", "USD"} {
		if strings.HasSuffix(u, q) && len(u) > len(q) {
			return s[:len(s)-len(q)] + "/" + s[len(s)-len(q):]
		}
	}
	return s
}

// argPath reads a dotted path (a.b.c) of objects, where a step into a list is its index
// (a.0.b); ok is false when a step is missing.
func argPath(args *jsonv.Object, path string) (any, bool) {
	var cur any = args
	for _, k := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case *jsonv.Object:
			v, ok := c.Get(k)
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != k {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// fieldResult is what a field read gives: a value, nothing (absent), or a refusal.
type fieldResult int

const (
	fieldAbsent fieldResult = iota
	fieldValue
	fieldReject
)

// readString reads a string field: a present value that is not a string reads as "" (so it
// is unusable unless the map names ""). Transforms, then the map; "" is unusable.
func (f *fieldSpec) readString(args *jsonv.Object) (string, fieldResult) {
	if f.Value != "" {
		return f.Value, fieldValue
	}
	for _, p := range f.From {
		v, ok := argPath(args, p)
		if !ok || v == nil && f.NullAbsent {
			continue
		}
		s, _ := v.(string)
		out, usable := f.mapString(s)
		if usable {
			return out, fieldValue
		}
		if f.Pick != "first_usable" {
			return "", f.unusable()
		}
	}
	if d, ok := f.Map[""]; ok {
		return d, fieldValue
	}
	return "", fieldAbsent
}

func (f *fieldSpec) mapString(s string) (string, bool) {
	s = applyStringTransforms(f.Transforms, s)
	if f.Map != nil {
		m, ok := f.Map[s]
		if !ok {
			return "", false
		}
		s = m
	}
	return s, s != ""
}

func applyStringTransforms(names []string, s string) string {
	for _, t := range names {
		s = stringTransforms[t](s)
	}
	return s
}

// readAmount reads an amount field: a JSON number or plain decimal string (DecimalFromJSON)
// that is positive; anything else is unusable.
func (f *fieldSpec) readAmount(args *jsonv.Object) (*money.Amount, fieldResult) {
	for _, p := range f.From {
		v, ok := argPath(args, p)
		if !ok || v == nil && f.NullAbsent {
			continue
		}
		a, err := DecimalFromJSON(v)
		if err == nil && a.Sign() > 0 {
			for _, t := range f.Transforms {
				a = amountTransforms[t](a)
			}
			return &a, fieldValue
		}
		if f.Pick != "first_usable" {
			return nil, f.unusable()
		}
	}
	return nil, fieldAbsent
}

func (f *fieldSpec) unusable() fieldResult {
	if f.Invalid == "absent" {
		return fieldAbsent
	}
	return fieldReject
}

// matches reports whether a reject condition holds for args.
func (c condSpec) matches(args *jsonv.Object) bool {
	v, present := argPath(args, c.Path)
	switch {
	case c.Has && present, c.Set && present && v != nil:
		return true
	}
	if c.In == nil && c.NotIn == nil {
		return false
	}
	s, _ := v.(string)
	s = applyStringTransforms(c.Transforms, s)
	return c.In != nil && contains(c.In, s) || c.NotIn != nil && !contains(c.NotIn, s)
}

// extract reads an order tool's arguments into an intent, or false when the call carries no
// usable one (the gate then denies it). Symbol, side and instrument are required, sizes
// follow e.Size, and a type's prices must be there (a limit order's limit, a stop's stop, a
// trailing stop's trail) and no others.
func (e *extractSpec) extract(args *jsonv.Object) (OrderIntent, bool) {
	if args == nil {
		return OrderIntent{}, false
	}
	for _, c := range e.Reject {
		if c.matches(args) {
			return OrderIntent{}, false
		}
	}
	var in OrderIntent
	ok := true
	str := func(f *fieldSpec, required bool) string {
		if f == nil {
			return ""
		}
		s, r := f.readString(args)
		ok = ok && r != fieldReject && (r == fieldValue || !required)
		return s
	}
	amt := func(f *fieldSpec) *money.Amount {
		if f == nil {
			return nil
		}
		a, r := f.readAmount(args)
		ok = ok && r != fieldReject
		return a
	}
	in.InstrumentType = InstrumentType(str(e.Instrument, true))
	legs := e.Legs != ""
	if legs {
		_, legs = argPath(args, e.Legs)
	}
	in.Symbol = str(e.Symbol, !legs)
	in.Side = str(e.Side, !legs)
	in.Type = OrderType(str(e.Type, false))
	in.Quantity, in.NotionalUSD = amt(e.Quantity), amt(e.Notional)
	in.LimitPrice, in.StopPrice = amt(e.LimitPrice), amt(e.StopPrice)
	in.TrailAmount, in.TrailPercent = amt(e.TrailAmount), amt(e.TrailPercent)
	if !ok || !e.sized(in) || !pricesFitType(in) {
		return OrderIntent{}, false
	}
	if e.QuantityMultiplier != "" && in.Quantity != nil {
		q := in.Quantity.Mul(money.MustParse(e.QuantityMultiplier))
		in.Quantity = &q
	}
	if e.LimitNotional && in.Quantity != nil && in.LimitPrice != nil {
		n := in.Quantity.Mul(*in.LimitPrice)
		in.NotionalUSD = &n
	}
	if legs {
		return e.withLegs(args, in)
	}
	return in, true
}

// sized applies the size rule.
func (e *extractSpec) sized(in OrderIntent) bool {
	q, n := in.Quantity != nil, in.NotionalUSD != nil
	switch e.Size {
	case "exactly_one":
		return q != n
	case "quantity":
		return q && !n
	}
	return q || n
}

// pricesFitType: a typed order carries exactly the prices its type needs, as the gate checks
// them (CheckOrderPrices: a trail in percent below 100); an untyped one is left to the
// extractor's own fields.
func pricesFitType(in OrderIntent) bool {
	return in.Type == "" || CheckOrderPrices(in.Type, in.Prices()) == nil
}

// withLegs makes a multi-leg intent from the legs list; legs that cannot be read refuse it.
func (e *extractSpec) withLegs(args *jsonv.Object, in OrderIntent) (OrderIntent, bool) {
	v, _ := argPath(args, e.Legs)
	legs, err := legsFromJSON(v)
	if err != nil || args.Has("symbol") || args.Has("side") {
		return OrderIntent{}, false
	}
	ml := MultiLegIntent(in.Quantity, legs)
	in.Symbol, in.Side, in.Legs = ml.Symbol, ml.Side, ml.Legs
	return in, true
}
