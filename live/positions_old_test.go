package live

import (
	"errors"
	"fmt"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// This file is ParsePositions as it was before the fast book (main at 85f28a1), renamed with
// an "old" prefix and otherwise verbatim, except that each row is read by parseRowOld
// (positions_row_test.go), the row reader's own oracle, which FuzzParseRowMatchesOld holds
// the live parseRow to: the differential tests hold the new reader to it.

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
		sym, value, err := parseRowOld(row) // the row reader before issue 15 (positions_row_test.go)
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
