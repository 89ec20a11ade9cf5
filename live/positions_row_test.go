package live

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// oldParsePositions is ParsePositions as it was before the fast book (main at 85f28a1): the
// row-by-row reader alone, each row read by parseRowOld. Its rows, builder and errors are the
// code that was there then (PositionRows, parseRows, bookBuilder, unchanged since), and its
// book carries no index, so Net and Gross scan the exposures as the old book did.
// TestParsePositionsMatchesOld and FuzzParsePositionsMatchesOld hold the fast book to it.
func oldParsePositions(payload any) Book {
	rows, err := PositionRows(payload)
	if err != nil {
		return UnreadableBook(err)
	}
	return parseRows(rows, parseRowOld)
}

// parseRowOld is parseRow as it was before the one-pass scanRow: one lookup per candidate
// key, in precedence order. TestParseRowMatchesOld and FuzzParseRowMatchesOld hold the new
// one to it.
func parseRowOld(row *jsonv.Object) (string, money.Amount, error) {
	sym := ""
	for _, k := range symbolKeys {
		if s, ok := rowString(row, k); ok && pystr.Strip(s) != "" {
			sym = pystr.Upper(pystr.Strip(s))
			break
		}
	}
	if sym == "" {
		return "", money.Zero, errors.New("no symbol")
	}
	qKey, qRaw, hasQty := firstPresentOld(row, quantityKeys)
	var qty money.Amount
	if hasQty {
		var err error
		if qty, err = DecimalFromJSON(qRaw); err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", qKey, err)
		}
	}
	var value money.Amount
	if vKey, vRaw, ok := firstPresentOld(row, valueKeys); ok {
		var err error
		if value, err = DecimalFromJSON(vRaw); err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", vKey, err)
		}
	} else {
		pKey, pRaw, ok := firstPresentOld(row, priceKeys)
		if !hasQty || !ok {
			return "", money.Zero, errors.New("no value and no quantity × price")
		}
		price, err := DecimalFromJSON(pRaw)
		if err != nil {
			return "", money.Zero, fmt.Errorf("%s: %w", pKey, err)
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
	if side, ok := rowString(row, "side"); ok {
		switch pystr.Lower(side) {
		case "long", "buy":
			return sym, value.Abs(), nil
		case "short", "sell":
			return sym, value.Abs().Neg(), nil
		}
	}
	return sym, value, nil
}

func firstPresentOld(row *jsonv.Object, keys []string) (string, any, bool) {
	for _, k := range keys {
		if v, ok := row.Get(k); ok {
			return k, v, true
		}
	}
	return "", nil, false
}

func sameRow(t testing.TB, text string) {
	doc, err := jsonv.ParseString(text, jsonv.Options{NonFinite: true})
	if err != nil {
		return
	}
	row, ok := doc.(*jsonv.Object)
	if !ok {
		return
	}
	s1, v1, e1 := parseRow(row)
	s2, v2, e2 := parseRowOld(row)
	if s1 != s2 || v1.Cmp(v2) != 0 || (e1 == nil) != (e2 == nil) || (e1 != nil && e1.Error() != e2.Error()) {
		t.Fatalf("%s: got (%q, %s, %v), want (%q, %s, %v)", text, s1, v1, e1, s2, v2, e2)
	}
}

// TestParseRowMatchesOld: the one-pass row reader gives the same symbol, value and error as
// the per-key lookups on 200,000 generated rows (randomPayloadRow's: broker shapes and random
// keys, which may repeat; a key repeated in the text keeps its last value).
func TestParseRowMatchesOld(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	for range 200_000 {
		sameRow(t, randomPayloadRow(r))
	}
}

// FuzzParseRowMatchesOld is TestParseRowMatchesOld on any row text.
func FuzzParseRowMatchesOld(f *testing.F) {
	r := rand.New(rand.NewPCG(15, 3))
	for range 20 {
		f.Add(randomPayloadRow(r))
	}
	f.Fuzz(func(t *testing.T, text string) { sameRow(t, text) })
}
