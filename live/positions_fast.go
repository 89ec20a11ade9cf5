package live

import (
	"bytes"
	"hash/maphash"
	"math"
	"math/bits"
	"sync"
	"unicode/utf8"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// The fast book: ParsePositions first reads the rows with fixed, netting each symbol in int64
// through an open-addressing table, and turns each net into an Amount once at the end. It
// takes only the rows whose every number it can hold exactly as money would (a plain decimal of
// at most 18 digits, at most 19 fractional, no exponent) and whose arithmetic stays in int64;
// any other payload, and every error, is left to the row-by-row reader (parseRow), which then
// builds the book (or the error) as it always has. TestParsePositionsMatchesOld and
// FuzzParsePositionsMatchesOld hold the two to the same books.

// fixed is the decimal c × 10^-p in the shape money gives a small amount (udecimal: a sign,
// a coefficient, p fractional digits as written, zero always with p = 0), so that the money
// operations parseRow runs can be replayed in int64 and give the same Amount.
type fixed struct {
	c int64 // |c| ≤ MaxInt64
	p uint8 // 0..19
}

// maxFixedPrec is money's largest number of fractional digits on its fast path.
const maxFixedPrec = 19

// pow10s[k] is 10^k.
var pow10s = func() [maxFixedPrec + 1]int64 {
	var p [maxFixedPrec + 1]int64
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * 10
	}
	return p
}()

// parseFixed reads [+-]?digits(.digits)? as money.Parse does (the fractional digits, trailing
// zeros included, are the precision); ok is false for any other text, a fraction of more than
// 19 digits, a coefficient past int64, or text of more than 41 bytes (udecimal reads that
// into a big.Int, so money keeps it in shopspring whatever its value).
func parseFixed(s string) (fixed, bool) {
	if len(s) > 41 {
		return fixed{}, false
	}
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg, i = s[0] == '-', 1
	}
	var c uint64
	start := i
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if c > (math.MaxInt64-9)/10 {
			return fixed{}, false
		}
		c = c*10 + uint64(s[i]-'0')
	}
	if i == start { // "", "+", ".5", "-.5": not money's fast shape
		return fixed{}, false
	}
	p := 0
	if i < len(s) && s[i] == '.' {
		i++
		frac := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if c > (math.MaxInt64-9)/10 {
				return fixed{}, false
			}
			c = c*10 + uint64(s[i]-'0')
		}
		p = i - frac
		if p == 0 || p > maxFixedPrec { // "5." or a fraction money keeps in shopspring
			return fixed{}, false
		}
	}
	if i != len(s) || c == 0 {
		return fixed{}, i == len(s) // zero is Zero, with no precision
	}
	v := int64(c)
	if neg {
		v = -v
	}
	return fixed{c: v, p: uint8(p)}, true
}

// fixedFromJSON is DecimalFromJSON for the values parseFixed reads; ok is false otherwise
// (including every value DecimalFromJSON refuses).
func fixedFromJSON(v any) (fixed, bool) {
	switch t := v.(type) {
	case jsonv.Number:
		return parseFixed(string(t))
	case string:
		return parseFixed(pystr.Strip(t))
	}
	return fixed{}, false
}

func (f fixed) sign() int {
	switch {
	case f.c > 0:
		return 1
	case f.c < 0:
		return -1
	}
	return 0
}

func (f fixed) abs() fixed {
	if f.c < 0 {
		f.c = -f.c
	}
	return f
}

// mulFixed is Amount.Mul on its udecimal path: precisions add, and ok is false where money
// would leave that path (more than 19 fractional digits) or the product leaves int64.
func mulFixed(a, b fixed) (fixed, bool) {
	p := a.p + b.p
	if p > maxFixedPrec {
		return fixed{}, false
	}
	hi, lo := bits.Mul64(uint64(a.abs().c), uint64(b.abs().c))
	if hi != 0 || lo > math.MaxInt64 {
		return fixed{}, false
	}
	if lo == 0 {
		return fixed{}, true
	}
	c := int64(lo)
	if (a.c < 0) != (b.c < 0) {
		c = -c
	}
	return fixed{c: c, p: p}, true
}

