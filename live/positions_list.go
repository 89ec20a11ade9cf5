package live

import (
	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// ParsePositionList reads a tool-shaped broker's positions payload into positions with a
// signed quantity and market value, for flatten and the screen. A row whose symbol, value or
// quantity cannot be read is an error. A row with a value and no quantity key is a position
// whose quantity is unknown (QtyUnknown): its value is exposure, as the reference reads it,
// and it cannot be closed, so it never reads as flat.
func ParsePositionList(payload any) ([]Position, error) {
	rows, err := PositionRows(payload)
	if err != nil {
		return nil, err
	}
	out := make([]Position, 0, len(rows))
	for i, raw := range rows {
		row, ok := raw.(*jsonv.Object)
		if !ok {
			return nil, positionsErr("row %d is %s, want an object", i, jsonv.TypeName(raw))
		}
		sym, value, err := parseRow(row)
		if err != nil {
			return nil, positionsErr("row %d: %v", i, err)
		}
		qKey, qRaw, hasQty := firstPresent(row, quantityKeys)
		if !hasQty {
			if !value.IsZero() {
				out = append(out, Position{Symbol: sym, MarketValue: value, QtyUnknown: true})
			}
			continue
		}
		qty, err := DecimalFromJSON(qRaw)
		if err != nil {
			return nil, positionsErr("row %d: %s: %v", i, qKey, err)
		}
		// Short when the quantity or the value is negative, or the row says so: a close of a
		// short is a buy, and reading it as long would double it.
		side, _ := rowString(row, "side")
		if short := qty.Sign() < 0 || value.Sign() < 0 || pystr.Lower(pystr.Strip(side)) == "short" || pystr.Lower(pystr.Strip(side)) == "sell"; short {
			qty = qty.Abs().Neg()
		}
		out = append(out, Position{Symbol: sym, Qty: qty, MarketValue: value, AvgPrice: rowAmount(row, "avg_entry_price", "avg_price", "average_price")})
	}
	return out, nil
}

// rowAmount is the first of keys that reads as a number, or zero.
func rowAmount(row *jsonv.Object, keys ...string) money.Amount {
	for _, k := range keys {
		if v, ok := row.Get(k); ok {
			if a, err := DecimalFromJSON(v); err == nil {
				return a
			}
		}
	}
	return money.Zero
}

// RenamePositionFields rewrites a positions payload whose rows use a broker's own keys into
// rows of cockpit's keys only: fields maps cockpit's name (symbol, quantity, market_value,
// price) to the payload's key (a dotted path). A row that is not an object, or that lacks a
// mapped key, keeps the gap: the reading that follows fails it closed.
func RenamePositionFields(payload any, fields map[string]string) (any, error) {
	rows, err := PositionRows(payload)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(rows))
	for i, r := range rows {
		row, ok := r.(*jsonv.Object)
		if !ok {
			out[i] = r
			continue
		}
		o := jsonv.NewObject()
		for _, k := range sortedKeys(fields) {
			if v, ok := argPath(row, fields[k]); ok {
				o.Set(k, v)
			}
		}
		out[i] = o
	}
	return out, nil
}
