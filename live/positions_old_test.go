package live

import (
	"errors"
	"fmt"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// This file is ParsePositions as it was before the fast book (main at 85f28a1), renamed with
// an "old" prefix and otherwise verbatim: the differential tests hold the new reader to it.

// oldBook is the book the old reader built (Book's fields at 85f28a1).
type oldBook struct {
	Exposures []Exposure
	Err       error
}

func oldUnreadableBook(err error) oldBook {
	if err == nil {
		err = errors.New("positions unavailable")
	}
	return oldBook{Err: err}
}

func (b oldBook) Net(symbol string) money.Amount {
	for _, e := range b.Exposures {
		if e.Symbol == symbol {
			return e.Net
		}
	}
	return money.Zero
}

func (b oldBook) Gross() money.Amount {
	g := money.Zero
	for _, e := range b.Exposures {
		g = g.Add(e.Net.Abs())
	}
	return g
}

func (b *oldBook) add(symbol string, value money.Amount) {
	for i := range b.Exposures {
		if b.Exposures[i].Symbol == symbol {
			b.Exposures[i].Net = b.Exposures[i].Net.Add(value)
			return
		}
	}
	b.Exposures = append(b.Exposures, Exposure{Symbol: symbol, Net: value})
}

type oldBookBuilder struct {
	book  oldBook
	index map[string]int
}

func oldNewBookBuilder(n int) oldBookBuilder {
	var bb oldBookBuilder
	if n > 0 {
		bb.book.Exposures = make([]Exposure, 0, n)
	}
	if n > 8 {
		bb.index = make(map[string]int, n)
	}
	return bb
}

func (bb *oldBookBuilder) add(symbol string, value money.Amount) {
	if bb.index == nil && len(bb.book.Exposures) < 8 {
		bb.book.add(symbol, value)
		return
	}
	if bb.index == nil {
		bb.index = make(map[string]int, 2*len(bb.book.Exposures))
		for i, e := range bb.book.Exposures {
			bb.index[e.Symbol] = i
		}
	}
	if i, ok := bb.index[symbol]; ok {
		bb.book.Exposures[i].Net = bb.book.Exposures[i].Net.Add(value)
		return
	}
	bb.index[symbol] = len(bb.book.Exposures)
	bb.book.Exposures = append(bb.book.Exposures, Exposure{Symbol: symbol, Net: value})
}

var oldErrPositions = errPositions

func oldPositionsErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", oldErrPositions, fmt.Sprintf(format, args...))
}

var (
	oldValueKeys    = []string{"market_value", "marketValue", "value_usd", "value"}
	oldQuantityKeys = []string{"quantity", "qty", "shares"}
	oldPriceKeys    = []string{"price", "last_price", "mark_price", "market_price"}
	oldSymbolKeys   = []string{"symbol", "ticker", "code", "instrument"}
)

func oldParsePositions(payload any) oldBook {
	rows, err := oldPositionRows(payload)
	if err != nil {
		return oldUnreadableBook(err)
	}
	bb := oldNewBookBuilder(len(rows))
	for i, raw := range rows {
		row, ok := raw.(*jsonv.Object)
		if !ok {
			return oldUnreadableBook(oldPositionsErr("row %d is %s, want an object", i, jsonv.TypeName(raw)))
		}
		sym, value, err := oldParseRow(row)
		if err != nil {
			return oldUnreadableBook(oldPositionsErr("row %d: %v", i, err))
		}
		bb.add(sym, value)
	}
	return bb.book
}

func oldPositionRows(payload any) ([]any, error) {
	switch t := payload.(type) {
	case []any:
		return t, nil
	case *jsonv.Object:
		for _, key := range []string{"positions", "data"} {
			if v, ok := t.Get(key); ok && v != nil {
				list, ok := v.([]any)
				if !ok {
					return nil, oldPositionsErr("%q is %s, want a list", key, jsonv.TypeName(v))
				}
				return list, nil
			}
		}
		rows := make([]any, 0, t.Len())
		for _, m := range t.Members() {
			rows = append(rows, m.Value)
		}
		return rows, nil
	}
	return nil, oldPositionsErr("payload is %s", jsonv.TypeName(payload))
}

func oldParseRow(row *jsonv.Object) (string, money.Amount, error) {
	f := oldScanRow(row)
	if f.symAt < 0 {
		return "", money.Zero, errors.New("no symbol")
	}
	sym := pystr.Upper(f.sym)
	hasQty := f.qtyAt >= 0
	var qty money.Amount
	if hasQty {
		var err error
		if qty, err = DecimalFromJSON(f.qty); err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", oldQuantityKeys[f.qtyAt], err)
		}
	}
	var value money.Amount
	if f.valAt >= 0 {
		var err error
		if value, err = DecimalFromJSON(f.value); err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", oldValueKeys[f.valAt], err)
		}
	} else {
		if !hasQty || f.priceAt < 0 {
			return "", money.Zero, errors.New("no value and no quantity × price")
		}
		price, err := DecimalFromJSON(f.price)
		if err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", oldPriceKeys[f.priceAt], err)
		}
		value = qty.Abs().Mul(price)
	}
	if hasQty {
		switch qty.Sign() {
		case 0:
			if !value.IsZero() {
				return "", money.Zero, errors.New("zero quantity with a non-zero value")
			}
			return sym, money.Zero, nil
		case 1:
			return sym, value.Abs(), nil
		default:
			return sym, value.Abs().Neg(), nil
		}
	}
	if side, ok := f.side.(string); ok && f.hasSide {
		switch pystr.Lower(side) {
		case "long", "buy":
			return sym, value.Abs(), nil
		case "short", "sell":
			return sym, value.Abs().Neg(), nil
		}
	}
	return sym, value, nil
}

type oldRowFields struct {
	sym                   string
	symAt                 int
	qty, value, price     any
	qtyAt, valAt, priceAt int
	side                  any
	hasSide               bool
}

func oldScanRow(row *jsonv.Object) oldRowFields {
	f := oldRowFields{symAt: -1, qtyAt: -1, valAt: -1, priceAt: -1}
	take := func(at *int, dst *any, i int, v any) {
		if *at < 0 || i < *at {
			*at, *dst = i, v
		}
	}
	for _, m := range row.Members() {
		switch m.Key {
		case "symbol", "ticker", "code", "instrument":
			s, ok := m.Value.(string)
			if !ok || (f.symAt >= 0 && oldKeyIndex(oldSymbolKeys, m.Key) > f.symAt) {
				continue
			}
			if t := pystr.Strip(s); t != "" {
				f.sym, f.symAt = t, oldKeyIndex(oldSymbolKeys, m.Key)
			}
		case "quantity", "qty", "shares":
			take(&f.qtyAt, &f.qty, oldKeyIndex(oldQuantityKeys, m.Key), m.Value)
		case "market_value", "marketValue", "value_usd", "value":
			take(&f.valAt, &f.value, oldKeyIndex(oldValueKeys, m.Key), m.Value)
		case "price", "last_price", "mark_price", "market_price":
			take(&f.priceAt, &f.price, oldKeyIndex(oldPriceKeys, m.Key), m.Value)
		case "side":
			f.side, f.hasSide = m.Value, true
		}
	}
	return f
}

func oldKeyIndex(keys []string, k string) int {
	for i, c := range keys {
		if c == k {
			return i
		}
	}
	return -1
}
