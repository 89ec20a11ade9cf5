package live

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cockpit/internal/benchcorpus"
	"cockpit/live/jsonv"
)

// BenchmarkCheckMandateStream is one CheckMandate call per op over the requests of the 100k
// batch corpus, each with its mandate, intent and book already parsed (lines whose mandate
// the loader refuses are left out: they never reach the check).
func BenchmarkCheckMandateStream(b *testing.B) {
	var reqs []CheckRequest
	var floors []*StaticFloors
	for _, line := range benchcorpus.BatchLines(b, benchcorpus.BatchCases) {
		doc, err := jsonv.ParseString(line, jsonv.Options{NonFinite: true, RejectDuplicates: true})
		if err != nil {
			b.Fatal(err)
		}
		w, err := WhatIfFromJSON(doc.(*jsonv.Object))
		if err != nil {
			b.Fatal(err)
		}
		m, err := CapsFromJSON(w.Mandate)
		if err != nil {
			continue
		}
		count, _ := dailyCountFromJSON(w.DailyCount)
		f := &StaticFloors{Data: w.UniverseData}
		floors = append(floors, f)
		reqs = append(reqs, CheckRequest{Mandate: m, Intent: IntentFromJSON(w.Intent),
			Book: ParsePositions(w.Positions), DailyCount: count, Floors: f})
	}
	ctx := context.Background()
	var allowed, refused int // counted without a map: the loop should cost little beside the call
	defer benchcorpus.ReportCPU(b)()
	for i := 0; b.Loop(); i++ {
		k := i % len(reqs)
		floors[k].Calls = floors[k].Calls[:0]
		if br := CheckMandate(ctx, reqs[k]); br != nil && br.Verdict() != Allow {
			refused++
		} else {
			allowed++
		}
	}
	if allowed == 0 || refused == 0 {
		b.Fatalf("%d allowed, %d refused: the stream should both allow and refuse", allowed, refused)
	}
}

// positionsPayload is a broker payload of n rows in the shapes ParsePositions reads: market
// value, quantity × price, signed by quantity or by side; every tenth symbol repeats.
func positionsPayload(n int) string {
	rows := make([]string, n)
	for i := range rows {
		sym := fmt.Sprintf("SYM%04d", i)
		if i%10 == 9 {
			sym = fmt.Sprintf("SYM%04d", i-5)
		}
		switch i % 3 {
		case 0:
			rows[i] = fmt.Sprintf(`{"symbol": "%s", "market_value": %d.25, "quantity": %d}`, sym, 100+i, 1+i%7)
		case 1:
			rows[i] = fmt.Sprintf(`{"ticker": " %s ", "qty": "-%d", "last_price": %d.5}`, strings.ToLower(sym), 1+i%5, 20+i%50)
		default:
			rows[i] = fmt.Sprintf(`{"symbol": "%s", "value": "%d.10", "side": "short"}`, sym, 10+i)
		}
	}
	return `{"positions": [` + strings.Join(rows, ", ") + `]}`
}

// BenchmarkPositionRows parses a positions payload's rows into a book and checks an order
// against it (rows=10, 100, 1000: the cost should grow linearly). "decoded" starts from the
// decoded JSON value, as a broker client hands it over; "text" parses the JSON text too.
func BenchmarkPositionRows(b *testing.B) {
	m := testMandate()
	m.HardCaps.MaxTotalExposureUSD = amt("100000000")
	m.HardCaps.AccountFundingUSD = amt("100000000")
	m.HardCaps.MaxLeverage = amt("4")
	for _, n := range []int{10, 100, 1000} {
		text := positionsPayload(n)
		doc, err := jsonv.ParseString(text, jsonv.Options{NonFinite: true})
		if err != nil {
			b.Fatal(err)
		}
		check := func(b *testing.B, payload any) {
			book := ParsePositions(payload)
			if book.Err != nil {
				b.Fatal(book.Err)
			}
			if br := CheckMandate(context.Background(), CheckRequest{Mandate: m, Intent: buy("AAPL", "100"), Book: book, DailyCount: 1}); br != nil {
				b.Fatalf("unexpected breach %s", br.Message())
			}
		}
		b.Run(fmt.Sprintf("decoded/rows=%d", n), func(b *testing.B) {
			defer benchcorpus.ReportCPU(b)()
			for b.Loop() {
				check(b, doc)
			}
		})
		b.Run(fmt.Sprintf("text/rows=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			defer benchcorpus.ReportCPU(b)()
			for b.Loop() {
				payload, err := jsonv.ParseString(text, jsonv.Options{NonFinite: true})
				if err != nil {
					b.Fatal(err)
				}
				check(b, payload)
			}
		})
	}
}
