package store

import (
	"context"
	"fmt"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/lots"
	"cockpit/live/money"
)

// Trade is one fill as the day's trades list it.
type Trade struct {
	Seq           int64 // its audit event
	Time          time.Time
	Broker        string
	Symbol        string
	Side          string
	Qty           money.Amount
	Price         money.Amount // zero: the broker gave none
	Fee           money.Amount
	OrderID       string
	ClientOrderID string
	State         string       // FillApplied, FillDuplicate, FillUnpriced or FillUnreadable
	Realized      money.Amount // net of fees, of the round trips it closed
	Position      money.Amount // the symbol's FIFO position after it
}

// RoundTrip is a round trip (FIFO) that one of the day's fills closed.
type RoundTrip struct {
	Broker string
	Symbol string
	lots.Trip
}

// DayTrades is one UTC day's fills and the round trips they closed, FIFO lots per broker and
// symbol (a lot opened on an earlier day is closed at its own price).
type DayTrades struct {
	Day      time.Time // midnight UTC
	Broker   string    // "" for every broker
	Trades   []Trade
	Trips    []RoundTrip
	Realized money.Amount // Σ net of Trips
	Gross    money.Amount // Σ gross of Trips
	Fees     money.Amount // Σ fee of Trades
	// NotApplied counts fills in the trail the lots left out: repeats, unpriced, unreadable.
	NotApplied int
}

// UTCDay is the UTC midnight that starts t's day.
func UTCDay(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

const tradesOfDay = `SELECT seq, ts, broker, symbol, side, qty, price, fee, order_id, client_order_id, state, realized,
	trips, pos_qty FROM fills WHERE ts >= ? AND ts < ? AND (? = '' OR broker = ?) ORDER BY ts, seq`

// DayTrades returns the fills of day's UTC day (of broker, or of every broker when it is "")
// and the round trips they closed: one indexed read of that day's fills.
func (db *DB) DayTrades(ctx context.Context, day time.Time, broker string) (DayTrades, error) {
	from := UTCDay(day)
	out := DayTrades{Day: from, Broker: broker, Trades: []Trade{}, Trips: []RoundTrip{}}
	rows, err := db.readQuery(ctx, tradesOfDay, from.UnixNano(), from.AddDate(0, 0, 1).UnixNano(), broker, broker)
	if err != nil {
		return out, wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var t Trade
		var ts int64
		var qty, px, fee, realized, trips, pos string
		if err := rows.Scan(&t.Seq, &ts, &t.Broker, &t.Symbol, &t.Side, &qty, &px, &fee, &t.OrderID, &t.ClientOrderID,
			&t.State, &realized, &trips, &pos); err != nil {
			return out, wrap(err)
		}
		t.Time = time.Unix(0, ts).UTC()
		t.Qty, t.Price, t.Fee, t.Realized, t.Position = parseOrZero(qty), parseOrZero(px), parseOrZero(fee), parseOrZero(realized), parseOrZero(pos)
		out.Trades = append(out.Trades, t)
		out.Fees = out.Fees.Add(t.Fee)
		if t.State != FillApplied {
			out.NotApplied++
			continue
		}
		rts, err := decodeTrips(trips, t)
		if err != nil {
			return out, fmt.Errorf("fill %d: round trips: %w", t.Seq, err)
		}
		for _, rt := range rts {
			out.Trips = append(out.Trips, rt)
			out.Realized, out.Gross = out.Realized.Add(rt.Net), out.Gross.Add(rt.Gross)
		}
	}
	return out, wrap(rows.Err())
}

// decodeTrips reads the round trips a fill row keeps.
func decodeTrips(text string, closing Trade) ([]RoundTrip, error) {
	v, err := jsonv.ParseString(text, jsonv.Options{})
	if err != nil {
		return nil, err
	}
	list, _ := v.([]any)
	out := make([]RoundTrip, 0, len(list))
	for _, item := range list {
		o, ok := item.(*jsonv.Object)
		if !ok {
			return nil, fmt.Errorf("a round trip is %s", jsonv.TypeName(item))
		}
		num := func(k string) money.Amount { n, _ := o.Value(k).(jsonv.Number); return parseOrZero(string(n)) }
		long, _ := o.Value("long").(bool)
		rt := RoundTrip{Broker: closing.Broker, Symbol: closing.Symbol, Trip: lots.Trip{Qty: num("qty"), Long: long,
			OpenSeq: num("open_seq").Int64(), CloseSeq: closing.Seq, OpenTime: time.Unix(0, num("open_ts").Int64()).UTC(),
			CloseTime: closing.Time, OpenPrice: num("open_price"), ClosePrice: num("close_price"), Fees: num("fees"),
			Gross: num("gross"), Net: num("net")}}
		out = append(out, rt)
	}
	return out, nil
}

// Cells is how a fill reads in any table of the day's trades: its price ("?" when the broker
// gave none), and, for a fill the lots applied, whether it closed a round trip and the
// position after it; for any other fill its state and "-" (the screen and `cockpit trades`
// print the same row from it).
func (dt DayTrades) Cells(t Trade) (price string, closed bool, state, position string) {
	price, position = "?", t.Position.String()
	if t.Price.Sign() > 0 {
		price = t.Price.String()
	}
	if t.State != FillApplied {
		return price, false, t.State, "-"
	}
	for _, rt := range dt.Trips {
		if rt.CloseSeq == t.Seq {
			return price, true, "", position
		}
	}
	return price, false, "", position
}
