package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/toolbroker"
)

// The gate categories run cockpit's one gate against fakes built from each case's setup. What
// is compared is the decision, the reason, the broker calls, the counter after and the audit
// records' kind and outcome — not Python's return text.

// defaultMandate is the mandate the reference's harness writes when a case's setup has no
// "mandate" key (the vectors' standard mandate).
const defaultMandate = `{"schema_version": 1, "mandate_id": "mandate_test",
 "hard_caps": {"account_funding_usd": 5000.0, "max_order_notional_usd": 750.0, "max_total_exposure_usd": 5000.0,
  "max_leverage": 1.0, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 5},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null,
  "exclude_symbols": ["GME"]},
 "consent": {"created_at": "2026-05-02T15:00:00Z", "consent_token_sha256": "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
  "broker": "%s", "account_ref": "acct_ref_opaque", "expires_at": "2099-01-01T00:00:00Z"}}`

// fixtureLedger is the mandate ledger of a case: the runner is the committer of the mandate
// files it writes, so it records their hashes as cockpit's commit does (DV13).
type fixtureLedger map[string]string

func (l fixtureLedger) LastMandateHash(_ context.Context, broker string) (string, bool, error) {
	h, ok := l[broker]
	return h, ok, nil
}

// applySetup writes the mandate (recording it in ledger), sentinels and counter a case asks
// for and returns a function that releases a held lock.
func applySetup(root live.Root, ledger fixtureLedger, broker string, setup *jsonv.Object, now func() string) (func(), error) {
	release := func() {}
	m, hasMandate := setup.Get("mandate")
	var data []byte
	switch mm := m.(type) {
	case nil:
		if !hasMandate {
			data = []byte(fmt.Sprintf(defaultMandate, broker))
		}
	case *jsonv.Object:
		if raw, ok := str(mm, "raw_text"); ok {
			data = []byte(raw)
		} else if doc, ok := mm.Get("doc"); ok {
			b, err := jsonv.Marshal(live.DecodeFloats(doc), jsonv.Python)
			if err != nil {
				return release, err
			}
			data = b
		}
	}
	if data != nil {
		if err := writeFile(root.MandatePath(broker), data); err != nil {
			return release, err
		}
		ledger[broker] = live.MandateHash(data)
	}
	if h := obj(get(setup, "halt")); h != nil {
		if g, _ := get(h, "global").(bool); g {
			if _, err := halt.Trip(root, live.HaltSentinel, live.GlobalScope, "test", "setup", mustTime(now())); err != nil {
				return release, err
			}
		}
		brokers, _ := get(h, "brokers").([]any)
		for _, b := range brokers {
			name, _ := b.(string)
			if _, err := halt.Trip(root, live.HaltSentinel, live.BrokerScope(name), "test", "setup", mustTime(now())); err != nil {
				return release, err
			}
		}
	}
	if c := obj(get(setup, "counter")); c != nil {
		var text []byte
		if raw, ok := str(c, "raw_text"); ok {
			text = []byte(raw)
		} else {
			text = jsonv.MustMarshal(get(c, "doc"), jsonv.Python)
		}
		if err := writeFile(root.CounterPath(broker), text); err != nil {
			return release, err
		}
	}
	if held, _ := get(setup, "lock_held").(bool); held {
		l, err := counter.TrySubmitLock(root, broker)
		if err != nil {
			return release, err
		}
		release = func() { l.Unlock() }
	}
	return release, nil
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o600)
}

func mustTime(s string) time.Time {
	v, err := live.ParseExpiry(s)
	if err != nil {
		panic(err)
	}
	return v
}

// ---- the MCP gate

// replayCaller answers tool calls from a case's setup.responses (glob patterns allowed, e.g.
// "*order*"), with the harness's defaults otherwise, and records every call.
type replayCaller struct {
	responses *jsonv.Object
	calls     []any
	orders    int
}

