package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// extractorCase runs the Robinhood profile's extractor.
func extractorCase(e *env, c *jsonv.Object) outcome {
	tool, _ := str(c, "remote_tool")
	args := obj(live.DecodeFloats(get(c, "kwargs")))
	in, ok := live.Robinhood().Extract(tool, args)
	want := obj(live.DecodeFloats(get(c, "expected")))
	switch {
	case want == nil && !ok:
		return pass()
	case want == nil:
		return failf("extracted %s, oracle none", in.Describe())
	case !ok:
		if hasNonFinite(args) || hasOverflow(args) {
			return deviation("DV9", "oracle extracts a non-finite size; cockpit refuses it")
		}
		if hasPythonOnlyNumber(args) {
			return deviation("DV10", "oracle reads a Python-only number; cockpit refuses it")
		}
		return failf("no intent, oracle %s", show(want))
	}
	got := jsonv.ObjectOf("symbol", in.Symbol, "side", in.Side, "notional_usd", amountOrNil(in.NotionalUSD),
		"quantity", amountOrNil(in.Quantity), "instrument_type", string(in.InstrumentType), "asset_class", nil)
	if in.AssetClass != "" {
		got.Set("asset_class", string(in.AssetClass))
	}
	if !jsonv.Equal(got, want) {
		return failf("intent %s, oracle %s", show(got), show(want))
	}
	return pass()
}

func amountOrNil(a *money.Amount) any {
	if a == nil {
		return nil
	}
	return jsonv.Number(a.String())
}

// quoteCase compares a parsed price; which parser depends on the list.
func quoteCase(parse func(payload any, symbol string) (money.Amount, bool)) func(*env, *jsonv.Object) outcome {
	return func(e *env, c *jsonv.Object) outcome {
		sym, _ := str(c, "symbol")
		payload := live.DecodeFloats(get(c, "payload"))
		p, ok := parse(payload, sym)
		want := live.DecodeFloats(get(c, "expected_price"))
		switch {
		case want == nil && !ok:
			return pass()
		case want == nil:
			return failf("price %s, oracle none", p)
		case !ok:
			if f, _ := jsonv.ToFloat(want); hasNonFinite(want) || f > 1e30 {
				return deviation("DV9", "oracle accepts a non-finite price; cockpit refuses it")
			}
			return failf("no price, oracle %s", show(want))
		case !sameNumber(want, p):
			return failf("price %s, oracle %s", p, show(want))
		}
		return pass()
	}
}

// haltActionsCase reads each expected "<tag>:<broker>" result as the registration that must
// produce it ("global" is the fallback), registers exactly those, and checks what Invoke
// picks for every broker: broker-specific over fallback, nothing when nothing is registered.
func haltActionsCase(e *env, c *jsonv.Object) outcome {
	calls := obj(get(c, "calls"))
	var h halt.Actions
	for _, m := range calls.Members() {
		want, _ := m.Value.(string)
		tag, _, ok := strings.Cut(want, ":")
		if !ok {
			continue
		}
		key := m.Key
		if tag == "global" {
			key = ""
		}
		tag0 := tag
		h.Register(key, func(_ context.Context, b string) halt.Result { return tagged(tag0 + ":" + b) })
	}
	for _, m := range calls.Members() {
		want, _ := m.Value.(string)
		res, ok := h.Invoke(context.Background(), m.Key)
		got := "None"
		if ok {
			got = fmt.Sprint(res)
		}
		if got != want {
			return failf("invoke(%s) = %s, oracle %s", m.Key, got, want)
		}
	}
	return pass()
}

// tagged is a halt action's result that names the registration that ran.
type tagged string

// Flat implements halt.Result; a tag says nothing about the broker.
func (tagged) Flat() bool { return false }

// flattenBroker is a broker holding the case's open orders and positions. fail_on names order
// ids and symbols whose call fails ("envelope:X" answers with an error envelope, which cockpit
// counts as a failure, DV6).
type flattenBroker struct {
	orders    []string
	readFails bool
	positions map[string]money.Amount
	order     []string
	failOn    map[string]bool
	envelope  map[string]bool
	mu        sync.Mutex // a flatten's cancels run concurrently
	submitted []any
}