// addFixed is Amount.Add on its udecimal path: the result has the larger precision, or none
// when it is zero; ok is false when a coefficient leaves int64.
func addFixed(a, b fixed) (fixed, bool) {
	p := max(a.p, b.p)
	var ok bool
	if a, ok = rescale(a, p); !ok {
		return fixed{}, false
	}
	if b, ok = rescale(b, p); !ok {
		return fixed{}, false
	}
	s := a.c + b.c
	if (a.c > 0 && b.c > 0 && s < 0) || (a.c < 0 && b.c < 0 && s >= 0) || s == math.MinInt64 {
		return fixed{}, false
	}
	if s == 0 {
		return fixed{}, true
	}
	return fixed{c: s, p: p}, true
}

// rescale writes f with p ≥ f.p fractional digits.
func rescale(f fixed, p uint8) (fixed, bool) {
	if f.p == p {
		return f, true
	}
	m := pow10s[p-f.p]
	if f.c > math.MaxInt64/m || f.c < -(math.MaxInt64/m) {
		return fixed{}, false
	}
	return fixed{c: f.c * m, p: p}, true
}

// amount is f as the Amount money's own operations produce for it.
func (f fixed) amount() money.Amount {
	return money.FromFixed(f.c, f.p)
}

// rowFixed is parseRow's signed value for a row, replayed with fixed; ok is false for a row
// parseRow refuses or whose numbers fixed cannot hold.
func rowFixed(f *rowFields) (fixed, bool) {
	hasQty := f.qtyAt >= 0
	var qty, value fixed
	var ok bool
	if hasQty {
		if qty, ok = fixedFromJSON(f.qty); !ok {
			return fixed{}, false
		}
	}
	if f.valAt >= 0 {
		if value, ok = fixedFromJSON(f.value); !ok {
			return fixed{}, false
		}
	} else {
		if !hasQty || f.priceAt < 0 {
			return fixed{}, false
		}
		price, ok := fixedFromJSON(f.price)
		if !ok {
			return fixed{}, false
		}
		if value, ok = mulFixed(qty.abs(), price); !ok {
			return fixed{}, false
		}
	}
	if hasQty {
		switch qty.sign() {
		case 0:
			return fixed{}, value.c == 0 // a non-zero value with zero quantity is an error
		case 1:
			return value.abs(), true
		default:
			return fixed{c: -value.abs().c, p: value.p}, true
		}
	}
	if side, isStr := f.side.(string); isStr && f.hasSide {
		switch sideOf(side) {
		case 1:
			return value.abs(), true
		case -1:
			return fixed{c: -value.abs().c, p: value.p}, true
		}
	}
	return value, true
}

