package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/session"
)

// knownBrokers lists the broker directories under live/ (valid keys only), sorted.
func knownBrokers(root live.Root) []string {
	brokers, _ := halt.BrokerDirs(root)
	return brokers
}

// brokersFor returns the brokers to report: the one asked for, else every known one, else paper.
func brokersFor(root live.Root, broker string) []string {
	if broker != "" {
		return []string{broker}
	}
	bs := knownBrokers(root)
	if !slices.Contains(bs, live.PaperBroker) {
		bs = append([]string{live.PaperBroker}, bs...)
	}
	return bs
}

func (a *App) cmdStatus(args []string) int {
	fs, home := a.flags("status")
	broker := fs.String("broker", "", "report only this broker")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := a.parse(fs, args); !ok {
		return code
	}
	root, err := a.root(*home)
	if err != nil {
		return a.failf("%v", err)
	}
	if _, err := os.Stat(root.Dir()); err != nil {
		return a.failf("no runtime root at %s (%v): run `cockpit init`, or give --home", root.Dir(), err)
	}
	if err := session.CheckRoot(root); err != nil { // StrictModes: nothing is read from a root others could change
		return a.failf("status: %v", err)
	}
	key := ""
	if *broker != "" {
		if key, err = live.NormalizeBroker(*broker); err != nil {
			return a.usageErr(fs, "--broker: %v", err)
		}
		if known := withConfigured(root, brokersFor(root, ""), ""); !slices.Contains(known, key) {
			return a.failf("no broker %q on %s (known: %s)", key, root.Dir(), strings.Join(known, ", "))
		}
	}
	now := a.Now()
	ledger, closeLedger := openLedger(root)
	defer closeLedger()
	report := statusReport(root, ledger, withConfigured(root, brokersFor(root, key), key), now)
	report.Set("store", a.storeStatus(*home))
	a.addBrokerLinks(*home, report)
	code := a.statusTrouble(root, report) // DV15: a store or config that cannot be used fails status
	if *asJSON {
		a.printJSON(report)
		return code
	}
	a.printStatus(report)
	return code
}

// statusReport gathers the state of the root and brokers as JSON.
func statusReport(root live.Root, ledger live.MandateLedger, brokers []string, now time.Time) *jsonv.Object {
	global := jsonv.ObjectOf(
		"halted", halt.IsGloballyHalted(root),
		"halt", sentinelJSON(root, live.HaltSentinel, live.GlobalScope),
		"reduce_only", sentinelJSON(root, live.ReduceOnlySentinel, live.GlobalScope) != nil,
		"reduce_only_sentinel", sentinelJSON(root, live.ReduceOnlySentinel, live.GlobalScope),
	)
	list := make([]any, 0, len(brokers))
	for _, b := range brokers {
		list = append(list, brokerStatus(root, ledger, b, now))
	}
	warnings := []any{}
	for _, w := range sentinelWarnings(root) {
		warnings = append(warnings, w)
	}
	return jsonv.ObjectOf("home", root.Dir(), "now", live.FormatTimestamp(now), "global", global, "brokers", list,
		"warnings", warnings)
}

func sentinelJSON(root live.Root, s live.Sentinel, scope live.Scope) any {
	a, err := halt.ReadSentinel(root, s, scope)
	if err != nil || a == nil {
		return nil
	}
	return jsonv.ObjectOf("tripped_at", a.TrippedAt, "by", a.By, "reason", a.Reason)
}

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
	o.Set("orders_today", jsonv.Number(fmt.Sprint(count)))
	if m != nil {
		o.Set("max_orders_per_day", jsonv.Number(fmt.Sprint(m.HardCaps.MaxTradesPerDay)))
	} else {
		o.Set("max_orders_per_day", nil)
	}
	if m != nil && m.Controls.HasLossLimits() {
		o.Set("loss_limits", lossStatus(root, ledger, broker, m, now))
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

// storeStatus summarises the audit store without creating one on a root that has none.
func (a *App) storeStatus(home string) any {
	root, err := a.root(home)
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(root.Dir(), "cockpit.db")); err != nil {
		if msg := missingStore(root); msg != "" {
			return jsonv.ObjectOf("error", msg)
		}
		return jsonv.ObjectOf("events", jsonv.Number("0"), "pending_reviews", jsonv.Number("0"), "unsettled_orders", jsonv.Number("0"))
	}
	rt, err := a.openRuntime(home)
	if err != nil {
		return jsonv.ObjectOf("error", err.Error())
	}
	defer rt.close()
	st, err := rt.DB.Stats(context.Background())
	if err != nil {
		return jsonv.ObjectOf("error", err.Error())
	}
	if msg := anchorTrouble(context.Background(), rt.DB); msg != "" {
		return jsonv.ObjectOf("error", msg)
	}
	return jsonv.ObjectOf("events", jsonv.Number(fmt.Sprint(st.Events)), "pending_reviews", jsonv.Number(fmt.Sprint(st.Pending)),
		"unsettled_orders", jsonv.Number(fmt.Sprint(st.Journal)))
}