func newFlattenBroker(c *jsonv.Object) *flattenBroker {
	b := &flattenBroker{positions: map[string]money.Amount{}, failOn: map[string]bool{}, envelope: map[string]bool{}}
	if s, ok := get(c, "open_orders").(string); ok && s == "raise" {
		b.readFails = true
	}
	rows, _ := get(c, "open_orders").([]any)
	for _, r := range rows {
		id, _ := str(obj(r), "order_id")
		b.orders = append(b.orders, id)
	}
	prow, _ := get(c, "positions").([]any)
	for _, r := range prow {
		o := obj(r)
		sym, _ := str(o, "symbol")
		_, v, ok := firstKey(o, "qty", "quantity")
		if !ok {
			continue
		}
		q, err := live.DecimalFromJSON(v)
		if err != nil {
			continue
		}
		b.positions[sym] = q
		b.order = append(b.order, sym)
	}
	fails, _ := get(c, "fail_on").([]any)
	for _, f := range fails {
		s, _ := f.(string)
		if rest, ok := strings.CutPrefix(s, "envelope:"); ok {
			b.envelope[rest] = true
		} else {
			b.failOn[s] = true
		}
	}
	return b
}

func firstKey(o *jsonv.Object, keys ...string) (string, any, bool) {
	for _, k := range keys {
		if v, ok := o.Get(k); ok {
			return k, v, true
		}
	}
	return "", nil, false
}

func (b *flattenBroker) Name() string { return "robinhood" }

func (b *flattenBroker) Quote(context.Context, string) (live.Quote, error) {
	return live.Quote{}, fmt.Errorf("no quotes")
}

func (b *flattenBroker) Positions(context.Context) ([]live.Position, error) {
	var out []live.Position
	for _, sym := range b.order {
		if q := b.positions[sym]; !q.IsZero() {
			out = append(out, live.Position{Symbol: sym, Qty: q})
		}
	}
	return out, nil
}

func (b *flattenBroker) Account(context.Context) (live.Account, error) { return live.Account{}, nil }

func (b *flattenBroker) OpenOrders(context.Context) ([]live.Order, error) {
	if b.readFails {
		b.readFails = false // the re-read after the sweep works
		return nil, fmt.Errorf("read failed")
	}
	out := make([]live.Order, len(b.orders))
	for i, id := range b.orders {
		out[i] = live.Order{ID: id, Status: live.StatusAccepted}
	}
	return out, nil
}

func (b *flattenBroker) PlaceOrder(_ context.Context, r live.OrderRequest) (live.Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.submitted = append(b.submitted, jsonv.ObjectOf("action", "close", "symbol", r.Symbol, "side", r.Side,
		"qty", jsonv.Number(r.Quantity.String()), "type", "market"))
	switch {
	case b.failOn[r.Symbol]:
		return live.Order{}, live.Rejected("broker rejected " + r.Symbol)
	case b.envelope[r.Symbol]:
		return live.Order{}, live.Rejected("broker rejected " + r.Symbol)
	}
	q := b.positions[r.Symbol]
	if r.Side == live.Sell {
		b.positions[r.Symbol] = q.Sub(*r.Quantity)
	} else {
		b.positions[r.Symbol] = q.Add(*r.Quantity)
	}
	return live.Order{ID: "close-" + r.Symbol, Status: live.StatusFilled}, nil
}

func (b *flattenBroker) CancelOrder(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.submitted = append(b.submitted, jsonv.ObjectOf("action", "cancel", "order_id", id))
	switch {
	case b.failOn[id]:
		return live.Rejected("broker rejected " + id)
	case b.envelope[id]:
		return live.Rejected("broker rejected " + id)
	}
	for i, o := range b.orders {
		if o == id {
			b.orders = append(b.orders[:i], b.orders[i+1:]...)
			break
		}
	}
	return nil
}