// sideOf is +1 when pystr.Lower(side) is "long" or "buy", -1 for "short" or "sell", else 0.
func sideOf(side string) int {
	for i := 0; i < len(side); i++ {
		if side[i] >= utf8.RuneSelf {
			return sideWord(pystr.Lower(side))
		}
	}
	if len(side) > 5 {
		return 0
	}
	var low [5]byte
	for i := 0; i < len(side); i++ {
		c := side[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return sideWord(string(low[:len(side)]))
}

func sideWord(s string) int {
	switch s {
	case "long", "buy":
		return 1
	case "short", "sell":
		return -1
	}
	return 0
}

// bookSeed hashes symbols for the book's table (its order never shows: the book keeps
// first-seen order).
var bookSeed = maphash.MakeSeed()

// fastEnt is one symbol of a book being built: its normalised name in the scratch arena and
// its net so far.
type fastEnt struct {
	off, n uint32
	net    fixed
}

// bookScratch is the memory one fast build needs and gives back.
type bookScratch struct {
	ents  []fastEnt
	arena []byte // every symbol, upper-cased, end to end
	key   []byte // the row being looked up
}

var bookScratchPool = sync.Pool{New: func() any { return new(bookScratch) }}

// tableSize is the power of two of at least 2n slots.
func tableSize(n int) int {
	size := 8
	for size < 2*n {
		size <<= 1
	}
	return size
}

// fastBook is ParsePositions' book for rows, or ok false when the row-by-row reader must
// decide (an error, or a number or sum fixed does not hold).
func fastBook(rows []any) (Book, bool) {
	if len(rows) == 0 {
		return Book{}, true
	}
	if len(rows) > math.MaxInt32/4 {
		return Book{}, false
	}
	sc := bookScratchPool.Get().(*bookScratch)
	defer sc.release()
	slots := make([]uint32, tableSize(len(rows))) // entry index + 1; 0 is empty
	mask := uint64(len(slots) - 1)
	var f rowFields
	for _, raw := range rows {
		row, ok := raw.(*jsonv.Object)
		if !ok {
			return Book{}, false
		}
		f.scan(row)
		if f.symAt < 0 {
			return Book{}, false
		}
		value, ok := rowFixed(&f)
		if !ok {
			return Book{}, false
		}
		key := sc.normalise(f.sym)
		if len(sc.arena)+len(key) > math.MaxUint32 {
			return Book{}, false
		}
		i := maphash.Bytes(bookSeed, key) & mask
		for {
			s := slots[i]
			if s == 0 {
				slots[i] = uint32(len(sc.ents) + 1)
				sc.ents = append(sc.ents, fastEnt{off: uint32(len(sc.arena)), n: uint32(len(key)), net: value})
				sc.arena = append(sc.arena, key...)
				break
			}
			e := &sc.ents[s-1]
			if bytes.Equal(sc.arena[e.off:e.off+e.n], key) {
				if e.net, ok = addFixed(e.net, value); !ok {
					return Book{}, false
				}
				break
			}
			i = (i + 1) & mask
		}
	}
	syms := string(sc.arena) // one allocation for every symbol
	exps := make([]Exposure, len(sc.ents))
	gross, hasGross := fixed{}, true
	for k, e := range sc.ents {
		x := &exps[k]
		x.Symbol = syms[e.off : e.off+e.n]
		x.Net = e.net.amount()
		if hasGross {
			gross, hasGross = addFixed(gross, e.net.abs())
		}
	}
	idx := &bookIndex{slots: slots, exps: &exps[0], n: len(exps), hasGross: hasGross}
	if hasGross {
		idx.gross = gross.amount()
	}
	return Book{Exposures: exps, idx: idx}, true
}

// bookIndex is the table fastBook netted a book's symbols with, kept so that Net finds a
// symbol without a scan, and the book's gross when fixed could sum it (Σ|net| in exposure
// order with Amount.Add gives the same Amount: the precision is the largest one, the sum
// exact).
type bookIndex struct {
	slots    []uint32  // exposure index + 1 at maphash(symbol) or the next free slot; 0 is empty
	exps     *Exposure // &Exposures[0] when built
	n        int       // len(Exposures) when built
	gross    money.Amount
	hasGross bool
}

// covers reports whether x was built for exps (not a replaced or re-sliced list).
func (x *bookIndex) covers(exps []Exposure) bool {
	return x != nil && len(exps) == x.n && x.n > 0 && &exps[0] == x.exps
}

// find returns the index of symbol in exps, which x covers.
func (x *bookIndex) find(exps []Exposure, symbol string) (int, bool) {
	mask := uint64(len(x.slots) - 1)
	for i := maphash.String(bookSeed, symbol) & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		if exps[s-1].Symbol == symbol {
			return int(s - 1), true
		}
	}
}

// normalise writes pystr.Upper(sym) into sc.key (sym is already stripped).
func (sc *bookScratch) normalise(sym string) []byte {
	key := sc.key[:0]
	for i := 0; i < len(sym); i++ {
		c := sym[i]
		if c >= utf8.RuneSelf {
			key = append(key[:0], pystr.Upper(sym)...)
			break
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		key = append(key, c)
	}
	sc.key = key
	return key
}

// release gives the scratch back, unless a huge payload grew it.
func (sc *bookScratch) release() {
	if cap(sc.ents) > 1<<16 || cap(sc.arena) > 1<<20 || cap(sc.key) > 1<<12 {
		return
	}
	sc.ents, sc.arena, sc.key = sc.ents[:0], sc.arena[:0], sc.key[:0]
	bookScratchPool.Put(sc)
}
