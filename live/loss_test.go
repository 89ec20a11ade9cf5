package live

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

func withControls(controls string) string {
	return strings.Replace(validMandate, `"schema_version": 1,`, `"schema_version": 1, "controls": `+controls+`,`, 1)
}

func TestLossControlsParse(t *testing.T) {
	m, err := ParseMandate([]byte(withControls(`{"max_daily_loss_usd": 500, "max_drawdown_pct": 2.5}`)))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Controls
	if !c.HasLossLimits() || c.MaxDailyLossUSD.String() != "500" || c.MaxDrawdownPct.String() != "2.5" {
		t.Fatalf("controls = %+v", c)
	}
	again, err := ParseMandate([]byte(mustString(m.Document())))
	if err != nil {
		t.Fatalf("loss limits do not round-trip: %v", err)
	}
	if got, want := again.Controls.MaxDrawdownPct.String(), "2.5"; got != want {
		t.Fatalf("round trip drawdown = %s, want %s", got, want)
	}
	if got := m.Controls.Fields(); len(got) != 2 || got[0][0] != LimitDailyLoss || got[1][0] != LimitDrawdown {
		t.Fatalf("Fields = %v, want the two loss limits in schema order", got)
	}
	off, err := ParseMandate([]byte(withControls(`{"max_daily_loss_usd": null}`)))
	if err != nil || off.Controls.HasLossLimits() {
		t.Fatalf("null loss limit: err=%v controls=%+v, want off", err, off.Controls)
	}
}

// TestLossControlsReject: DV1 for the loss limits — non-finite numbers, strings, booleans,
// negative, zero and a drawdown over 100 % reject the mandate naming the field and the value.
func TestLossControlsReject(t *testing.T) {
	cases := []struct {
		name, controls, field, value string
	}{
		{"NaN", `{"max_daily_loss_usd": NaN}`, "controls.max_daily_loss_usd", "nan"},
		{"Infinity", `{"max_drawdown_pct": Infinity}`, "controls.max_drawdown_pct", "+Inf"},
		{"string", `{"max_daily_loss_usd": "500"}`, "controls.max_daily_loss_usd", "'500'"},
		{"boolean", `{"max_drawdown_pct": true}`, "controls.max_drawdown_pct", "true"},
		{"negative", `{"max_daily_loss_usd": -1}`, "controls.max_daily_loss_usd", "-1"},
		{"zero", `{"max_daily_loss_usd": 0}`, "controls.max_daily_loss_usd", "0"},
		{"over 100 %", `{"max_drawdown_pct": 100.5}`, "controls.max_drawdown_pct", "100.5"},
		{"list", `{"max_drawdown_pct": [5]}`, "controls.max_drawdown_pct", "[5]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMandate([]byte(withControls(c.controls)))
			var me *MandateError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want a MandateError", err)
			}
			if me.Field != c.field || !strings.EqualFold(me.Value, c.value) {
				t.Fatalf("field=%q value=%q, want field=%q value=%q (%v)", me.Field, me.Value, c.field, c.value, err)
			}
		})
	}
	if _, err := ParseMandate([]byte(withControls(`{"max_drawdown_pct": 100}`))); err != nil {
		t.Fatalf("max_drawdown_pct 100 refused: %v", err)
	}
}

func TestEquityMarkNext(t *testing.T) {
	day1 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	var m EquityMark
	steps := []struct {
		at             time.Time
		equity         string
		start, peak    string
		changed, fails bool
	}{
		{day1, "1000", "1000", "1000", true, false},
		{day1.Add(time.Minute), "990", "1000", "1000", false, false},
		{day1.Add(2 * time.Minute), "1010", "1000", "1010", true, false},
		{day1.Add(3 * time.Minute), "0", "1000", "1010", false, true}, // an unreadable equity marks nothing
		{day1.Add(14 * time.Hour), "995", "995", "995", true, false},  // the next UTC day starts again
	}
	for i, s := range steps {
		next, changed, err := m.Next(s.at, money.MustParse(s.equity))
		if (err != nil) != s.fails {
			t.Fatalf("step %d: err = %v, want failure %v", i, err, s.fails)
		}
		if got, want := next.Start.String()+"/"+next.Peak.String(), s.start+"/"+s.peak; got != want {
			t.Fatalf("step %d: start/peak = %s, want %s", i, got, want)
		}
		if changed != s.changed {
			t.Fatalf("step %d: changed = %v, want %v", i, changed, s.changed)
		}
		m = next
	}
}

