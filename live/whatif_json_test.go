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
