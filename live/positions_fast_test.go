package live

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"cockpit/internal/benchcorpus"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// sameBook fails unless ParsePositions and the old reader agree on payload: the same error
// text (wrapping errPositions), the same exposures in the same order with identical Amounts
// (not only equal values), the same Gross and Net, and the same CheckMandate answer for orders
// on the book's symbols and on one it does not hold.
func sameBook(t testing.TB, label string, payload any) {
	t.Helper()
	got, want := ParsePositions(payload), oldParsePositions(payload)
	if (got.Err == nil) != (want.Err == nil) || (got.Err != nil && got.Err.Error() != want.Err.Error()) {
		t.Fatalf("%s: error: got %v, want %v", label, got.Err, want.Err)
	}
	if got.Err != nil {
		if !errors.Is(got.Err, errPositions) {
			t.Fatalf("%s: error %v does not wrap errPositions", label, got.Err)
		}
		return
	}
	if len(got.Exposures) != len(want.Exposures) || (got.Exposures == nil) != (want.Exposures == nil) {
		t.Fatalf("%s: exposures: got %v, want %v", label, got.Exposures, want.Exposures)
	}
	for i := range want.Exposures {
		if g, w := got.Exposures[i], want.Exposures[i]; !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: exposure %d: got %#v, want %#v", label, i, g, w)
		}
	}
	if g, w := got.Gross(), want.Gross(); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: gross: got %#v, want %#v", label, g, w)
	}
	syms := []string{"AAPL", "", "ZZZ-NOT-HELD"}
	for _, e := range want.Exposures {
		syms = append(syms, e.Symbol)
	}
	if len(syms) > 40 {
		syms = syms[:40]
	}
	m := testMandate()
	m.Universe.ExcludeSymbols = nil
	for _, sym := range syms {
		if g, w := got.Net(sym), want.Net(sym); !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: net %q: got %#v, want %#v", label, sym, g, w)
		}
		for _, in := range []OrderIntent{buy(sym, "100"), sell(sym, "100"), buy(sym, "0.01")} {
			gb := CheckMandate(context.Background(), CheckRequest{Mandate: m, Intent: in, Book: got, DailyCount: 1})
			wb := CheckMandate(context.Background(), CheckRequest{Mandate: m, Intent: in, Book: want, DailyCount: 1})
			if gs, ws := breachText(gb), breachText(wb); gs != ws {
				t.Fatalf("%s: %s %s: got %s, want %s", label, in.Side, sym, gs, ws)
			}
		}
	}
}

func breachText(b *Breach) string {
	if b == nil {
		return "ALLOW"
	}
	return fmt.Sprintf("%s %s %s attempted=%s limit=%s", b.Verdict(), b.Kind, b.Message(), b.Attempted, b.LimitValue)
}

// payloadKeys are the row keys the generated payloads draw from: every key a row is read by,
// and others.
var payloadKeys = []string{"symbol", "ticker", "code", "instrument", "quantity", "qty", "shares",
	"market_value", "marketValue", "value_usd", "value", "price", "last_price", "mark_price",
	"market_price", "side", "other", "Symbol", "avg_price"}

// payloadNumbers are number texts in every shape money reads or refuses, as JSON numbers or
// inside strings.
var payloadNumbers = []string{"0", "-0", "1", "-3", "12.25", "100.10", "0.000", "7.5000", "-0.5",
	"123456789012345678", "999999999999999999", "9223372036854775807", "9223372036854775808",
	"-9223372036854775807", "12345678901234567890123", "0.1234567890123456789", "0.12345678901234567891",
	"1.0000000000000000000", "1e5", "2E-3", "1e400", "4900.01", "3.14159265358979",
	"99999999999999999.99", "0.0000000000000000001", "500000000", "123456789.123456789"}

var payloadStrings = []string{`"AAPL"`, `" msft "`, `"aapl"`, `"Aapl"`, `"  "`, `""`, `"straße"`,
	`"\u00a0nvda\u2003"`, `"ǆ"`, `"İx"`, `"long"`, `"SHORT"`, `"Sell"`, `"BUY"`, `"ſell"`, `"lonG "`,
	`"abc"`, `"1_000"`, `" 12 "`, `"+5"`, `"5."`, `".5"`, `"-.5"`, `"NaN"`, `"inf"`, `"-Infinity"`,
	`"\u00a012.5"`, `"0000000000000000000000000000000000000000012"`, `"000000000000000000000000000000000000012"`,
	`"１２"`, `"12.5\u2003"`, `"+"`, `"-"`}

var payloadOthers = []string{`null`, `true`, `false`, `[]`, `{}`, `[1]`, `{"a": 1}`, `NaN`, `Infinity`, `-Infinity`}

