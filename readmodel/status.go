package readmodel

import (
	"context"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
)

// Status is `cockpit status` of a root: the global sentinels and, for each broker, its state,
// sentinels, mandate (as the gate checks it) and the day's count, as JSON.
func Status(root live.Root, ledger live.MandateLedger, brokers []string, now time.Time) *jsonv.Object {
	return StatusIn(root, ledger, brokers, now, nil, nil)
}

// StatusIn is Status of a root in a fleet: each broker's orders_today is the fleet's count (as
// the gate counts it there), orders_here this root's share; fleetErr, when the fleet does not
// answer, is said instead (the gate would deny fleet_unavailable).
func StatusIn(root live.Root, ledger live.MandateLedger, brokers []string, now time.Time, fleet FleetCount, fleetErr error) *jsonv.Object {
	global := jsonv.ObjectOf(
		"halted", halt.IsGloballyHalted(root),
		"halt", sentinelJSON(root, live.HaltSentinel, live.GlobalScope),
		"reduce_only", sentinelJSON(root, live.ReduceOnlySentinel, live.GlobalScope) != nil,
		"reduce_only_sentinel", sentinelJSON(root, live.ReduceOnlySentinel, live.GlobalScope),
	)
	list := make([]any, 0, len(brokers))
	for _, b := range brokers {
		o := brokerStatus(root, ledger, b, now)
		switch {
		case fleetErr != nil:
			o.Set("fleet_error", fleetErr.Error())
		case fleet != nil:
			if j, ok := ledger.(live.Journal); ok { // this host's share: its journal (its counter file mirrors the fleet)
				if n, err := j.AcceptedOrders(context.Background(), b, now); err == nil {
					o.Set("orders_here", jsonv.Number(fmt.Sprint(n)))
				}
			}
			if n, err := fleet.Count(context.Background(), b, now.UTC().Format(time.DateOnly)); err != nil {
				o.Set("fleet_error", err.Error())
			} else {
				o.Set("orders_today", jsonv.Number(fmt.Sprint(n)))
			}
		}
		list = append(list, o)
	}
	warnings := []any{}
	for _, w := range SentinelWarnings(root) {
		warnings = append(warnings, w)
	}
	return jsonv.ObjectOf("home", root.Dir(), "now", live.FormatTimestamp(now), "global", global, "brokers", list,
		"warnings", warnings)
}

// sentinelJSON is a sentinel's attribution, nil when it is not there.
func sentinelJSON(root live.Root, s live.Sentinel, scope live.Scope) any {
	a, err := halt.ReadSentinel(root, s, scope)
	if err != nil || a == nil {
		return nil
	}
	return jsonv.ObjectOf("tripped_at", a.TrippedAt, "by", a.By, "reason", a.Reason)
}

// brokerStatus is one broker's part of Status.
func brokerStatus(root live.Root, ledger live.MandateLedger, broker string, now time.Time) *jsonv.Object {
	scope := live.BrokerScope(broker)
	o := jsonv.ObjectOf(
		"broker", broker,
		"paper", live.IsPaperBroker(broker),
		"state", string(halt.StateOf(root, broker)),
		"halted", halt.IsHalted(root, broker),
		"halt", sentinelJSON(root, live.HaltSentinel, scope),
		"reduce_only", halt.IsReduceOnly(root, broker),
		"reduce_only_sentinel", sentinelJSON(root, live.ReduceOnlySentinel, scope),
	)
	if src, ok := ledger.(OwnerSource); ok {
		o.Set("owner", OwnerJSON(src, broker, now))
	}
	count := counter.ReadDailyCount(root, broker, now)
	if j, ok := ledger.(live.Journal); ok { // the gate's count: the file or the journal, whichever is larger (DV14)
		if n, den := counter.DailyCount(context.Background(), root, j, broker, now); den == nil {
			count = n
		}
	}
	mc := mandatefile.Read(context.Background(), root, ledger, broker)
	m, err := mc.Mandate, mc.Err
	mj := jsonv.NewObject()
	switch {
	case mc.State == live.MandateMissing:
		mj.Set("status", "none")
	case m == nil:
		mj.Set("status", "invalid")
		mj.Set("error", err.Error())
	default:
		mj = mandateSummary(m, now)
	}
	setVerification(mj, mc)
	o.Set("mandate", mj)
	if m != nil && m.Controls.HasLossLimits() {
		o.Set("loss_limits", lossStatus(root, ledger, broker, m, now))
	}
	o.Set("orders_today", jsonv.Number(fmt.Sprint(count)))
	if m != nil {
		o.Set("max_orders_per_day", jsonv.Number(fmt.Sprint(m.HardCaps.MaxTradesPerDay)))
	} else {
		o.Set("max_orders_per_day", nil)
	}
	return o
}

// mandateSummary is the status view of a loaded mandate.
func mandateSummary(m *live.Mandate, now time.Time) *jsonv.Object {
	o := jsonv.ObjectOf("status", "active", "mandate_id", m.MandateID, "account_ref", m.Consent.AccountRef,
		"created_at", m.Consent.CreatedAt, "expires_at", m.Consent.ExpiresAt)
	exp, err := m.Expiry()
	switch {
	case err != nil:
		o.Set("status", "expired")
		o.Set("expires_in_seconds", nil)
		o.Set("error", "unparseable expires_at (treated as expired)")
	case !now.Before(exp):
		o.Set("status", "expired")
		o.Set("expires_in_seconds", jsonv.Number("0"))
	default:
		o.Set("expires_in_seconds", jsonv.Number(fmt.Sprint(int64(exp.Sub(now).Seconds()))))
	}
	doc := m.Document()
	caps, _ := doc.Get("hard_caps")
	uni, _ := doc.Get("universe")
	o.Set("hard_caps", caps)
	o.Set("universe", uni)
	o.Set("flatten_on_halt", m.FlattenOnHalt)
	if m.HasControls {
		c, _ := doc.Get("controls")
		o.Set("controls", c)
	}
	return o
}

// setVerification adds the mandate's integrity check (DV13) to its status JSON:
// "verification" is verified, tampered, unverified, missing or invalid.
func setVerification(mj *jsonv.Object, c live.MandateCheck) {
	mj.Set("verification", string(c.State))
	if c.State == live.MandateMissing || c.State == live.MandateInvalid {
		return
	}
	mj.Set("file_sha256", c.Hash)
	if c.Recorded != "" {
		mj.Set("committed_sha256", c.Recorded)
	}
	if !c.Verified() {
		mj.Set("verification_detail", c.Describe())
		if st, _ := mj.Get("status"); st == "active" { // the gate denies every order: not active
			mj.Set("status", string(c.State))
		}
	}
}
