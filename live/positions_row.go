package live

import (
	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// rowFields is what parseRow (and the fast book) reads from one row: for each kind of key the
// value under the highest-precedence key present (index into its key list; -1 when none),
// found in one pass over the row instead of a lookup per candidate key.
type rowFields struct {
	sym                   string // the first symbol key, in precedence, holding a non-blank string
	symAt                 int
	qty, value, price     any
	qtyAt, valAt, priceAt int
	side                  any
	hasSide               bool
}

// scanRow reads row's fields for parseRow.
func scanRow(row *jsonv.Object) rowFields {
	var f rowFields
	f.scan(row)
	return f
}

// scan fills f from row's members in one pass (keys of a jsonv object are unique, so the first
// candidate by precedence is the one the per-key lookups found); each key's precedence, its
// index in its key list, is written into its case.
func (f *rowFields) scan(row *jsonv.Object) {
	*f = rowFields{symAt: -1, qtyAt: -1, valAt: -1, priceAt: -1}
	for _, m := range row.Members() {
		var at *int
		var dst *any
		var rank int
		switch m.Key {
		case "symbol":
			f.takeSymbol(0, m.Value)
			continue
		case "ticker":
			f.takeSymbol(1, m.Value)
			continue
		case "code":
			f.takeSymbol(2, m.Value)
			continue
		case "instrument":
			f.takeSymbol(3, m.Value)
			continue
		case "side":
			f.side, f.hasSide = m.Value, true
			continue
		case "quantity":
			at, dst, rank = &f.qtyAt, &f.qty, 0
		case "qty":
			at, dst, rank = &f.qtyAt, &f.qty, 1
		case "shares":
			at, dst, rank = &f.qtyAt, &f.qty, 2
		case "market_value":
			at, dst, rank = &f.valAt, &f.value, 0
		case "marketValue":
			at, dst, rank = &f.valAt, &f.value, 1
		case "value_usd":
			at, dst, rank = &f.valAt, &f.value, 2
		case "value":
			at, dst, rank = &f.valAt, &f.value, 3
		case "price":
			at, dst, rank = &f.priceAt, &f.price, 0
		case "last_price":
			at, dst, rank = &f.priceAt, &f.price, 1
		case "mark_price":
			at, dst, rank = &f.priceAt, &f.price, 2
		case "market_price":
			at, dst, rank = &f.priceAt, &f.price, 3
		default:
			continue
		}
		if *at < 0 || rank < *at {
			*at, *dst = rank, m.Value
		}
	}
}

// takeSymbol keeps v, stripped, as the row's symbol when it is a non-blank string under a
// key of higher precedence than the one kept so far.
func (f *rowFields) takeSymbol(at int, v any) {
	if f.symAt >= 0 && at > f.symAt {
		return
	}
	if s, ok := v.(string); ok {
		if t := pystr.Strip(s); t != "" {
			f.sym, f.symAt = t, at
		}
	}
}