func (b *flattenBroker) OrderByClientID(context.Context, string) (live.Order, error) {
	return live.Order{}, live.ErrOrderNotFound
}

func (b *flattenBroker) Subscribe(context.Context) <-chan live.OrderUpdate {
	ch := make(chan live.OrderUpdate)
	close(ch)
	return ch
}

// flattenCase runs cockpit's halt action and compares what was cancelled, what was closed,
// the errors, the calls sent and the per-call audit records.
func flattenCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	b := newFlattenBroker(c)
	audit := &auditsink.Memory{}
	g := &gate.Gate{Root: root, Now: func() time.Time { return e.now }, Audit: audit, Journal: &live.MemoryJournal{}}
	var explicit *bool
	if v, ok := get(c, "allow_flatten").(bool); ok {
		explicit = &v
	}
	var m *live.Mandate
	if v, ok := get(c, "mandate_flatten_on_halt").(bool); ok {
		m = &live.Mandate{FlattenOnHalt: v}
	}
	rep := g.Flatten(context.Background(), b, "robinhood", gate.FlattenOptions{
		ClosePositions: gate.FlattenAllowed(explicit, m), Actor: live.System("runtime", "live-runtime"), Settle: time.Nanosecond})
	exp := obj(get(get2(c, "expected"), "report"))
	var diffs []string
	wantCancelled, _ := get(exp, "cancelled_order_ids").([]any)
	if !jsonv.Equal(wantCancelled, strList(rep.Cancelled)) {
		diffs = append(diffs, fmt.Sprintf("cancelled %s, cockpit %v", show(wantCancelled), rep.Cancelled))
	}
	var closed []any
	for _, cl := range rep.Closes {
		if cl.Err == "" {
			closed = append(closed, jsonv.ObjectOf("symbol", cl.Symbol, "qty", jsonv.Number(cl.Qty.String()), "side", cl.Side))
		}
	}
	var wantClosed []any
	sub, _ := get(exp, "flatten_orders_submitted").([]any)
	for _, s := range sub {
		o := obj(s)
		wantClosed = append(wantClosed, jsonv.ObjectOf("symbol", get(o, "symbol"), "qty", get(o, "qty"), "side", get(o, "side")))
	}
	if !jsonv.Equal(toList(wantClosed), toList(closed)) {
		diffs = append(diffs, fmt.Sprintf("closed %s, cockpit %s", show(wantClosed), show(closed)))
	}
	if skipped := get(exp, "flatten_skipped_reason") != nil; skipped != (rep.SkippedReason != "") {
		diffs = append(diffs, fmt.Sprintf("flatten skipped %v, cockpit %q", skipped, rep.SkippedReason))
	}
	diffs = append(diffs, flattenErrorsDiff(get(exp, "errors"), rep.Errors)...)
	if want := get(get2(c, "expected"), "submitted"); !jsonv.Equal(cancelsSorted(toList(asList(want)), isCancelSent), cancelsSorted(toList(b.submitted), isCancelSent)) {
		diffs = append(diffs, fmt.Sprintf("sent %s, cockpit %s", show(want), show(toList(b.submitted))))
	}
	diffs = append(diffs, flattenAuditDiff(get(get2(c, "expected"), "audit"), audit.Records())...)
	if !rep.Verified {
		diffs = append(diffs, "cockpit could not verify: "+rep.VerifyErr)
	}
	if len(diffs) == 0 {
		return pass()
	}
	if unidentifiedOrders(c) && len(rep.Unidentified) > 0 && !rep.Flat() {
		return deviation("DV16", "%s", strings.Join(diffs, "; "))
	}
	if len(b.envelope) > 0 || quantityKeyRows(c) {
		return deviation("DV6", "%s", strings.Join(diffs, "; "))
	}
	return failf("%s", strings.Join(diffs, "; "))
}

func get2(o *jsonv.Object, key string) *jsonv.Object { return obj(get(o, key)) }

