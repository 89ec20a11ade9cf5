package main

import (
	"fmt"
	"strings"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
)

// oracleReasons maps the reference's refusal texts to cockpit's reason codes.
func oracleReasonCodes(reason, broker string) []live.Reason {
	switch reason {
	case "no valid mandate on file":
		return []live.Reason{live.ReasonNoMandate, live.ReasonInvalidMandate}
	case "mandate expired — re-authorize":
		return []live.Reason{live.ReasonExpired}
	case "live trading halted":
		return []live.Reason{live.ReasonHalted}
	case "order intent could not be parsed", "live action missing risk intent (fail-closed)":
		return []live.Reason{live.ReasonNoIntent}
	case "quantity order notional could not be priced (fail-closed)":
		return []live.Reason{live.ReasonNoQuote}
	case "another " + broker + " order submission is already in progress":
		return []live.Reason{live.ReasonLockBusy}
	case "the " + broker + " order-submission lock is unavailable":
		return []live.Reason{live.ReasonLockError}
	}
	return nil
}

// compareGate checks one gate run against the oracle: decision, reason, calls, loader calls,
// counter and audit kinds and outcomes.
func compareGate(run gateRun, exp *jsonv.Object, expCalls any, _ bool, dv string) outcome {
	var diffs []string
	ret := obj(get(exp, "returned"))
	raised := get(exp, "raised") != nil
	d := run.d
	wantDecision := string(live.DecisionAllow)
	if st, _ := str(ret, "status"); st == "blocked" {
		wantDecision, _ = str(ret, "decision")
	}
	if got := string(d.Verdict.Decision()); got != wantDecision {
		diffs = append(diffs, fmt.Sprintf("decision %s, cockpit %s (%s)", wantDecision, got, d.Message()))
	} else if wantDecision != string(live.DecisionAllow) {
		if b := obj(get(ret, "breach")); b != nil {
			if d.Breach == nil || d.Breach.Limit != strOf(b, "limit") || string(d.Breach.Kind) != strOf(b, "kind") {
				diffs = append(diffs, fmt.Sprintf("breach %s/%s, cockpit %s", strOf(b, "kind"), strOf(b, "limit"), d.Message()))
			}
		} else {
			reason, _ := str(ret, "reason")
			codes := oracleReasonCodes(reason, run.broker)
			if codes == nil && d.Reason == live.ReasonStructural && d.Denial != nil && d.Denial.Fields["reason"] == reason {
				codes = []live.Reason{live.ReasonStructural}
			}
			if !containsReason(codes, d.Reason) {
				diffs = append(diffs, fmt.Sprintf("reason %q, cockpit %s", reason, d.Reason))
			}
		}
	}
	if expCalls != nil && !jsonv.Equal(expCalls, toList(run.calls)) {
		diffs = append(diffs, fmt.Sprintf("broker calls %s, cockpit %s", show(expCalls), show(toList(run.calls))))
	}
	if lc := get(exp, "loader_calls"); lc != nil && !jsonv.Equal(lc, toList(run.loader)) {
		diffs = append(diffs, fmt.Sprintf("loader calls %s, cockpit %s", show(lc), show(toList(run.loader))))
	}
	if want := get(exp, "counter_after"); !jsonv.Equal(want, run.counter) {
		diffs = append(diffs, fmt.Sprintf("counter after %s, cockpit %s", show(want), show(run.counter)))
	}
	diffs = append(diffs, auditDiff(get(exp, "audit"), run.audit, raised, d)...)
	if len(diffs) == 0 {
		return pass()
	}
	if dv != "" {
		return deviation(dv, "%s", strings.Join(diffs, "; "))
	}
	return failf("%s", strings.Join(diffs, "; "))
}

// auditDiff compares kinds and outcomes. Where the reference's gate raised out of the forward
// (and so wrote nothing), cockpit must record one indeterminate or failed forward instead:
// the same outcome — not forwarded successfully, not counted — with the audit row kept.
func auditDiff(expected any, got []live.AuditRecord, raised bool, d gate.Decision) []string {
	want, _ := expected.([]any)
	if raised {
		if d.Outcome == live.OutcomeAccepted || len(got) != 1 || got[0].Outcome == live.OutcomeAccepted {
			return []string{fmt.Sprintf("the oracle raised from the forward; cockpit outcome %s with %d audit records", d.Outcome, len(got))}
		}
		return nil
	}
	if len(want) != len(got) {
		return []string{fmt.Sprintf("%d audit records, cockpit %d", len(want), len(got))}
	}
	var diffs []string
	for i, raw := range want {
		w := obj(raw)
		if strOf(w, "kind") != got[i].Kind || strOf(w, "outcome") != got[i].Outcome {
			diffs = append(diffs, fmt.Sprintf("audit %d %s/%s, cockpit %s/%s", i, strOf(w, "kind"), strOf(w, "outcome"), got[i].Kind, got[i].Outcome))
		}
	}
	return diffs
}

func containsReason(list []live.Reason, r live.Reason) bool {
	for _, x := range list {
		if x == r {
			return true
		}
	}
	return false
}

func toList(v []any) []any {
	if v == nil {
		return []any{}
	}
	out := make([]any, len(v))
	for i, x := range v {
		if l, ok := x.([]any); ok {
			inner := make([]any, len(l))
			for j, y := range l {
				if o, ok := y.(*jsonv.Object); ok && o == nil {
					inner[j] = nil
				} else {
					inner[j] = y
				}
			}
			out[i] = inner
		} else {
			out[i] = x
		}
	}
	return out
}

// gateDV names the deviation that explains a gate difference, from the case's inputs.
func gateDV(c *jsonv.Object, run gateRun, exp *jsonv.Object) string {
	d := run.d
	ret := obj(get(exp, "returned"))
	reason, _ := str(ret, "reason")
	args := live.DecodeFloats(get(c, "kwargs"))
	if args == nil {
		args = live.DecodeFloats(get(c, "intent"))
	}
	switch {
	case reason == "current positions could not be read (fail-closed)" && d.Breach != nil && d.Breach.Kind == live.KindData:
		return "DV4"
	case d.Reason == live.ReasonInvalidMandate:
		if strings.Contains(d.Message(), "non-finite") {
			return "DV9"
		}
		return "DV1"
	case d.Reason == live.ReasonNoIntent && (hasNonFinite(args) || hasOverflow(args)):
		return "DV9"
	case d.Reason == live.ReasonNoIntent && hasPythonOnlyNumber(args):
		return "DV10"
	case d.Breach != nil && d.Breach.Limit == live.LimitAssetClasses && obj(args) != nil && obj(args).Has("asset_class"):
		return "DV2"
	}
	if reason == "mandate expired — re-authorize" && d.Reason != live.ReasonExpired {
		setup := obj(get(c, "setup"))
		if doc := obj(get(obj(get(setup, "mandate")), "doc")); doc != nil {
			exp, _ := str(obj(get(doc, "consent")), "expires_at")
			if strings.TrimSpace(exp) != exp || strings.HasSuffix(exp, "z") {
				return "DV7"
			}
		}
	}
	return ""
}