func (a *App) printStatus(r *jsonv.Object) {
	w := a.Stdout
	home, _ := r.Get("home")
	printLine(w, "cockpit home: %s", home)
	if e, ok := r.Get("config_error"); ok {
		printLine(w, "Config:   INVALID %v", e)
	}
	if st := obj(r, "store"); st != nil {
		if e, ok := st.Get("error"); ok {
			printLine(w, "Audit:    ERROR %v", e)
		} else {
			ev, _ := st.Get("events")
			pr, _ := st.Get("pending_reviews")
			un, _ := st.Get("unsettled_orders")
			printLine(w, "Audit:    %v events, %v review items waiting, %v orders not settled", ev, pr, un)
		}
	}
	g := obj(r, "global")
	printLine(w, "Global:   %s", sentinelLine(g, "halt", "HALTED", "no global halt"))
	if ro := obj(g, "reduce_only_sentinel"); ro != nil {
		printLine(w, "          %s", sentinelLine(g, "reduce_only_sentinel", "REDUCE_ONLY", ""))
	}
	if ws, _ := r.Get("warnings"); ws != nil {
		for _, warning := range ws.([]any) {
			printLine(w, "WARNING:  %v", warning)
		}
	}
	brokers, _ := r.Get("brokers")
	for _, raw := range brokers.([]any) {
		b := raw.(*jsonv.Object)
		name, _ := b.Get("broker")
		state, _ := b.Get("state")
		badge := "LIVE"
		if p, _ := b.Get("paper"); p == true {
			badge = "PAPER"
		}
		fmt.Fprintln(w)
		printLine(w, "%s [%s] — %s%s", name, badge, state, deniedBy(obj(b, "mandate"), state))
		if line := linkLine(b); line != "" {
			printLine(w, "  Link:      %s", line)
		}
		for _, line := range toolLines(b) {
			fmt.Fprintf(w, "  %s\n", line)
		}
		if h := obj(b, "halt"); h != nil {
			printLine(w, "  Halt:      %s", sentinelLine(b, "halt", "HALTED", ""))
		}
		if h := obj(b, "reduce_only_sentinel"); h != nil {
			printLine(w, "  Reduce:    %s", sentinelLine(b, "reduce_only_sentinel", "REDUCE_ONLY", ""))
		}
		m := obj(b, "mandate")
		count, _ := b.Get("orders_today")
		maxN, _ := b.Get("max_orders_per_day")
		printLine(w, "  Mandate:   %s", mandateLine(m))
		if line := verificationLine(m); line != "" {
			printLine(w, "  Integrity: %s", line)
		}
		if maxN != nil {
			printLine(w, "  Orders today (UTC): %v/%v", count, maxN)
		} else {
			printLine(w, "  Orders today (UTC): %v", count)
		}
		for _, line := range lossLines(b) {
			printLine(w, "  %s", line)
		}
	}
}

func obj(o *jsonv.Object, key string) *jsonv.Object {
	v, _ := o.Get(key)
	r, _ := v.(*jsonv.Object)
	return r
}

func sentinelLine(o *jsonv.Object, key, word, none string) string {
	s := obj(o, key)
	if s == nil {
		return none
	}
	get := func(k string) string { v, _ := s.Get(k); str, _ := v.(string); return orUnknown(str) }
	return fmt.Sprintf("%s since %s by %s: %s", word, get("tripped_at"), get("by"), get("reason"))
}

func mandateLine(m *jsonv.Object) string {
	status, _ := m.Get("status")
	switch status {
	case "none":
		return "none on file (no order can pass)"
	case "invalid":
		e, _ := m.Get("error")
		return fmt.Sprintf("INVALID (gate fails closed): %v", e)
	}
	id, _ := m.Get("mandate_id")
	exp, _ := m.Get("expires_at")
	caps := obj(m, "hard_caps")
	get := func(k string) string { v, _ := caps.Get(k); return fmt.Sprint(v) }
	line := fmt.Sprintf("%v, max order $%s, max exposure $%s, leverage %sx, funding $%s, expires %v",
		id, get("max_order_notional_usd"), get("max_total_exposure_usd"), get("max_leverage"), get("account_funding_usd"), exp)
	if status == "expired" {
		return line + " (EXPIRED — re-authorise)"
	}
	if secs, ok := m.Get("expires_in_seconds"); ok {
		if n, ok := secs.(jsonv.Number); ok {
			var s int64
			fmt.Sscan(string(n), &s)
			line += " (in " + humanDuration(time.Duration(s)*time.Second) + ")"
		}
	}
	return line
}

// humanDuration renders d as "3d 4h", "2h 5m" or "45s".
func humanDuration(d time.Duration) string {
	switch {
	case d >= 24*time.Hour:
		return fmt.Sprintf("%dd %dh", d/(24*time.Hour), (d%(24*time.Hour))/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%dh %dm", d/time.Hour, (d%time.Hour)/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm %ds", d/time.Minute, (d%time.Minute)/time.Second)
	}
	return strings.TrimSuffix(fmt.Sprintf("%ds", d/time.Second), "")
}
