package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/store"
)

// crashBars is a replay of one symbol alternating 100 and 50 every second (time_scale 1): the
// price the paper broker marks with is the fake clock's choice.
const crashBars = `time,symbol,open,high,low,close,volume
2026-01-01T00:00:00Z,CRSH,100,100,100,100,1000
2026-01-01T00:00:01Z,CRSH,50,50,50,50,1000
`

const lossMandate = `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 20000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity"], "max_trades_per_day": 20},
 "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []},
 "flatten_on_halt": true, "controls": {"max_daily_loss_usd": 500}}`

// TestPaperSessionLosesPastTheDailyLimitAndHalts is the end-to-end run of issue 29 item 1: a
// paper session buys at 100, the price falls to 50 (a 5,000 loss against a 500 limit) and,
// with no order from anyone, the session's equity read trips the broker's HALT with reason
// loss_limit, pauses the agent, publishes the crossing, audits the trip and the crossing once,
// and the halt action closes the position (flatten_on_halt).
func TestPaperSessionLosesPastTheDailyLimitAndHalts(t *testing.T) {
	s, clock := openCrashSession(t, "", nil)
	ctx := context.Background()
	if halt.IsHalted(s.rt.Root, "paper") {
		t.Fatal("halted before any loss")
	}
	events := s.eng.Bus.Subscribe(ctx, 256)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { s.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()
	clock.Advance(time.Second) // the price falls to 50: equity 95,000 against the day's 100,000

	// The crossing's event and the halt action's report come in either order: the watcher
	// starts the action as soon as the gate's HALT file appears, and a paper flatten can finish
	// before the gate has published the crossing.
	var ev, rep engine.Event
	livetest.WaitForWithin(t, events, "the loss-limit event and the halt action's report", 30*time.Second, func(e engine.Event) bool {
		switch {
		case e.Kind == engine.EvLossLimit:
			ev = e
		case e.Kind == engine.EvFlatten && e.Report != nil:
			if ev.Kind == "" {
				t.Logf("the halt action's report came before the loss-limit event")
			}
			rep = e
		}
		return ev.Kind != "" && rep.Kind != ""
	})
	if ev.Loss == nil || ev.Loss.Gauge.Limit != live.LimitDailyLoss || !ev.Loss.Tripped {
		t.Fatalf("loss event = %+v, want max_daily_loss_usd tripped", ev.Loss)
	}
	a, _ := halt.ReadSentinel(s.rt.Root, live.HaltSentinel, live.BrokerScope("paper"))
	if a == nil || !strings.HasPrefix(a.Reason, "loss_limit: daily loss 50") {
		t.Fatalf("HALT file = %+v, want reason loss_limit", a)
	}
	if !s.eng.Paused() {
		t.Error("the agent is not paused")
	}
	if !rep.Report.Flat() {
		t.Errorf("flatten_on_halt: %s, want FLAT", rep.Report.Summary())
	}
	evs, err := s.rt.DB.Events(ctx, store.Filter{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, e := range evs {
		if e.Reason == string(live.ReasonLossLimit) {
			counts[e.Type]++
		}
		if e.Type == live.KindHaltTripped && e.ActorKind == string(live.ActorExternal) {
			t.Errorf("the gate's own HALT was audited as written from outside: %s", e.Summary)
		}
	}
	if counts[live.KindHaltTripped] != 1 || counts[live.KindLossLimitCrossed] != 1 {
		t.Errorf("loss_limit records = %v, want one halt_tripped and one loss_limit_crossed", counts)
	}
}

// openCrashSession opens a paper session over the crash replay (extra is added to config.toml
// after its [paper] table; getenv, when set, answers the session's environment), commits
// lossMandate and buys 100 CRSH at 100. The caller runs it and advances the clock onto the
// 50 bar; the session is closed when the test ends.
func openCrashSession(t *testing.T, extra string, getenv func(string) string) (*Session, *livetest.Clock) {
	t.Helper()
	home := t.TempDir()
	bars := filepath.Join(home, "bars.csv")
	if err := os.WriteFile(bars, []byte(crashBars), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "[paper]\nreplay = \"" + bars + "\"\ntime_scale = 1\n" + extra
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	clock := livetest.NewClock(time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC))
	o := testOptions(home)
	o.Env.Now = clock.Now
	if getenv != nil {
		o.Getenv = getenv
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if _, err := CommitMandate(s.rt, "paper", []byte(lossMandate), "test", 30, "paper", live.Operator("test", s.id)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if q, _ := s.broker.Quote(ctx, "CRSH"); q.Last.String() != "100" {
		clock.Advance(time.Second) // onto a 100 bar
	}
	hundred := money.FromInt(100)
	in := live.OrderIntent{Symbol: "CRSH", Side: live.Buy, InstrumentType: live.Equity, Quantity: &hundred}
	if d := s.gate.Submit(ctx, gate.Submission{Broker: s.broker, Intent: &in, Actor: live.Agent("test", s.id)}); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("opening buy: %s", d.Message())
	}
	return s, clock
}