func randomValue(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return payloadStrings[r.IntN(len(payloadStrings))]
	case 1:
		return payloadOthers[r.IntN(len(payloadOthers))]
	case 2:
		return `"` + payloadNumbers[r.IntN(len(payloadNumbers))] + `"`
	}
	return payloadNumbers[r.IntN(len(payloadNumbers))]
}

// plausibleRow is a row in one of the shapes brokers send, with symbols drawn from a small set
// (so they repeat in different spellings) and numbers of every shape.
func plausibleRow(r *rand.Rand) string {
	syms := []string{"AAPL", "aapl", " Aapl ", "MSFT", "msft\t", "BTC/USD", "straße", "STRASSE", "X", "spy"}
	sym := fmt.Sprintf("%q", syms[r.IntN(len(syms))])
	num := func() string {
		n := payloadNumbers[r.IntN(len(payloadNumbers))]
		if r.IntN(3) == 0 {
			return `"` + n + `"`
		}
		return n
	}
	small := func() string {
		return fmt.Sprintf("%d.%0*d", r.IntN(100000)-50000, r.IntN(4), r.IntN(100))
	}
	pick := num
	if r.IntN(3) > 0 {
		pick = small
	}
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf(`{"symbol": %s, "market_value": %s, "quantity": %s}`, sym, pick(), pick())
	case 1:
		return fmt.Sprintf(`{"ticker": %s, "qty": %s, "last_price": %s}`, sym, pick(), pick())
	case 2:
		return fmt.Sprintf(`{"symbol": %s, "value": %s, "side": %q}`, sym, pick(), []string{"short", "long", "BUY", "sell", "flat", ""}[r.IntN(6)])
	case 3:
		return fmt.Sprintf(`{"code": %s, "shares": %s, "price": %s, "mark_price": %s}`, sym, pick(), pick(), pick())
	}
	return fmt.Sprintf(`{"instrument": %s, "marketValue": %s}`, sym, pick())
}