func strList(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// unidentifiedOrders reports an open order row whose order_id is missing, null or empty: the
// reference cancels it with order_id null; cockpit sends nothing and reports NOT FLAT (DV16).
func unidentifiedOrders(c *jsonv.Object) bool {
	rows, _ := get(c, "open_orders").([]any)
	for _, r := range rows {
		if id, _ := str(obj(r), "order_id"); strings.TrimSpace(id) == "" {
			return true
		}
	}
	return false
}

func quantityKeyRows(c *jsonv.Object) bool {
	rows, _ := get(c, "positions").([]any)
	for _, r := range rows {
		if o := obj(r); o.Has("quantity") && !o.Has("qty") {
			return true
		}
	}
	return false
}

// flattenErrorsDiff compares errors by phase and item; the reference calls the close phase
// "flatten".
func flattenErrorsDiff(expected any, got []gate.FlattenError) []string {
	want, _ := expected.([]any)
	var w, g []string
	for _, raw := range want {
		o := obj(raw)
		phase, _ := str(o, "phase")
		if phase == "flatten" {
			phase = string(gate.PhaseClose)
		}
		item, _ := str(o, "order_id")
		if item == "" {
			item, _ = str(o, "symbol")
		}
		w = append(w, phase+":"+item)
	}
	for _, e := range got {
		g = append(g, string(e.Phase)+":"+e.Item)
	}
	sort.Strings(w)
	sort.Strings(g)
	if strings.Join(w, ",") != strings.Join(g, ",") {
		return []string{fmt.Sprintf("errors %v, cockpit %v", w, g)}
	}
	return nil
}

// flattenAuditDiff compares the per-call records. The reference files a sweep's cancel under
// order_placed (with the cancel tool); cockpit files it as order_cancelled — the same event.
// cockpit's closing summary record (kind flatten) has no counterpart and is not compared.
func flattenAuditDiff(expected any, got []live.AuditRecord) []string {
	want, _ := expected.([]any)
	var calls []live.AuditRecord
	for _, r := range got {
		if r.Kind != live.KindFlatten {
			calls = append(calls, r)
		}
	}
	if len(want) != len(calls) {
		return []string{fmt.Sprintf("%d audit records, cockpit %d", len(want), len(calls))}
	}
	want = cancelsSorted(want, func(v any) bool { return strings.Contains(strOf(obj(v), "remote_tool"), "cancel") })
	calls = cancelsSorted(calls, func(r live.AuditRecord) bool { return strings.Contains(r.Tool, "cancel") })
	var diffs []string
	for i, raw := range want {
		w := obj(raw)
		kind, outcome := strOf(w, "kind"), strOf(w, "outcome")
		tool := strOf(w, "remote_tool")
		if kind == live.KindOrderPlaced && strings.Contains(tool, "cancel") {
			kind = live.KindOrderCancelled
		}
		if kind != calls[i].Kind || outcome != calls[i].Outcome {
			diffs = append(diffs, fmt.Sprintf("audit %d %s/%s, cockpit %s/%s", i, kind, outcome, calls[i].Kind, calls[i].Outcome))
		}
	}
	return diffs
}

// cancelsSorted puts the cancel entries of a flatten's list (its calls or their audit records)
// in one canonical order, leaving every other entry where it is. A flatten sends its cancels
// concurrently (issue 15), so they reach the broker and the trail in the order they finish;
// the reference sends them one by one. Which calls were made, and every close's order, are
// still compared exactly.
func cancelsSorted[T any](list []T, isCancel func(T) bool) []T {
	out := slices.Clone(list)
	var at []int
	var cancels []T
	for i, v := range out {
		if isCancel(v) {
			at = append(at, i)
			cancels = append(cancels, v)
		}
	}
	slices.SortStableFunc(cancels, func(a, b T) int { return strings.Compare(fmt.Sprintf("%+v", a), fmt.Sprintf("%+v", b)) })
	for j, i := range at {
		out[i] = cancels[j]
	}
	return out
}

func isCancelSent(v any) bool { return strOf(obj(v), "action") == "cancel" }
