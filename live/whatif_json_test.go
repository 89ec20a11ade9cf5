package live

import (
	"testing"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

func TestAppendJSONIsJSONCompact(t *testing.T) {
	cases := []WhatIfResult{
		{ID: "a", Verdict: Allow},
		{ID: "caf\u00e9 \"q\" \x01 \u2028", Verdict: Deny, Breach: &Breach{Kind: KindData, Detail: "halted"}},
		{ID: "b", Verdict: PauseForReauth, Breach: quantitative(LimitLeverage, money.MustParse("1.0"), money.Inf(1), "x")},
		{ID: "c", Verdict: Deny, Breach: &Breach{Kind: KindQuantitative, Limit: LimitOrderNotional, LimitValue: money.MustParse("750"),
			Attempted: money.Inf(-1), Detail: "", Cause: "because\n"}},
		{ID: "d", Verdict: Deny, Breach: &Breach{Kind: KindInvalidMandate, Limit: "hard_caps.max_leverage", Detail: "bad \xff"}},
		{ID: "e", Verdict: PauseForReauth, Breach: quantitative(LimitTotalExposure, money.MustParse("5000"), money.MustParse("5000.01"), "")},
	}
	for _, r := range cases {
		want := string(jsonv.MustMarshal(r.JSON(), jsonv.Compact))
		if got := string(r.AppendJSON(nil)); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// TestDailyCountSmallIntIsDecimal: the small-integer shortcut gives what the decimal path gives.
func TestDailyCountSmallIntIsDecimal(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-7", "05", "123456789", "-123456789", "1234567890", "2147483648",
		"1.0", "1e2", "-", "", "12a", "999999999", "0.5"} {
		n, ok := smallInt(jsonv.Number(s))
		if !ok {
			continue
		}
		a, err := DecimalFromJSON(jsonv.Number(s))
		if err != nil || !a.IsInteger() || a.Int64() != int64(n) {
			t.Errorf("smallInt(%q) = %d, decimal %v %v", s, n, a, err)
		}
	}
	if _, ok := smallInt("5"); ok {
		t.Error("a string is not a small integer")
	}
}