// randomPayloadRow is a row of random keys and values, or now and then not an object.
func randomPayloadRow(r *rand.Rand) string {
	if r.IntN(40) == 0 {
		return randomValue(r)
	}
	if r.IntN(2) == 0 {
		return plausibleRow(r)
	}
	n := r.IntN(7)
	parts := make([]string, 0, n)
	for range n {
		parts = append(parts, fmt.Sprintf("%q: %s", payloadKeys[r.IntN(len(payloadKeys))], randomValue(r)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// randomPayload wraps n rows in one of the shapes PositionRows reads (or a wrong one).
func randomPayload(r *rand.Rand, n int) string {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = randomPayloadRow(r)
	}
	list := "[" + strings.Join(rows, ", ") + "]"
	switch r.IntN(8) {
	case 0:
		return `{"positions": ` + list + `}`
	case 1:
		return `{"data": ` + list + `, "positions": null}`
	case 2:
		keyed := make([]string, n)
		for i, row := range rows {
			keyed[i] = fmt.Sprintf("%q: %s", fmt.Sprint("k", i), row)
		}
		return "{" + strings.Join(keyed, ", ") + "}"
	case 3:
		return `{"positions": ` + randomValue(r) + `}`
	case 4:
		return randomValue(r)
	}
	return list
}

func samePayloadText(t testing.TB, text string) {
	t.Helper()
	doc, err := jsonv.ParseString(text, jsonv.Options{NonFinite: true})
	if err != nil {
		return
	}
	sameBook(t, text, doc)
}

// TestParsePositionsMatchesOld: the fast book equals the old reader's on the benchmark's
// payloads, hand-picked edge cases, and generated payloads of every shape and size.
func TestParsePositionsMatchesOld(t *testing.T) {
	cases := []struct {
		name, payload string
	}{
		{"empty list", `[]`},
		{"empty object", `{}`},
		{"scalar", `"garbage"`},
		{"null", `null`},
		{"positions not a list", `{"positions": {"a": 1}}`},
		{"market value", `[{"symbol":"MSFT","market_value":4900.0}]`},
		{"qty × price, short", `{"positions":[{"symbol":"A","quantity":-10,"price":"490.5"}],"data":"junk"}`},
		{"bad quantity text", `[{"ticker":" msft ","qty":"1_000","last_price":1}]`},
		{"NaN value", `[{"symbol":"X","market_value":NaN}]`},
		{"keyed by symbol, short side", `{"MSFT":{"symbol":"MSFT","value":-5,"side":"short"}}`},
		{"exponent", `[{"symbol":"X","value":1e400}]`},
		{"small exponent", `[{"symbol":"X","value":1e2}]`},
		{"zero quantity, zero value", `[{"symbol":"X","qty":0,"value":"0.00"}]`},
		{"zero quantity, value", `[{"symbol":"X","qty":0,"value":1}]`},
		{"nets to zero then more", `[{"symbol":"X","value":"1.50"},{"symbol":"x","value":"-1.50"},{"symbol":" X","value":"2.5"}]`},
		{"precisions widen", `[{"symbol":"X","value":"1"},{"symbol":"X","value":"0.001"},{"symbol":"Y","value":"3.10"}]`},
		{"product past 19 digits", `[{"symbol":"X","qty":"0.0000000001","price":"0.0000000001"}]`},
		{"product at 19 digits", `[{"symbol":"X","qty":"0.000000001","price":"0.0000000001"}]`},
		{"product past int64", `[{"symbol":"X","qty":"999999999999","price":"99999999999"}]`},
		{"sum past int64", `[{"symbol":"X","value":"9000000000000000000"},{"symbol":"X","value":"900000000000000000"}]`},
		{"gross past int64", `[{"symbol":"X","value":"9000000000000000000"},{"symbol":"Y","value":"-900000000000000000"}]`},
		{"rescale past int64", `[{"symbol":"X","value":"900000000000000000"},{"symbol":"X","value":"0.5"}]`},
		{"leading zeros past 41 bytes", `[{"symbol":"X","value":"0000000000000000000000000000000000000000012"}]`},
		{"no symbol", `[{"value":1}]`},
		{"blank symbol falls to ticker", `[{"symbol":"  ","ticker":"abc","value":1}]`},
		{"symbol not a string", `[{"symbol":5,"code":"c","value":1}]`},
		{"unicode symbol", `[{"symbol":"straße","value":1},{"symbol":"STRASSE","value":2}]`},
		{"side not a string", `[{"symbol":"X","value":3,"side":1}]`},
		{"side ignored with quantity", `[{"symbol":"X","value":3,"qty":2,"side":"short"}]`},
		{"row not an object", `[{"symbol":"X","value":3}, 5]`},
		{"nested value", `[{"symbol":"X","value":{"a":1}}]`},
		{"value beats price", `[{"symbol":"X","value":"2","qty":-1,"price":"oops"}]`},
		{"no value, no price", `[{"symbol":"X","qty":1}]`},
		{"price but no qty", `[{"symbol":"X","price":1}]`},
		{"bench 10", positionsPayload(10)},
		{"bench 100", positionsPayload(100)},
		{"bench 1000", positionsPayload(1000)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := jsonv.ParseString(c.payload, jsonv.Options{NonFinite: true})
			if err != nil {
				t.Fatalf("payload does not parse: %v", err)
			}
			sameBook(t, c.name, doc)
		})
	}
	t.Run("generated", func(t *testing.T) {
		r := rand.New(rand.NewPCG(15, 4))
		for range 20_000 {
			samePayloadText(t, randomPayload(r, r.IntN(12)))
		}
	})
	t.Run("generated plausible", func(t *testing.T) {
		r := rand.New(rand.NewPCG(15, 5))
		for range 5_000 {
			rows := make([]string, 1+r.IntN(30))
			for i := range rows {
				rows[i] = plausibleRow(r)
			}
			samePayloadText(t, "["+strings.Join(rows, ",")+"]")
		}
	})
	t.Run("huge", func(t *testing.T) {
		r := rand.New(rand.NewPCG(15, 6))
		for range 5 {
			rows := make([]string, 5000)
			for i := range rows {
				rows[i] = fmt.Sprintf(`{"symbol": "s%d", "qty": %d, "price": "%d.%02d"}`, r.IntN(3000), r.IntN(2000)-1000, r.IntN(1000), r.IntN(100))
			}
			samePayloadText(t, `{"positions": [`+strings.Join(rows, ",")+`]}`)
		}
	})
}

// TestParsePositionsMatchesOldOnCorpus: the batch corpus's positions (every vector of the
// reference's check_mandate) give the old book and the same verdict with its own mandate
// and intent.
func TestParsePositionsMatchesOldOnCorpus(t *testing.T) {
	for i, line := range benchcorpus.BatchLines(t, 2*84) {
		doc, err := jsonv.ParseString(line, jsonv.Options{NonFinite: true, RejectDuplicates: true})
		if err != nil {
			t.Fatal(err)
		}
		w, err := WhatIfFromJSON(doc.(*jsonv.Object))
		if err != nil {
			t.Fatal(err)
		}
		label := fmt.Sprintf("line %d", i)
		sameBook(t, label, w.Positions)
		m, err := CapsFromJSON(w.Mandate)
		if err != nil {
			continue
		}
		count, _ := dailyCountFromJSON(w.DailyCount)
		in := IntentFromJSON(w.Intent)
		want := oldParsePositions(w.Positions)
		gb := CheckMandate(context.Background(), CheckRequest{Mandate: m, Intent: in, Book: ParsePositions(w.Positions), DailyCount: count, Floors: &StaticFloors{Data: w.UniverseData}})
		wb := CheckMandate(context.Background(), CheckRequest{Mandate: m, Intent: in, Book: want, DailyCount: count, Floors: &StaticFloors{Data: w.UniverseData}})
		if g, w := breachText(gb), breachText(wb); g != w {
			t.Fatalf("%s: verdict: got %s, want %s", label, g, w)
		}
	}
}

// TestParseFixedMatchesMoney: every text parseFixed takes becomes the very Amount money.Parse
// gives (the same coefficient and precision, not only the same value).
func TestParseFixedMatchesMoney(t *testing.T) {
	texts := append([]string{}, payloadNumbers...)
	for _, s := range []string{"+5", "-0.00", "007", "-007.50", "5.", ".5", "", "+", "-", "1.2.3", "1e5",
		"0000000000000000000000000000000000000000012", "000000000000000000000000000000000000012",
		"00000000000000000000000000000000000001.5", "-0000000000000000000000000000000000001.5"} {
		texts = append(texts, s)
	}
	r := rand.New(rand.NewPCG(15, 7))
	for range 100_000 {
		var b strings.Builder
		if r.IntN(3) == 0 {
			b.WriteByte("+-"[r.IntN(2)])
		}
		for range r.IntN(22) {
			b.WriteByte('0' + byte(r.IntN(10)))
		}
		if r.IntN(2) == 0 {
			b.WriteByte('.')
			for range r.IntN(22) {
				b.WriteByte('0' + byte(r.IntN(10)))
			}
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		f, ok := parseFixed(s)
		if !ok {
			continue
		}
		want, err := money.Parse(s)
		if err != nil {
			t.Fatalf("parseFixed(%q) = %v, but money.Parse fails: %v", s, f, err)
		}
		if got := f.amount(); !reflect.DeepEqual(got, want) {
			t.Fatalf("parseFixed(%q).amount() = %#v, want %#v", s, got, want)
		}
	}
}

// FuzzParsePositionsMatchesOld is TestParsePositionsMatchesOld on any JSON payload.
func FuzzParsePositionsMatchesOld(f *testing.F) {
	r := rand.New(rand.NewPCG(15, 8))
	for range 30 {
		f.Add(randomPayload(r, r.IntN(8)))
	}
	f.Add(positionsPayload(12))
	f.Fuzz(func(t *testing.T, text string) { samePayloadText(t, text) })
}

// TestFastBookTakesCommonShapes: the payloads brokers send (and the benchmark's) are read by
// fastBook, not left to the row-by-row reader.
func TestFastBookTakesCommonShapes(t *testing.T) {
	cases := []struct {
		name, payload string
	}{
		{"bench 100", positionsPayload(100)},
		{"strings and spaces", `[{"symbol":" aapl ","qty":" -3 ","price":"12.50"},{"ticker":"straße","value":"+7","side":"Long"}]`},
		{"zero row", `[{"symbol":"X","qty":0,"price":5}]`},
		{"keyed by symbol", `{"MSFT":{"symbol":"MSFT","market_value":4900.0,"quantity":"10"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := jsonv.ParseString(c.payload, jsonv.Options{NonFinite: true})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := PositionRows(doc)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := fastBook(rows); !ok {
				t.Fatalf("fastBook left %s to the row-by-row reader", c.name)
			}
		})
	}
}

// TestBookIndexOnlyForItsExposures: Net and Gross answer from the index only for the list it
// was built with; a book whose Exposures were replaced or re-sliced is summed and scanned.
func TestBookIndexOnlyForItsExposures(t *testing.T) {
	doc, err := jsonv.ParseString(`[{"symbol":"A","value":"1.5"},{"symbol":"B","value":"-2"},{"symbol":"C","value":"4.25"}]`, jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := ParsePositions(doc)
	if b.idx == nil {
		t.Fatal("ParsePositions built no index")
	}
	replaced := append([]Exposure(nil), b.Exposures...)
	replaced[1].Net = amt("10")
	cases := []struct {
		name      string
		exps      []Exposure
		wantGross string
		wantNetC  string
	}{
		{"as built", b.Exposures, "7.75", "4.25"},
		{"re-sliced", b.Exposures[:2], "3.5", "0"},
		{"tail", b.Exposures[1:], "6.25", "4.25"},
		{"replaced", replaced, "15.75", "4.25"},
		{"emptied", b.Exposures[:0], "0", "0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := b
			got.Exposures = c.exps
			if g := got.Gross(); g.Cmp(amt(c.wantGross)) != 0 {
				t.Errorf("Gross: got %s, want %s", g, c.wantGross)
			}
			if g := got.Net("C"); g.Cmp(amt(c.wantNetC)) != 0 {
				t.Errorf("Net(C): got %s, want %s", g, c.wantNetC)
			}
		})
	}
}
