package main

import (
	"context"
	"fmt"
	"math"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// checkMandateCase runs one check_mandate vector through the same evaluator `cockpit check
// --batch` uses and compares the first breach (kind, limit, verdict, values, detail) and the
// floor-provider calls.
func checkMandateCase(e *env, c *jsonv.Object) outcome {
	w, err := live.WhatIfFromJSON(c)
	if err != nil {
		return failf("unreadable case: %v", err)
	}
	res := live.EvaluateWhatIf(context.Background(), w)
	exp := obj(get(c, "expected"))
	if diff := breachDiff(exp, res); diff != "" {
		if dv := checkDeviation(w, res, exp); dv != "" {
			return deviation(dv, "%s", diff)
		}
		return failf("%s", diff)
	}
	if diff := floorCallsDiff(get(c, "expected_provider_calls"), res.Floors); diff != "" {
		return failf("%s", diff)
	}
	return pass()
}

func verdictText(res live.WhatIfResult) string {
	if res.Breach == nil {
		return "ALLOW"
	}
	return fmt.Sprintf("%s %s/%s (%s)", res.Verdict, res.Breach.Kind, res.Breach.Limit, res.Breach.Message())
}

func breachDiff(exp *jsonv.Object, res live.WhatIfResult) string {
	switch {
	case exp == nil && res.Breach == nil:
		return ""
	case exp == nil:
		return "oracle ALLOW, cockpit " + verdictText(res)
	case res.Breach == nil:
		return fmt.Sprintf("oracle %s, cockpit ALLOW", show(exp))
	}
	b := res.Breach
	var diffs []string
	for _, f := range []struct{ name, want, got string }{
		{"kind", strOf(exp, "kind"), string(b.Kind)},
		{"limit", strOf(exp, "limit"), b.Limit},
		{"verdict", strOf(exp, "verdict"), string(res.Verdict)},
		{"detail", strOf(exp, "detail"), b.Detail},
	} {
		if f.want != f.got {
			diffs = append(diffs, fmt.Sprintf("%s %q, cockpit %q", f.name, f.want, f.got))
		}
	}
	for _, f := range []struct {
		name string
		got  money.Amount
	}{
		{"limit_value", b.LimitValue}, {"attempted_value", b.Attempted}, {"overage", b.Overage()},
	} {
		if !sameNumber(get(exp, f.name), f.got) {
			diffs = append(diffs, fmt.Sprintf("%s %s, cockpit %s", f.name, show(get(exp, f.name)), f.got))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return "oracle " + strings.Join(diffs, "; ")
}

func strOf(o *jsonv.Object, key string) string {
	s, _ := str(o, key)
	return s
}

func floorCallsDiff(expected any, got []live.FloorCall) string {
	list, _ := expected.([]any)
	if len(list) != len(got) {
		return fmt.Sprintf("provider calls %s, cockpit made %d", show(expected), len(got))
	}
	for i, raw := range list {
		want := obj(raw)
		g := got[i]
		if strOf(want, "provider") != g.Provider || strOf(want, "symbol") != g.Symbol || strOf(want, "asset_class") != string(g.AssetClass) {
			return fmt.Sprintf("provider call %d: oracle %s, cockpit %+v", i, show(raw), g)
		}
	}
	return ""
}

// checkDeviation names the deliberate deviation that explains a difference, judged from the
// case's inputs and cockpit's own decision; "" means none applies and the case fails.
func checkDeviation(w live.WhatIf, res live.WhatIfResult, exp *jsonv.Object) string {
	b := res.Breach
	expDetail := strOf(exp, "detail")
	switch {
	case b != nil && b.Kind == live.KindInvalidMandate:
		if hasNonFinite(w.Mandate) {
			return "DV9"
		}
		return "DV1"
	case b != nil && b.Kind == live.KindData && b.Limit == live.LimitTotalExposure:
		if expDetail == b.Detail {
			return "DV4" // both found the book unreadable; cockpit denies instead of pausing
		}
		if hasNonFinite(w.Positions) || hasOverflow(w.Positions) {
			return "DV9"
		}
		if hasPythonOnlyNumber(w.Positions) {
			return "DV10"
		}
	case b != nil && b.Kind == live.KindData && b.Limit == live.LimitTradesPerDay:
		if f, ok := jsonv.ToFloat(w.DailyCount); ok && f < 0 {
			return "DV9"
		}
	case b != nil && b.Kind == live.KindInstrument && b.Cause != "":
		if hasNonFinite(w.Intent) || hasOverflow(w.Intent) {
			return "DV9"
		}
	}
	if exp != nil && exposureLimit(strOf(exp, "limit")) && (b == nil || !exposureLimit(b.Limit)) && reducesOnly(w) {
		return "DV3"
	}
	if atFloatBoundary(w, res, exp) {
		return "DV11"
	}
	return ""
}

func exposureLimit(limit string) bool {
	return limit == live.LimitTotalExposure || limit == live.LimitLeverage || limit == live.LimitFunding
}

// reducesOnly recomputes whether the order only shrinks its symbol's exposure (DV3).
func reducesOnly(w live.WhatIf) bool {
	in := live.IntentFromJSON(w.Intent)
	book := live.ParsePositions(w.Positions)
	if book.Err != nil || in.NotionalUSD == nil {
		return false
	}
	before := book.Net(in.NormalizedSymbol())
	signed := *in.NotionalUSD
	if in.Side == live.Sell {
		signed = signed.Neg()
	}
	return before.Sign() != 0 && before.Sign() != signed.Sign() && signed.Abs().Cmp(before.Abs()) <= 0
}

// atFloatBoundary reports a disagreement on an exposure comparison whose two sides are equal
// to within float64 rounding of the oracle's left-to-right sum (DV11).
func atFloatBoundary(w live.WhatIf, res live.WhatIfResult, exp *jsonv.Object) bool {
	limit := ""
	switch {
	case exp != nil && exposureLimit(strOf(exp, "limit")):
		limit = strOf(exp, "limit")
	case res.Breach != nil && exposureLimit(res.Breach.Limit):
		limit = res.Breach.Limit
	default:
		return false
	}
	m, err := live.CapsFromJSON(w.Mandate)
	in := live.IntentFromJSON(w.Intent)
	book := live.ParsePositions(w.Positions)
	if err != nil || book.Err != nil || in.NotionalUSD == nil {
		return false
	}
	gross := grossAfter(book, in)
	var lhs, rhs money.Amount
	switch limit {
	case live.LimitTotalExposure:
		lhs, rhs = gross, m.HardCaps.MaxTotalExposureUSD
	case live.LimitLeverage:
		lhs, rhs = gross, m.HardCaps.MaxLeverage.Mul(m.HardCaps.AccountFundingUSD)
	case live.LimitFunding:
		lhs, rhs = gross, m.HardCaps.AccountFundingUSD
	}
	l, r := lhs.Float64(), rhs.Float64()
	ulps := math.Abs(l-r) / math.Max(math.Abs(r), 1) / 0x1p-52
	return ulps <= 4
}

func grossAfter(book live.Book, in live.OrderIntent) money.Amount {
	signed := *in.NotionalUSD
	if in.Side == live.Sell {
		signed = signed.Neg()
	}
	sym := in.NormalizedSymbol()
	gross := money.Zero
	seen := false
	for _, e := range book.Exposures {
		net := e.Net
		if e.Symbol == sym {
			net, seen = net.Add(signed), true
		}
		gross = gross.Add(net.Abs())
	}
	if !seen {
		gross = gross.Add(signed.Abs())
	}
	return gross
}

// hasNonFinite reports a NaN or infinity anywhere in v.
func hasNonFinite(v any) bool {
	found := false
	walk(v, func(x any) {
		if _, ok := x.(jsonv.Float); ok {
			found = true
		}
		if s, ok := x.(string); ok {
			switch strings.ToLower(strings.Trim(strings.TrimSpace(s), "+-")) {
			case "nan", "inf", "infinity":
				found = true
			}
		}
	})
	return found
}

// hasOverflow reports a number too large for a float64 (the oracle reads it as infinity).
func hasOverflow(v any) bool {
	found := false
	walk(v, func(x any) {
		if f, ok := jsonv.ToFloat(x); ok && math.IsInf(f, 0) {
			if _, isNum := x.(jsonv.Number); isNum {
				found = true
			}
		}
	})
	return found
}

// hasPythonOnlyNumber reports values only Python's float() reads as numbers: booleans and
// strings with digit underscores (DV10).
func hasPythonOnlyNumber(v any) bool {
	found := false
	walk(v, func(x any) {
		switch t := x.(type) {
		case bool:
			found = true
		case string:
			if strings.Contains(t, "_") && strings.ContainsAny(t, "0123456789") {
				found = true
			}
		}
	})
	return found
}

func walk(v any, f func(any)) {
	f(v)
	switch t := v.(type) {
	case *jsonv.Object:
		for _, m := range t.Members() {
			walk(m.Value, f)
		}
	case []any:
		for _, e := range t {
			walk(e, f)
		}
	}
}