func (r *replayCaller) CallTool(_ context.Context, name string, args *jsonv.Object) (any, error) {
	r.calls = append(r.calls, []any{name, args})
	for _, m := range r.responses.Members() {
		if ok, _ := path.Match(m.Key, name); ok || m.Key == name {
			resp := obj(m.Value)
			if msg, ok := str(resp, "raise"); ok {
				return nil, errors.New(msg)
			}
			return live.DecodeFloats(get(resp, "return")), nil
		}
	}
	switch {
	case strings.Contains(name, "order") && strings.HasPrefix(name, "place"):
		r.orders++
		return jsonv.ObjectOf("status", "ok", "order_id", fmt.Sprintf("rh_%d", r.orders), "state", "accepted"), nil
	case strings.Contains(name, "position"):
		return jsonv.ObjectOf("status", "ok", "positions", []any{}), nil
	case strings.Contains(name, "portfolio") || strings.Contains(name, "account"):
		return jsonv.ObjectOf("status", "ok", "equity", jsonv.Number("5000.0")), nil
	case strings.Contains(name, "quote"):
		return jsonv.ObjectOf("status", "ok", "price", jsonv.Number("100.0")), nil
	}
	return jsonv.ObjectOf("status", "ok"), nil
}

// loaderPrices is the data-loader stand-in: a fixed price (or none), recording calls.
type loaderPrices struct {
	price *money.Amount
	calls []any
}

func (l *loaderPrices) LastPrice(_ context.Context, symbol string, class live.AssetClass) (*money.Amount, error) {
	l.calls = append(l.calls, jsonv.ObjectOf("symbol", symbol, "asset_class", string(class)))
	return l.price, nil
}

// profileFor is the Robinhood profile, or for any other MCP broker the generic reads with an
// extractor that keeps every field of the intent, including its asset class (the harness's
// stand-in for a multi-market MCP broker).
func profileFor(broker string) *live.Profile {
	if broker == "robinhood" {
		return live.Robinhood()
	}
	p := *live.GenericMCP
	p.Extract = func(tool string, args *jsonv.Object) (live.OrderIntent, bool) {
		if tool != p.PlaceTool && tool != "place_equity_order" {
			return live.OrderIntent{}, false
		}
		in, _ := live.ExtractGeneric(args)
		return in, in.Symbol != "" && in.Side != ""
	}
	return &p
}

type gateRun struct {
	d       gate.Decision
	calls   []any // [name, args] or [name]
	loader  []any
	audit   []live.AuditRecord
	counter any // the counter file's JSON after the call, nil when absent
	root    live.Root
	broker  string
}

func mcpGateCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	broker, _ := str(c, "broker")
	tool, _ := str(c, "remote_tool")
	setup := obj(get(c, "setup"))
	ledger := fixtureLedger{}
	release, err := applySetup(root, ledger, broker, setup, func() string { return live.FormatTimestamp(e.now) })
	if err != nil {
		return failf("setup: %v", err)
	}
	defer release()
	caller := &replayCaller{responses: obj(get(setup, "responses"))}
	prices := &loaderPrices{}
	if v, ok := setup.Get("loader_price"); ok && v != nil {
		p, err := live.DecimalFromJSON(v)
		if err == nil {
			prices.price = &p
		}
	}
	audit := &auditsink.Memory{}
	g := &gate.Gate{Root: root, Now: func() time.Time { return e.now }, Audit: audit, Journal: &live.MemoryJournal{}, Prices: prices, Mandates: ledger}
	profile := profileFor(broker)
	tb := &toolbroker.Broker{Key: broker, Profile: profile, Caller: caller, Now: g.Now}
	args := obj(live.DecodeFloats(get(c, "kwargs")))
	d := g.Submit(context.Background(), gate.Submission{Broker: tb, Profile: profile, Tool: tool, Args: args, Actor: live.Agent("agent", "sess-1")})
	run := gateRun{d: d, calls: caller.calls, loader: prices.calls, audit: audit.Records(), counter: readCounter(root, broker), root: root, broker: broker}
	exp := obj(get(c, "expected"))
	return compareGate(run, exp, get(exp, "broker_calls"), true, gateDV(c, run, exp))
}

// ---- the direct-SDK gate

// sdkConnector is a direct-SDK connector built from a case's setup.connector.
type sdkConnector struct {
	key       string
	setup     *jsonv.Object
	placeArgs any
	calls     []any
	lookups   int
}

