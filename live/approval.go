package live

import "cockpit/live/money"

// Approval is a human's one-use grant for one order, passed as data: the grant's id and the
// quantitative breaches the human was shown, at the values shown. The gate waives a breach
// only when the approval covers it (see Covers); every other check still runs.
type Approval struct {
	Grant  string   // the review item's id, recorded on the decision
	Waives []Breach // the breaches shown, each no further than its Attempted value
	// DriftBps is how far a dollar or leverage figure may have moved with the price since the
	// human saw it; the day's trade count gets no tolerance.
	DriftBps int64
	// Mandate is the SHA-256 of the verified mandate the human's card was computed under; the
	// gate refuses the approved order under any other mandate (ReasonMandateChanged).
	Mandate string
}

// Covers reports whether the approval covers breach b found on the re-check: a quantitative
// breach of a limit the human was shown, breached no further than shown. The day's count must
// not have grown at all; a dollar or leverage figure may exceed the shown value by DriftBps,
// no more. A nil approval covers nothing.
func (a *Approval) Covers(b *Breach) bool {
	if a == nil || b == nil || b.Kind != KindQuantitative {
		return false
	}
	for _, s := range a.Waives {
		if s.Limit != b.Limit {
			continue
		}
		if b.Attempted.Cmp(s.Attempted) <= 0 {
			return true
		}
		if b.Limit == LimitTradesPerDay || s.Attempted.IsInf() || b.Attempted.IsInf() {
			return false
		}
		most := s.Attempted.Mul(money.FromInt(10000 + max(a.DriftBps, 0))).Div(money.FromInt(10000))
		return b.Attempted.Cmp(most) <= 0
	}
	return false
}
