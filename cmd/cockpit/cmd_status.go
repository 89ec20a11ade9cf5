package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cockpit/config"
	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/readmodel"
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
	fc, fleetErr, closeFleet := a.fleetCount(root)
	defer closeFleet()
	report := readmodel.StatusIn(root, ledger, withConfigured(root, brokersFor(root, key), key), now, fc, fleetErr)
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
		if line := ownerLine(b); line != "" {
			printLine(w, "  Owner:     %s", line)
		}
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
		line := fmt.Sprint(count)
		if maxN != nil {
			line += fmt.Sprintf("/%v", maxN)
		}
		if here, ok := b.Get("orders_here"); ok {
			line += fmt.Sprintf(" fleet-wide (this host %v)", here)
		}
		if e, ok := b.Get("fleet_error"); ok {
			line += fmt.Sprintf(" — this host's count only: the fleet does not answer (%v); the gate denies fleet_unavailable", e)
		}
		printLine(w, "  Orders today (UTC): %s", line)
		for _, line := range lossLines(b) {
			printLine(w, "  %s", line)
		}
	}
}

// ownerLine names the process that owns a broker account (status's "owner"); "" when the
// store could not be asked (nothing is claimed then).
func ownerLine(b *jsonv.Object) string {
	v, asked := b.Get("owner")
	if !asked {
		return ""
	}
	o, _ := v.(*jsonv.Object)
	if o == nil {
		return "none recorded (no cockpit has registered as this account's owner)"
	}
	d, _ := o.Get("describe")
	return fmt.Sprint(d)
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

// fleetCount is the configured fleet's day count for status (nil, nil without a fleet; the
// error when the fleet does not answer).
func (a *App) fleetCount(root live.Root) (readmodel.FleetCount, error, func()) {
	cfg, err := config.Load(root)
	if err != nil || !cfg.Fleet.Enabled() {
		return nil, nil, func() {}
	}
	f, _, err := a.dialFleet(root, 3*time.Second)
	if err != nil {
		return nil, err, func() {}
	}
	return &fleet.Days{F: f}, nil, f.Close
}