func (s *sdkConnector) reply(op string, fallback any) (any, error) {
	if r := obj(get(s.setup, op)); r != nil {
		if msg, ok := str(r, "raise"); ok {
			return nil, errors.New(msg)
		}
		return live.DecodeFloats(get(r, "return")), nil
	}
	return fallback, nil
}

func (s *sdkConnector) Name() string { return s.key }

func (s *sdkConnector) Quote(_ context.Context, sym string) (live.Quote, error) {
	s.calls = append(s.calls, []any{"get_quote", sym})
	r, err := s.reply("get_quote", jsonv.ObjectOf("status", "ok", "quote", jsonv.ObjectOf("last", jsonv.Number("100.0"))))
	if err != nil {
		return live.Quote{}, live.Transport(err)
	}
	p, ok := live.ParseConnectorQuote(r)
	if !ok {
		return live.Quote{}, errors.New("no usable quote")
	}
	return live.Quote{Symbol: sym, Last: p}, nil
}

func (s *sdkConnector) Positions(context.Context) ([]live.Position, error) {
	s.calls = append(s.calls, []any{"get_positions"})
	r, err := s.reply("get_positions", jsonv.ObjectOf("status", "ok", "positions", []any{}))
	if err != nil {
		return nil, live.Transport(err)
	}
	if o, ok := r.(*jsonv.Object); ok && live.IsErrorEnvelope(o) {
		return nil, live.Rejected(live.EnvelopeError(o, "positions read failed"))
	}
	book := live.ParsePositions(r)
	if book.Err != nil {
		return nil, book.Err
	}
	out := make([]live.Position, len(book.Exposures))
	for i, x := range book.Exposures {
		out[i] = live.Position{Symbol: x.Symbol, MarketValue: x.Net}
	}
	return out, nil
}

func (s *sdkConnector) Account(context.Context) (live.Account, error) {
	s.calls = append(s.calls, []any{"get_account_snapshot"})
	return live.Account{}, nil
}

func (s *sdkConnector) OpenOrders(context.Context) ([]live.Order, error) { return nil, nil }

// PlaceOrder follows the SDK path's rule: only status "ok" is a success; a raise is an
// indeterminate call (cockpit then looks the order up by client id; this connector never saw it).
func (s *sdkConnector) PlaceOrder(_ context.Context, _ live.OrderRequest) (live.Order, error) {
	s.calls = append(s.calls, []any{"place_order", s.placeArgs})
	r, err := s.reply("place_order", jsonv.ObjectOf("status", "ok", "order_id", "X1"))
	if err != nil {
		return live.Order{}, live.Indeterminate(err)
	}
	o, _ := r.(*jsonv.Object)
	if st, _ := str(o, "status"); !strings.EqualFold(st, "ok") {
		return live.Order{Reply: r}, live.Rejected(live.EnvelopeError(o, "broker order returned an error"))
	}
	id, _ := str(o, "order_id")
	return live.Order{ID: id, Status: live.StatusAccepted, Reply: r}, nil
}

func (s *sdkConnector) CancelOrder(context.Context, string) error { return nil }

// OrderByClientID is cockpit's reconciliation lookup; it is not part of the reference's call
// list, so it is counted apart.
func (s *sdkConnector) OrderByClientID(context.Context, string) (live.Order, error) {
	s.lookups++
	return live.Order{}, live.ErrOrderNotFound
}

func (s *sdkConnector) Subscribe(ctx context.Context) <-chan live.OrderUpdate {
	ch := make(chan live.OrderUpdate)
	close(ch)
	return ch
}

// sizingConnector adds the authoritative sizing hook.
type sizingConnector struct{ *sdkConnector }

func (s sizingConnector) NotionalFor(_ context.Context, sym string, qty money.Amount) (money.Amount, error) {
	f, _ := jsonv.ToFloat(jsonv.Number(qty.String()))
	s.calls = append(s.calls, []any{"quantity_notional_usd", sym, jsonv.Number(fmt.Sprint(f))})
	v := get(s.setup, "quantity_notional_usd")
	a, err := live.DecimalFromJSON(v)
	if err != nil {
		return money.Zero, fmt.Errorf("sizing hook: %v", err)
	}
	return a, nil
}

func sdkGateCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	broker, _ := str(c, "broker")
	setup := obj(get(c, "setup"))
	ledger := fixtureLedger{}
	release, err := applySetup(root, ledger, broker, setup, func() string { return live.FormatTimestamp(e.now) })
	if err != nil {
		return failf("setup: %v", err)
	}
	defer release()
	conn := &sdkConnector{key: broker, setup: obj(get(setup, "connector")), placeArgs: get(c, "place_kwargs")}
	var b live.Broker = conn
	if conn.setup.Has("quantity_notional_usd") {
		b = sizingConnector{conn}
	}
	audit := &auditsink.Memory{}
	g := &gate.Gate{Root: root, Now: func() time.Time { return e.now }, Audit: audit, Journal: &live.MemoryJournal{}, Mandates: ledger}
	in := live.IntentFromJSON(obj(live.DecodeFloats(get(c, "intent"))))
	d := g.Submit(context.Background(), gate.Submission{Broker: b, Intent: &in, Actor: live.Agent("agent", "sess-sdk")})
	run := gateRun{d: d, calls: conn.calls, audit: audit.Records(), counter: readCounter(root, broker), root: root, broker: broker}
	exp := obj(get(c, "expected"))
	return compareGate(run, exp, get(exp, "connector_calls"), false, gateDV(c, run, exp))
}

// sdkLiveActionCase maps the reference's execute_live_action: a risk-reducing action is
// cockpit's operator path (no mandate, halt or lock); a risk-increasing one is the gate with
// the action as the forward.
func sdkLiveActionCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	const broker = "alpaca"
	setup := obj(get(c, "setup"))
	ledger := fixtureLedger{}
	release, err := applySetup(root, ledger, broker, setup, func() string { return live.FormatTimestamp(e.now) })
	if err != nil {
		return failf("setup: %v", err)
	}
	defer release()
	args := obj(get(c, "args"))
	audit := &auditsink.Memory{}
	g := &gate.Gate{Root: root, Now: func() time.Time { return e.now }, Audit: audit, Journal: &live.MemoryJournal{}, Mandates: ledger}
	action := jsonv.ObjectOf("position_id", "P1")
	executed := false
	do := func(context.Context) (any, error) {
		executed = true
		return jsonv.ObjectOf("status", "ok", "position_id", "P1"), nil
	}
	conn := &sdkConnector{key: broker, setup: jsonv.NewObject()}
	var d gate.Decision
	reducing, _ := get(args, "risk_reducing").(bool)
	refusal, _ := str(args, "structural_reason")
	intent := obj(live.DecodeFloats(get(args, "intent")))
	switch {
	case reducing || refusal != "":
		d = g.OperatorAction(context.Background(), broker, "close_position", action, live.Agent("agent", "sess-act"), refusal, do)
	default:
		act := &actionBroker{sdkConnector: conn, do: do}
		sub := gate.Submission{Broker: act, Actor: live.Agent("agent", "sess-act"), Tool: "close_position", Args: action}
		if intent != nil {
			in := live.IntentFromJSON(intent)
			sub.Intent = &in
			sub.Args = nil
		}
		d = g.Submit(context.Background(), sub)
	}
	exp := obj(get(c, "expected"))
	if want, _ := get(exp, "executed").(bool); want != executed {
		return failf("executed=%v, oracle %v", executed, want)
	}
	run := gateRun{d: d, calls: conn.calls, audit: audit.Records(), counter: readCounter(root, broker), root: root, broker: broker}
	return compareGate(run, exp, get(exp, "connector_calls"), false, "")
}

// actionBroker forwards a risk-increasing live action as the gate's single forward.
type actionBroker struct {
	*sdkConnector
	do func(context.Context) (any, error)
}

func (a *actionBroker) PlaceOrder(ctx context.Context, _ live.OrderRequest) (live.Order, error) {
	r, err := a.do(ctx)
	if err != nil {
		return live.Order{}, live.Rejected(err.Error())
	}
	return live.Order{Status: live.StatusAccepted, Reply: r}, nil
}

func readCounter(root live.Root, broker string) any {
	data, err := os.ReadFile(root.CounterPath(broker))
	if err != nil {
		return nil
	}
	v, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
	if err != nil {
		return string(data)
	}
	return v
}
