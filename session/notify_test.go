package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/engine/agents/wasmplugin"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/notify"
	"cockpit/store"
)

// hookEnv is the variable the tests' webhook sink reads its URL from.
const hookEnv = "COCKPIT_TEST_HOOK"

// delivery is one webhook POST as the hook saw it.
type delivery struct {
	notify.WebhookPayload
	At time.Time
}

// hook is a local webhook: each POST is decoded onto got; while hold is open, a handler
// waits on it (a dead sink) after saying it entered.
func hook(t testing.TB, hold chan struct{}) (*httptest.Server, chan delivery, chan struct{}) {
	got, entered := make(chan delivery, 256), make(chan struct{}, 256)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p notify.WebhookPayload
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &p); err != nil {
			t.Errorf("webhook body is not the payload: %v: %s", err, b)
		}
		d := delivery{WebhookPayload: p, At: time.Now()}
		if hold != nil {
			entered <- struct{}{}
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		}
		got <- d
	}))
	t.Cleanup(srv.Close)
	return srv, got, entered
}

// notifyOpen opens a paper session whose config is cfg plus a webhook sink at url.
func notifyOpen(t testing.TB, cfg, url string) *Session {
	t.Helper()
	home := t.TempDir()
	body := cfg + "\n[notify]\nrate_per_minute = 10000\n[notify.sinks.hook]\ntype = \"webhook\"\nurl_env = \"" + hookEnv + "\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o := testOptions(home)
	o.Getenv = func(k string) string {
		if k == hookEnv {
			return url
		}
		return ""
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wait returns the next delivery, failing the test if none comes in a minute (a hang guard,
// not a timing assertion).
func wait(t testing.TB, got chan delivery, what string) delivery {
	t.Helper()
	select {
	case d := <-got:
		return d
	case <-time.After(time.Minute):
		t.Fatalf("no webhook delivery for %s", what)
	}
	return delivery{}
}

// TestReviewReachesWebhook (issue 29 item 4, end to end): a paper session where every order
// waits for review; the local webhook gets the review with its deadline and the CLI hint, the
// send is audited (sink, event; not the URL), and denying the review ends the order.
func TestReviewReachesWebhook(t *testing.T) {
	srv, got, _ := hook(t, nil)
	url := srv.URL + "/hooks/T000/s3cr3t-path"
	s := notifyOpen(t, "[policy.global]\nautonomy = \"supervised\"", url)
	root, env := s.rt.Root, s.rt.Env
	result := make(chan engine.Result, 1)
	go func() {
		result <- s.Engine().NewTurn("strategy").Call(context.Background(), "place_order",
			map[string]any{"symbol": "AAPL", "side": "buy", "notional": "100", "reason": "test"})
	}()
	d := wait(t, got, "the review")
	if d.Event != "review" || !strings.HasPrefix(d.Ref, "ap_") && d.Ref == "" || d.Deadline == "" || d.Priority != "high" {
		t.Errorf("payload %+v", d.WebhookPayload)
	}
	if !strings.Contains(d.Text, "cockpit approvals approve "+d.Ref) || !strings.Contains(d.Text, "buy $100 AAPL") {
		t.Errorf("text lacks the order or the hint:\n%s", d.Text)
	}
	if err := s.Backend().Deny(WithOperator(context.Background(), "tui:test"), d.Ref, "test over"); err != nil {
		t.Fatal(err)
	}
	if r := <-result; r.OK() {
		t.Errorf("the denied order went: %+v", r)
	}
	s.Close()
	rt, err := OpenRuntime(env, root)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	evs, err := rt.DB.Events(context.Background(), store.Filter{Type: notify.KindNotification})
	if err != nil || len(evs) != 1 {
		t.Fatalf("notification events %d (%v), want 1", len(evs), err)
	}
	e := evs[0]
	if e.Outcome != notify.OutcomeSent || !strings.Contains(e.Payload, `"sink":"hook"`) || !strings.Contains(e.Payload, `"event":"review"`) {
		t.Errorf("audit row %+v", e)
	}
	all, _ := rt.DB.Events(context.Background(), store.Filter{})
	for _, ev := range all {
		if strings.Contains(ev.Payload+ev.Summary, "s3cr3t-path") {
			t.Errorf("audit row %d (%s) holds the webhook URL: %s %s", ev.Seq, ev.Type, ev.Summary, ev.Payload)
		}
	}
}

// TestDeadWebhookDoesNotBlockOrders: with the webhook stuck on a halt's message, the operator
// resumes and ten orders go through the gate while the webhook still holds that request.
func TestDeadWebhookDoesNotBlockOrders(t *testing.T) {
	hold := make(chan struct{})
	srv, got, entered := hook(t, hold)
	t.Cleanup(func() { close(hold) }) // before the server closes (cleanups run last first)
	s := notifyOpen(t, "", srv.URL+"/dead")
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	states := s.Bus().Subscribe(ctx, 64)
	go s.Run(ctx)
	op := WithOperator(ctx, "tui:test")
	waitState := func(halted bool) {
		t.Helper()
		for {
			select {
			case e := <-states:
				if e.Kind == engine.EvHalt && e.Halt.Broker == "paper" && e.Halt.Halted == halted {
					return
				}
			case <-time.After(time.Minute):
				t.Fatalf("no halted=%v state", halted)
			}
		}
	}
	waitState(false)
	if err := s.Backend().Halt(op, "test halt"); err != nil {
		t.Fatal(err)
	}
	waitState(true)
	<-entered // the worker is inside the webhook's request, which does not answer
	if err := s.Backend().Resume(op, "go on"); err != nil {
		t.Fatal(err)
	}
	waitState(false)
	for i := 0; i < 10; i++ { // the paper mandate allows 12 a minute
		r := s.Engine().NewTurn("strategy").Call(ctx, "place_order", map[string]any{"symbol": "MSFT", "side": "buy", "notional": 50 + i, "reason": "t"})
		if !r.OK() {
			t.Fatalf("order %d: %+v", i, r)
		}
	}
	if n := len(got); n != 0 {
		t.Errorf("the webhook answered %d request(s) while it was held", n)
	}
}

// TestLossLimitHaltReachesWebhook: a halt whose reason is a loss limit (issue 29 item 1 writes
// it) arrives as event loss_limit, saying so, also when it lands before the session's loops run.
func TestLossLimitHaltReachesWebhook(t *testing.T) {
	srv, got, _ := hook(t, nil)
	s := notifyOpen(t, "", srv.URL+"/hook")
	defer s.Close()
	// Tripped between Open and Run: the bus's first state is already halted, and still news.
	if _, err := halt.Trip(s.rt.Root, live.HaltSentinel, live.Scope{Broker: "paper"}, "gate", "loss_limit: day loss 1200 > max_daily_loss_usd 1000", time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Run(ctx)
	var d delivery
	for d = wait(t, got, "the loss-limit halt"); d.Event == "flatten_failed"; d = wait(t, got, "the loss-limit halt") {
	}
	if d.Event != "loss_limit" || d.Priority != "urgent" || !strings.Contains(d.Title, "LOSS LIMIT") || !strings.Contains(d.Text, "max_daily_loss_usd 1000") {
		t.Errorf("payload %+v", d.WebhookPayload)
	}
}

// TestNotifyKeepsTheStoreFirst: with [notify] on, the audit sinks stay one flat list that holds
// the store itself, so the gate still folds its probe into the write-ahead row (and, with the
// Vibe mirror, the mirror is a member, not nested); the plugin's disable kind is the one the
// follower hears.
func TestNotifyKeepsTheStoreFirst(t *testing.T) {
	for _, extra := range []string{"", "[audit]\nvibe_mirror = true"} {
		s := notifyOpen(t, extra, "http://127.0.0.1:9/unused")
		m, ok := s.gate.Audit.(live.MultiSink)
		if !ok {
			t.Fatalf("%q: gate audit %T, want a MultiSink", extra, s.gate.Audit)
		}
		for _, member := range m {
			if _, nested := member.(live.MultiSink); nested {
				t.Errorf("%q: a nested MultiSink in %T", extra, m)
			}
		}
		if _, had := live.SinkWithout(s.gate.Audit, s.rt.DB); !had || s.eng.Audit == nil {
			t.Errorf("%q: the store is not a member of the gate's audit sinks", extra)
		}
		s.Close()
	}
	if wasmplugin.KindDisabled != notify.KindPluginDisabled {
		t.Errorf("wasmplugin.KindDisabled %q, notify.KindPluginDisabled %q", wasmplugin.KindDisabled, notify.KindPluginDisabled)
	}
}

// TestNotifyEnvMissing: a sink whose variable is empty stops the start, naming key and variable.
func TestNotifyEnvMissing(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[notify.sinks.ops]\ntype = \"slack\"\nurl_env = \"NOPE_HOOK\"\n"), 0o600)
	_, err := Open(testOptions(home))
	if err == nil || !strings.Contains(err.Error(), `notify.sinks.ops.url_env = "NOPE_HOOK": the variable is empty`) {
		t.Fatalf("Open: %v", err)
	}
}

// TestFleetDownReachesWebhook: a session whose fleet cannot be reached pages once, as
// fleet_down, after two failed polls of the link.
func TestFleetDownReachesWebhook(t *testing.T) {
	srv, got, _ := hook(t, nil)
	s := notifyOpen(t, fmt.Sprintf("[fleet]\nurl = \"nats://127.0.0.1:%d\"\nhost = \"hx\"", fleetPort(t)), srv.URL+"/hook")
	defer s.Close()
	d := wait(t, got, "the fleet link down")
	if notes := strings.Join(s.Notes(), "\n"); !strings.Contains(notes, "notifications go to hook (webhook)") {
		t.Errorf("start-up notes %q lack the sinks", notes)
	}
	if d.Event != "fleet_down" || d.Title != "cockpit paper: fleet link down" || !strings.Contains(d.Text, "fleet link down: fleet") {
		t.Errorf("payload %+v", d.WebhookPayload)
	}
}

// TestAuditKindsReachWebhook: a failed flatten recorded through the gate's audit sinks, and a
// disabled plugin recorded through the runtime's (where the plugin agent writes), page.
func TestAuditKindsReachWebhook(t *testing.T) {
	srv, got, _ := hook(t, nil)
	s := notifyOpen(t, "", srv.URL+"/hook")
	defer s.Close()
	ctx := context.Background()
	s.gate.Audit.Record(ctx, live.AuditRecord{Kind: live.KindFlatten, Outcome: live.OutcomeError, Broker: "paper",
		Intent: "NOT FLAT: could not verify with the broker: timeout"})
	s.rt.Audit.Record(ctx, live.AuditRecord{Kind: wasmplugin.KindDisabled, Broker: "paper", Intent: "plugin meanrev disabled: trapped"})
	seen := map[string]string{}
	for len(seen) < 2 {
		d := wait(t, got, "the flatten and the plugin")
		seen[d.Event] = d.Text
	}
	if !strings.Contains(seen["flatten_failed"], "NOT FLAT: could not verify") || !strings.Contains(seen["plugin_disabled"], "plugin meanrev disabled") {
		t.Errorf("deliveries %v", seen)
	}
}
