//go:build wasip1

// Command meanrev is an example cockpit strategy plugin: a mean-reversion rule over recent
// closes. Each tick it reads its positions and, per symbol, the last 20 closes; it buys a
// small notional when the last close is stretched below the mean, and sells the position
// when the price is back above it. Everything it does passes the cockpit's gate.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o meanrev.wasm ./examples/plugins/meanrev
package main

import (
	"encoding/json"
	"fmt"
	"math"
)

// symbols must be granted by meanrev.plugin.toml.
var symbols = []string{"AAPL", "MSFT", "SPY"}

const (
	lookback = 20
	entryZ   = -0.8 // buy when the last close is this many deviations under the mean
	exitZ    = 0.2  // sell when it is back above the mean by this much
	notional = "1000"
)

func main() {}

var ticks int

//go:wasmexport tick
func tick() {
	ticks++
	held := map[string]string{}
	if r, ok := positions(); ok && r.Status == "ok" {
		var d struct {
			Positions []struct {
				Symbol string      `json:"symbol"`
				Qty    json.Number `json:"quantity"`
			} `json:"positions"`
		}
		if json.Unmarshal(r.Data, &d) == nil {
			for _, p := range d.Positions {
				held[p.Symbol] = p.Qty.String()
			}
		}
	}
	for _, sym := range symbols {
		z, ok := zscore(sym)
		if !ok {
			continue
		}
		qty, has := held[sym]
		switch {
		case has && qty != "0" && z > exitZ:
			order(sym, map[string]any{"symbol": sym, "side": "sell", "quantity": qty,
				"reason": fmt.Sprintf("meanrev exit: z=%.2f", z)})
		case !has && z < entryZ:
			order(sym, map[string]any{"symbol": sym, "side": "buy", "notional": notional,
				"reason": fmt.Sprintf("meanrev entry: z=%.2f", z)})
		}
	}
}

func order(sym string, args map[string]any) {
	r, ok := callTool("place_order", args)
	if !ok {
		logf("place_order " + sym + ": no result")
		return
	}
	logf(fmt.Sprintf("place_order %s %v: %s %s %s", sym, args["side"], r.Status, r.Reason, r.Detail))
}

// zscore is how far the last close sits from the mean of the look-back, in deviations.
func zscore(sym string) (float64, bool) {
	r, ok := bars(sym, lookback)
	if !ok || r.Status != "ok" {
		return 0, false
	}
	var d struct {
		Closes []json.Number `json:"closes"`
	}
	if json.Unmarshal(r.Data, &d) != nil || len(d.Closes) < 5 {
		return 0, false
	}
	xs := make([]float64, 0, len(d.Closes))
	for _, c := range d.Closes {
		f, err := c.Float64()
		if err != nil {
			return 0, false
		}
		xs = append(xs, f)
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(v / float64(len(xs)))
	if sd == 0 {
		return 0, false
	}
	return (xs[len(xs)-1] - mean) / sd, true
}
