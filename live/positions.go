package live

import (
	"errors"
	"fmt"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// Exposure is the signed net exposure of one symbol (long positive, short negative).
type Exposure struct {
	Symbol string
	Net    money.Amount
}

// Book is the current book as the gate sees it: net exposure per symbol in first-seen order,
// or the reason it could not be read. An unreadable book fails every check closed.
//
// A book is read-only once built: a book from ParsePositions carries an index of its
// exposures (and their gross) that Net and Gross answer from, which sees a replaced or
// re-sliced Exposures but not an exposure changed in place.
type Book struct {
	Exposures []Exposure
	Err       error
	idx       *bookIndex
}

// UnreadableBook returns a book that failed to read.
func UnreadableBook(err error) Book {
	if err == nil {
		err = errors.New("positions unavailable")
	}
	return Book{Err: err}
}

// Net returns the net exposure of a normalised symbol (0 when absent).
func (b Book) Net(symbol string) money.Amount {
	if b.idx.covers(b.Exposures) {
		if i, ok := b.idx.find(b.Exposures, symbol); ok {
			return b.Exposures[i].Net
		}
		return money.Zero
	}
	for _, e := range b.Exposures {
		if e.Symbol == symbol {
			return e.Net
		}
	}
	return money.Zero
}

// Gross returns Σ|net| over symbols.
func (b Book) Gross() money.Amount {
	if b.idx.covers(b.Exposures) && b.idx.hasGross {
		return b.idx.gross
	}
	g := money.Zero
	for _, e := range b.Exposures {
		g = g.Add(e.Net.Abs())
	}
	return g
}

// add nets value into symbol, appending the symbol when new.
func (b *Book) add(symbol string, value money.Amount) {
	for i := range b.Exposures {
		if b.Exposures[i].Symbol == symbol {
			b.Exposures[i].Net = b.Exposures[i].Net.Add(value)
			return
		}
	}
	b.Exposures = append(b.Exposures, Exposure{Symbol: symbol, Net: value})
}

// bookBuilder nets rows into a new book in first-seen order, finding a symbol through a map
// once the book is past a few symbols (so n rows cost O(n), not O(n²)).
type bookBuilder struct {
	book  Book
	index map[string]int
}

// newBookBuilder is a builder sized for n rows.
func newBookBuilder(n int) bookBuilder {
	var bb bookBuilder
	if n > 0 {
		bb.book.Exposures = make([]Exposure, 0, n)
	}
	if n > 8 {
		bb.index = make(map[string]int, n)
	}
	return bb
}

func (bb *bookBuilder) add(symbol string, value money.Amount) {
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

// BookFromExposures builds a book from typed positions (for brokers that return them typed).
func BookFromExposures(rows []Exposure) Book {
	var bb bookBuilder
	for _, r := range rows {
		bb.add(pystr.Upper(pystr.Strip(r.Symbol)), r.Net)
	}
	return bb.book
}

// WithOpenOrders returns the book as if the resting orders filled in the worst direction:
// per symbol the net exposure moves to whichever of net + resting buys and net − resting
// sells is larger in absolute value, so two orders that each fit a cap cannot together
// exceed it. An order that cannot be valued makes the book unreadable (fail-closed).
func (b Book) WithOpenOrders(orders []Order, price func(symbol string) (money.Amount, error)) Book {
	if b.Err != nil || len(orders) == 0 {
		return b
	}
	buys, sells := map[string]money.Amount{}, map[string]money.Amount{}
	var syms []string
	for _, o := range orders {
		if !o.Status.Open() {
			continue
		}
		sym := pystr.Upper(pystr.Strip(o.Symbol))
		v, err := restingValue(o, sym, price)
		if err != nil {
			return UnreadableBook(fmt.Errorf("%w: open order %s: %v", errPositions, o.ID, err))
		}
		if _, seen := buys[sym]; !seen {
			if _, seen := sells[sym]; !seen {
				syms = append(syms, sym)
			}
		}
		if o.Side == Sell {
			sells[sym] = sells[sym].Add(v)
		} else {
			buys[sym] = buys[sym].Add(v)
		}
	}
	out := Book{Exposures: append([]Exposure(nil), b.Exposures...)}
	for _, sym := range syms {
		net := out.Net(sym)
		up, down := net.Add(buys[sym]), net.Sub(sells[sym])
		worst := up
		if down.Abs().GreaterThan(up.Abs()) {
			worst = down
		}
		out.add(sym, worst.Sub(net))
	}
	return out
}

// restingValue is the unfilled notional of an open order, at its limit price or, for a
// market order, the current price; a stop or trailing stop not yet triggered at its
// worst-case trigger (WorstCasePrice: never below the current price); an option's contracts
// count 100 shares each.
func restingValue(o Order, sym string, price func(string) (money.Amount, error)) (money.Amount, error) {
	px := money.Zero
	if o.LimitPrice != nil {
		px = *o.LimitPrice
	}
	if o.Type.Triggered() && !o.Triggered {
		cur, err := price(sym)
		if err != nil {
			return money.Zero, err
		}
		p := o.Prices()
		if o.Type == TrailingStop && o.StopPrice != nil { // the broker's current stop: where it triggers now
			p = OrderPrices{Stop: o.StopPrice}
			px = money.Max(px, WorstCasePrice(Stop, o.Side, p, cur))
		} else {
			px = money.Max(px, WorstCasePrice(o.Type, o.Side, p, cur))
		}
	}
	if px.Sign() <= 0 {
		p, err := price(sym)
		if err != nil {
			return money.Zero, err
		}
		px = p
	}
	switch {
	case o.Quantity != nil:
		return money.Max(o.Quantity.Sub(o.FilledQty), money.Zero).Mul(SymbolMultiplier(sym)).Mul(px), nil
	case o.Notional != nil:
		return money.Max(o.Notional.Sub(o.FilledQty.Mul(o.AvgFillPrice)), money.Zero), nil
	}
	return money.Zero, errors.New("no quantity or notional")
}

// errPositions wraps every reason a positions payload is unreadable.
var errPositions = errors.New("positions unreadable")

func positionsErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errPositions, fmt.Sprintf(format, args...))
}

