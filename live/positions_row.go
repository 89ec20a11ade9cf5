package live

import (
	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// rowFields is what parseRow reads from one row: for each kind of key the value under the
// highest-precedence key present (index into its key list; -1 when none), found in one pass
// over the row instead of a lookup per candidate key.
type rowFields struct {
	sym                   string // the first symbol key, in precedence, holding a non-blank string
	symAt                 int
	qty, value, price     any
	qtyAt, valAt, priceAt int
	side                  any
	hasSide               bool
}

// scanRow fills rowFields from row's members (keys of a jsonv object are unique, so the first
// candidate by precedence is the one the per-key lookups found).
func scanRow(row *jsonv.Object) rowFields {
	f := rowFields{symAt: -1, qtyAt: -1, valAt: -1, priceAt: -1}
	take := func(at *int, dst *any, i int, v any) {
		if *at < 0 || i < *at {
			*at, *dst = i, v
		}
	}
	for _, m := range row.Members() {
		switch m.Key {
		case "symbol", "ticker", "code", "instrument":
			s, ok := m.Value.(string)
			if !ok || (f.symAt >= 0 && keyIndex(symbolKeys, m.Key) > f.symAt) {
				continue
			}
			if t := pystr.Strip(s); t != "" {
				f.sym, f.symAt = t, keyIndex(symbolKeys, m.Key)
			}
		case "quantity", "qty", "shares":
			take(&f.qtyAt, &f.qty, keyIndex(quantityKeys, m.Key), m.Value)
		case "market_value", "marketValue", "value_usd", "value":
			take(&f.valAt, &f.value, keyIndex(valueKeys, m.Key), m.Value)
		case "price", "last_price", "mark_price", "market_price":
			take(&f.priceAt, &f.price, keyIndex(priceKeys, m.Key), m.Value)
		case "side":
			f.side, f.hasSide = m.Value, true
		}
	}
	return f
}

func keyIndex(keys []string, k string) int {
	for i, c := range keys {
		if c == k {
			return i
		}
	}
	return -1
}