func TestEvaluateLoss(t *testing.T) {
	c := Controls{MaxDailyLossUSD: ptr(amt("500")), MaxDrawdownPct: ptr(amt("2"))}
	mark := EquityMark{Day: "2026-12-03", Start: amt("100000"), Peak: amt("101000")}
	cases := []struct {
		name, equity       string
		lossUsed, ddUsed   string
		lossCross, ddCross bool
	}{
		{"up on the day", "100500", "0", "0.495", false, false},
		{"exactly at the daily limit", "99500", "500", "1.4851", false, false},
		{"one cent over the daily limit", "99499.99", "500.01", "1.4852", true, false},
		{"exactly 2 % under the peak", "98980", "1020", "2", true, false},
		{"drawdown crossed", "98979.99", "1020.01", "2", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := EvaluateLoss(c, mark, amt(tc.equity), time.Time{})
			if len(l.Gauges) != 2 {
				t.Fatalf("gauges = %d, want 2", len(l.Gauges))
			}
			loss, dd := l.Gauges[0], l.Gauges[1]
			if got, want := loss.Used.String(), tc.lossUsed; got != want {
				t.Errorf("daily loss used = %s, want %s", got, want)
			}
			if got, want := dd.Used.String(), tc.ddUsed; got != want {
				t.Errorf("drawdown used = %s, want %s", got, want)
			}
			if loss.Crossed != tc.lossCross || dd.Crossed != tc.ddCross {
				t.Errorf("crossed = %v/%v, want %v/%v", loss.Crossed, dd.Crossed, tc.lossCross, tc.ddCross)
			}
			den := l.Denial(true)
			if (den != nil) != (tc.lossCross || tc.ddCross) {
				t.Errorf("denial = %v, want one when a limit is crossed", den)
			}
		})
	}
	if got, want := EvaluateLoss(c, mark, amt("99000"), time.Time{}).Gauges[0].HaltBelow.String(), "99500"; got != want {
		t.Errorf("daily halt_below = %s, want %s", got, want)
	}
	if got, want := EvaluateLoss(c, mark, amt("99000"), time.Time{}).Gauges[1].HaltBelow.String(), "98980"; got != want {
		t.Errorf("drawdown halt_below = %s, want %s", got, want)
	}
}

func TestLossUnknownFailsClosed(t *testing.T) {
	c := Controls{MaxDailyLossUSD: ptr(amt("500"))}
	l := LossUnknown(c, time.Time{}, errors.New("account read failed"))
	if l.Crossed() != nil {
		t.Fatal("an unknown equity reads as crossed")
	}
	if den := l.Denial(true); den == nil || den.Code != ReasonEquityUnknown {
		t.Fatalf("increasing order: denial = %v, want equity_unknown", den)
	}
	if den := l.Denial(false); den != nil {
		t.Fatalf("reducing order: denial = %v, want none", den)
	}
	if b := l.Breach(true); b == nil || b.Kind != KindData || b.Verdict() != Deny {
		t.Fatalf("breach = %+v, want a data DENY", b)
	}
	if den := LossUnknown(Controls{}, time.Time{}, errors.New("x")).Denial(true); den != nil {
		t.Fatalf("no loss limits: denial = %v, want none", den)
	}
}

// TestWhatIfLossLimits: a what-if line explains the mandate's loss limits (loss_limits in the
// verdict) and denies as the gate does: a crossed limit denies every order (kind loss_limit),
// no equity denies an order that adds exposure (kind data) but not one that only reduces.
func TestWhatIfLossLimits(t *testing.T) {
	mandate := `"mandate": {"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000,
	 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity"], "max_trades_per_day": 5},
	 "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []},
	 "controls": {"max_daily_loss_usd": 500, "max_drawdown_pct": 2}}`
	buy := `"intent": {"symbol": "AAPL", "side": "buy", "notional_usd": 100, "instrument_type": "equity"}`
	sell := `"intent": {"symbol": "AAPL", "side": "sell", "notional_usd": 100, "instrument_type": "equity"}, "positions": [{"symbol": "AAPL", "market_value": 1000}]`
	cases := []struct {
		name, line, verdict, kind, limit string
	}{
		{"inside", `{` + mandate + `, ` + buy + `, "equity": {"current": 99800, "day_start": 100000}}`, "ALLOW", "", ""},
		{"daily loss crossed", `{` + mandate + `, ` + sell + `, "equity": {"current": 99400, "day_start": 100000}}`, "DENY", "loss_limit", LimitDailyLoss},
		{"drawdown crossed", `{` + mandate + `, ` + buy + `, "equity": {"current": 101800, "day_start": 100000, "day_peak": 104000}}`, "DENY", "loss_limit", LimitDrawdown},
		{"no equity, adds exposure", `{` + mandate + `, ` + buy + `}`, "DENY", "data", LimitDailyLoss},
		{"no equity, reduces", `{` + mandate + `, ` + sell + `}`, "ALLOW", "", ""},
		{"equity a string", `{` + mandate + `, ` + buy + `, "equity": {"current": "lots"}}`, "DENY", "data", LimitDailyLoss},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := jsonv.Parse([]byte(c.line), jsonv.Options{})
			if err != nil {
				t.Fatal(err)
			}
			w, err := WhatIfFromJSON(doc.(*jsonv.Object))
			if err != nil {
				t.Fatal(err)
			}
			res := EvaluateWhatIf(context.Background(), w)
			kind, limit := "", ""
			if res.Breach != nil {
				kind, limit = string(res.Breach.Kind), res.Breach.Limit
			}
			if string(res.Verdict) != c.verdict || kind != c.kind || limit != c.limit {
				t.Fatalf("verdict %s %s %s, want %s %s %s (%+v)", res.Verdict, kind, limit, c.verdict, c.kind, c.limit, res.Breach)
			}
			out := jsonv.MustMarshal(res.JSON(), jsonv.Compact)
			if !strings.Contains(string(out), `"loss_limits":{"limits":[{"limit":"max_daily_loss_usd"`) {
				t.Fatalf("verdict JSON does not explain the loss limits: %s", out)
			}
			if got := string(res.AppendJSON(nil)); got != string(out) {
				t.Fatalf("AppendJSON = %s, want JSON()'s %s", got, out)
			}
		})
	}
}