// Row keys, in precedence order (reference E22–E24).
var (
	valueKeys    = []string{"market_value", "marketValue", "value_usd", "value"}
	quantityKeys = []string{"quantity", "qty", "shares"}
	priceKeys    = []string{"price", "last_price", "mark_price", "market_price"}
	symbolKeys   = []string{"symbol", "ticker", "code", "instrument"}
)

// ParsePositions reads a broker positions payload into a Book. Accepted shapes: a list of
// row objects; an object whose "positions" (else "data") value is such a list; otherwise an
// object whose values are the rows. Any malformed row makes the whole book unreadable
// (fail-closed). Numbers follow DecimalFromJSON (DV9, DV10).
func ParsePositions(payload any) Book {
	rows, err := PositionRows(payload)
	if err != nil {
		return UnreadableBook(err)
	}
	if b, ok := fastBook(rows); ok {
		return b
	}
	return parseRows(rows, parseRow)
}

// parseRows reads rows one by one with read (parseRow; its oracle in the tests): every payload
// fastBook leaves, and every error.
func parseRows(rows []any, read func(*jsonv.Object) (string, money.Amount, error)) Book {
	bb := newBookBuilder(len(rows))
	for i, raw := range rows {
		row, ok := raw.(*jsonv.Object)
		if !ok {
			return UnreadableBook(positionsErr("row %d is %s, want an object", i, jsonv.TypeName(raw)))
		}
		sym, value, err := read(row)
		if err != nil {
			return UnreadableBook(positionsErr("row %d: %v", i, err))
		}
		bb.add(sym, value)
	}
	return bb.book
}

// PositionRows is the list of rows in a positions or orders payload: a bare list, the list
// under "positions" or "data", or the values of an object keyed by symbol.
func PositionRows(payload any) ([]any, error) {
	switch t := payload.(type) {
	case []any:
		return t, nil
	case *jsonv.Object:
		for _, key := range []string{"positions", "data"} {
			if v, ok := t.Get(key); ok && v != nil {
				list, ok := v.([]any)
				if !ok {
					return nil, positionsErr("%q is %s, want a list", key, jsonv.TypeName(v))
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
	return nil, positionsErr("payload is %s", jsonv.TypeName(payload))
}

// firstPresent returns the first key of keys present in row.
func firstPresent(row *jsonv.Object, keys []string) (string, any, bool) {
	for _, k := range keys {
		if v, ok := row.Get(k); ok {
			return k, v, true
		}
	}
	return "", nil, false
}

// parseRow returns a row's normalised symbol and signed value.
func parseRow(row *jsonv.Object) (string, money.Amount, error) {
	f := scanRow(row)
	if f.symAt < 0 {
		return "", money.Zero, errors.New("no symbol")
	}
	sym := pystr.Upper(f.sym)
	hasQty := f.qtyAt >= 0
	var qty money.Amount
	if hasQty {
		var err error
		if qty, err = DecimalFromJSON(f.qty); err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", quantityKeys[f.qtyAt], err)
		}
	}
	var value money.Amount
	if f.valAt >= 0 {
		var err error
		if value, err = DecimalFromJSON(f.value); err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", valueKeys[f.valAt], err)
		}
	} else {
		if !hasQty || f.priceAt < 0 {
			return "", money.Zero, errors.New("no value and no quantity × price")
		}
		price, err := DecimalFromJSON(f.price)
		if err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", priceKeys[f.priceAt], err)
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

func rowString(row *jsonv.Object, key string) (string, bool) {
	v, ok := row.Get(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}
