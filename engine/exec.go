package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"cockpit/engine/scan"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// CallJSON runs one tool call with JSON arguments (from an LLM or a replay script).
func (t *Turn) CallJSON(ctx context.Context, tool string, args *jsonv.Object) Result {
	return t.engine.Execute(ctx, t, tool, args)
}

// CallRaw runs one tool call whose arguments are raw JSON text from a model; text that is not
// a JSON object (or repeats a key) is denied invalid_args through the same audited path.
func (t *Turn) CallRaw(ctx context.Context, tool string, raw []byte) Result {
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = []byte("{}")
	}
	v, err := jsonv.Parse(raw, jsonv.Options{RejectDuplicates: true, MaxDepth: 32})
	if err == nil {
		if o, ok := v.(*jsonv.Object); ok {
			return t.engine.Execute(ctx, t, tool, o)
		}
		err = fmt.Errorf("want a JSON object, got %s", jsonv.TypeName(v))
	}
	return t.engine.execute(ctx, t, tool, jsonv.ObjectOf("unparsed_arguments", truncate(string(raw), 2000)),
		fmt.Errorf("the arguments are not valid JSON: %v", err))
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// argsObject turns Go arguments into ordered JSON (keys sorted).
func argsObject(m map[string]any) *jsonv.Object {
	o := jsonv.NewObject()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		o.Set(k, goValue(m[k]))
	}
	return o
}

func goValue(v any) any {
	switch t := v.(type) {
	case int:
		return jsonv.Number(fmt.Sprint(t))
	case int64:
		return jsonv.Number(fmt.Sprint(t))
	case float64:
		return jsonv.Number(fmt.Sprint(t))
	case money.Amount:
		return jsonv.Number(t.String())
	case map[string]any:
		return argsObject(t)
	}
	return v
}

// cockpitTools is the curated classification of the engine's own tools.
var cockpitTools = live.CuratedTools(live.PaperBroker)

// Execute is the one path of every agent tool call: look the tool up, validate the
// arguments, classify it, apply the policy (allow and deny lists, autonomy, the halt for
// writes, the cool-down, rate limits), then run it — orders through the gate and, when a
// human must decide, the review queue — scan external content, and audit. The agent always
// gets a structured Result, and every call ends in exactly one terminal audit record.
func (e *Engine) Execute(ctx context.Context, t *Turn, name string, args *jsonv.Object) Result {
	return e.execute(ctx, t, name, args, nil)
}

func (e *Engine) execute(ctx context.Context, t *Turn, name string, args *jsonv.Object, parseErr error) Result {
	t.mu.Lock()
	t.calls++
	callID := fmt.Sprintf("%s-c%d", t.ID, t.calls)
	t.mu.Unlock()
	actor := live.Principal{Kind: live.ActorAgent, ID: t.Agent, SessionID: e.Session, TurnID: t.ID, ToolCallID: callID}
	c := &call{e: e, t: t, actor: actor, name: name, args: args, parseErr: parseErr}
	r := c.execute(ctx)
	if c.effect != EffectRead && r.Decision == live.DecisionDeny {
		e.noteDenial(t.limits, name, r.Code)
	}
	e.publish(Event{Kind: EvToolCall, Agent: t.Agent, Turn: t.N, Tool: name, Result: &r})
	return r
}

// call carries one Execute.
type call struct {
	e        *Engine
	t        *Turn
	actor    live.Principal
	name     string
	args     *jsonv.Object
	tool     *Tool
	effect   Effect
	pol      Policy
	findings []Finding
	checked  []string
	parseErr error // the model's arguments did not parse
}

func (c *call) check(step string) { c.checked = append(c.checked, step) }

func (c *call) execute(ctx context.Context) Result {
	e := c.e
	c.check("tool")
	tool, ok := e.Tools.Get(c.name)
	if !ok {
		c.effect = EffectExternal // an unknown tool is a write until proven otherwise
		return c.record(ctx, denied(live.ReasonUnknownTool, "there is no tool %q", c.name))
	}
	c.tool = tool
	// The classification ladder: the curated map first; a tool it does not know is a write
	// unless its registration declares it reads (a broker server's tool is registered READ
	// only when its profile or the operator says so, never on the server's hint: DV17).
	c.effect = tool.Effect
	if c.effect == EffectUnknown {
		c.effect = EffectExternal
	}
	if class := live.Classify(cockpitTools, c.name, tool.Effect == EffectRead); class.IsWrite() && c.effect == EffectRead {
		c.effect = EffectExternal
	}
	c.check("arguments")
	if c.parseErr != nil {
		return c.record(ctx, denied(live.ReasonInvalidArgs, "%v", c.parseErr))
	}
	if err := tool.Validate(c.args); err != nil {
		return c.record(ctx, denied(live.ReasonInvalidArgs, "%v", err))
	}
	c.check("policy")
	pol, err := e.policyFor(c.t.Agent, c.name)
	if err != nil {
		return c.record(ctx, denied(live.ReasonPolicyError, "%v", err))
	}
	c.pol = pol
	if ok, why := pol.Allows(c.name); !ok {
		return c.record(ctx, denied(live.ReasonToolNotAllowed, "%s is not allowed: %s", c.name, why))
	}
	if ok, why := pol.argSymbolsGranted(c.args); !ok {
		return c.record(ctx, denied(ReasonSymbolNotGranted, "%s", why))
	}
	if c.effect != EffectRead && pol.Autonomy == ReadOnly {
		return c.record(ctx, denied(live.ReasonReadOnly, "the policy is read-only (set by %s)", pol.Provenance["autonomy"]))
	}
	if c.effect != EffectRead {
		c.check("halt_flag")
		if h, ok := e.latched(); ok {
			return c.record(ctx, denied(h.Reason, "trading is halted: %s", h.Detail))
		}
		if halt.IsHalted(e.Root, e.BrokerKey) {
			return c.record(ctx, denied(live.ReasonHalted, "trading is halted"))
		}
		if sym, on := e.symbolBlocked(c.args); on {
			return c.record(ctx, denied(ReasonSymbolBlocked, "%s is blocked for this session by the operator", sym))
		}
		if wait := e.coolingDown(c.t.limits); wait > 0 {
			r := denied(live.ReasonCoolingDown, "too many denied orders in a minute; the agent is paused for %s", wait.Round(time.Second))
			r.RetryAfter = wait
			return c.record(ctx, r)
		}
	}
	c.check("rate_limits")
	release, scope, retry, ok := e.Limiter.Acquire(e.now(), pol.Rates, "tool", c.t.limits)
	if !ok {
		r := denied(live.RateCode(scope), "rate limit %s reached; retry in %s", scope, retry.Round(100*time.Millisecond))
		r.RetryAfter = retry
		return c.record(ctx, r)
	}
	defer release()
	if err := ctx.Err(); err != nil {
		return c.record(ctx, denied(live.ReasonCancelled, "the call was cancelled before it ran: %v", err))
	}
	if c.effect == EffectTrade {
		return c.trade(ctx)
	}
	if tool.Run == nil {
		return c.record(ctx, denied(live.ReasonNotRunnable, "%s has no implementation", c.name))
	}
	return c.run(ctx)
}

// run executes a read or external tool and scans the outside content it returns.
func (c *call) run(ctx context.Context) Result {
	data, err := c.tool.Run(ctx, c.args, c.pol)
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) {
			return c.record(ctx, denied(te.Code, "%s", te.Msg))
		}
		return c.record(ctx, Result{Status: StatusError, Decision: live.DecisionAllow, Code: live.ReasonToolError, Detail: err.Error()})
	}
	if len(c.tool.ScanFields) > 0 || c.tool.ScanAll {
		obj, ok := data.(*jsonv.Object)
		if !ok {
			return c.record(ctx, Result{Status: StatusError, Decision: live.DecisionDeny, Code: live.ReasonToolError,
				Detail: "the tool returned outside content that cannot be scanned"})
		}
		found, _ := scan.WithSecurityWarnings(obj, c.tool.ScanFields)
		if c.tool.ScanAll {
			found, _ = scan.WithSecurityWarningsAll(obj)
		}
		for _, f := range found {
			c.findings = append(c.findings, Finding{RuleID: f.RuleID, Severity: f.Severity, Message: f.Message,
				Match: f.Match, Field: f.Field, Source: c.name})
		}
		if len(c.findings) > 0 {
			c.t.taint()
			for i := range c.findings {
				c.e.publish(Event{Kind: EvFinding, Agent: c.t.Agent, Turn: c.t.N, Tool: c.name, Finding: &c.findings[i]})
			}
		}
	}
	return c.record(ctx, Result{Status: StatusOK, Decision: live.DecisionAllow, Data: data, Findings: len(c.findings)})
}

// record writes the terminal audit record of a call the gate did not record itself.
func (c *call) record(ctx context.Context, r Result) Result {
	kind, outcome := live.KindToolCall, live.OutcomeAccepted
	gd := &live.GateDecision{Allowed: r.Decision.Allowed(), Decision: r.Decision.Recorded(), Checked: c.checked}
	switch r.Status {
	case StatusDenied:
		outcome = live.OutcomeBlocked
		if c.effect == EffectTrade {
			kind = live.KindOrderRejected
		}
	case StatusError:
		outcome = live.OutcomeError
	}
	rec := live.AuditRecord{Time: c.e.now(), Actor: c.actor, Kind: kind, Outcome: outcome, Reason: r.Code,
		Broker: c.e.BrokerKey, Tool: c.name, ApprovalID: r.ApprovalID, Request: c.args, Decision: gd}
	if r.Status == StatusOK {
		rec.Response = boundedResponse(r.Data)
	} else {
		rec.Error = r.Detail
	}
	if len(c.findings) > 0 {
		fs := make([]any, len(c.findings))
		for i, f := range c.findings {
			fs[i] = jsonv.ObjectOf("rule_id", f.RuleID, "severity", f.Severity, "message", f.Message, "match", f.Match, "field", f.Field)
		}
		rec.Detail = jsonv.ObjectOf("security_warnings", fs)
	}
	if c.e.Audit == nil {
		return r
	}
	if err := c.e.Audit.Record(context.WithoutCancel(ctx), rec); err != nil {
		c.e.auditFailed("tool_call "+c.name, err)
		if r.Status == StatusOK && c.effect != EffectRead {
			// No record, no write: an external action whose audit failed is reported as failed.
			return Result{Status: StatusError, Decision: live.DecisionDeny, Code: live.ReasonAuditUnavailable, Detail: err.Error()}
		}
	}
	return r
}

// boundedResponse keeps a tool's output in the audit when it is small, and its size otherwise.
func boundedResponse(v any) any {
	if v == nil {
		return nil
	}
	j, err := jsonv.FromGo(v)
	if err != nil {
		return nil
	}
	b, err := jsonv.Marshal(j, jsonv.Compact)
	if err != nil || len(b) > 4096 {
		return jsonv.ObjectOf("omitted_bytes", jsonv.Number(fmt.Sprint(len(b))))
	}
	return j
}

// trade runs place_order and cancel_order through the gate (and the review queue).
func (c *call) trade(ctx context.Context) Result {
	e := c.e
	if c.name == "cancel_order" {
		if ok, why := c.cancelGranted(ctx, argString(c.args, "order_id")); !ok {
			return c.record(ctx, denied(ReasonSymbolNotGranted, "%s", why))
		}
		return c.gated(e.Gate.Cancel(ctx, e.Broker, e.BrokerKey, argString(c.args, "order_id"), c.actor))
	}
	var sub gate.Submission
	if c.tool.Profile != nil { // a broker server's own order tool
		sub = gate.Submission{Broker: e.Broker, BrokerKey: e.BrokerKey, Profile: c.tool.Profile, Tool: c.name, Args: c.args, Actor: c.actor, Policy: c.policyJSON()}
	} else {
		in, req := live.ExtractGeneric(c.args)
		sub = gate.Submission{Broker: e.Broker, BrokerKey: e.BrokerKey, Intent: &in, Order: req, Actor: c.actor, Args: c.args,
			Reason: sanitizeReason(argString(c.args, "reason")), Policy: c.policyJSON()}
	}
	tainted := c.pol.Escalate && c.t.Tainted()
	if c.pol.Autonomy == Supervised || tainted {
		// A human decides before anything is forwarded; the dry run refuses at once what no
		// human could approve (halt, structure, a hard control) and values the order.
		dry := sub
		dry.DryRun = true
		d := e.Gate.Submit(ctx, dry)
		if d.Verdict == live.Deny {
			return c.record(ctx, resultOf(d))
		}
		switch {
		case c.pol.Autonomy == Supervised:
			return c.review(ctx, sub, d, "supervised")
		case !c.reduces(d):
			return c.review(ctx, sub, d, "escalated")
		}
	}
	d := c.submit(ctx, sub)
	if d.Verdict == live.PauseForReauth {
		return c.review(ctx, sub, d, "breach")
	}
	return c.gated(d)
}

// policyJSON is the engine's part of a trade call's one record (the gate writes it): the
// policy steps passed and the autonomy, so the order's trail starts with the policy.
func (c *call) policyJSON() *jsonv.Object {
	steps := make([]any, len(c.checked))
	for i, s := range c.checked {
		steps[i] = s
	}
	return jsonv.ObjectOf("checked", steps, "autonomy", c.pol.Autonomy.String(), "tainted", c.t.Tainted())
}

// gated returns the result of a decision the gate audited itself; when the gate could not
// write its record, the call reports the failure (the order's fate is in the journal).
func (c *call) gated(d gate.Decision) Result {
	r := resultOf(d)
	if d.AuditErr != nil {
		c.e.log().Error("gate audit write failed", "tool", c.name, "err", d.AuditErr)
		r.Detail += " (audit write failed: " + d.AuditErr.Error() + ")"
	}
	return r
}

// submit runs the order through the gate and publishes the decision before any broker
// update of the order can reach the bus (see Engine.placing).
func (c *call) submit(ctx context.Context, sub gate.Submission) gate.Decision {
	c.e.placing.RLock()
	defer c.e.placing.RUnlock()
	d := c.e.Gate.Submit(ctx, sub)
	c.publishDecision(d)
	return d
}

func (c *call) publishDecision(d gate.Decision) {
	c.e.publish(Event{Kind: EvDecision, Agent: c.t.Agent, Turn: c.t.N, Tool: c.name, Decision: &d})
}

// reduces reports whether a valued order only shrinks an existing position, from the
// positions the gate read for d.
func (c *call) reduces(d gate.Decision) bool {
	if d.Intent == nil || d.Read == nil || d.Read.Positions.Err != nil {
		return false
	}
	return live.ReducesPosition(d.Read.Positions, *d.Intent)
}

// lockBusyRetry is the retry hint of an order denied lock_busy: the lock was held by other
// orders for the gate's whole wait, which says nothing against this one.
const lockBusyRetry = time.Second

// resultOf turns a gate decision into what the agent sees.
func resultOf(d gate.Decision) Result {
	switch {
	case d.Verdict == live.Deny:
		code, limit := d.Reason, ""
		if d.Breach != nil {
			code, limit = live.MandateCode(d.Breach.Limit), d.Breach.Limit
		}
		r := Result{Status: StatusDenied, Decision: live.DecisionDeny, Code: code, Detail: d.Message(), Limit: limit}
		if d.Reason == live.ReasonLockBusy { // another order held the lock all along: retry
			r.RetryAfter = lockBusyRetry
		}
		return r
	case d.Verdict == live.PauseForReauth:
		return Result{Status: StatusDenied, Decision: live.DecisionAsk, Code: live.MandateCode(d.Breach.Limit), Detail: d.Message(), Limit: d.Breach.Limit}
	case d.Outcome == live.OutcomeAccepted:
		r := Result{Status: StatusOK, Decision: live.DecisionAllow, ApprovalID: d.ApprovalID}
		if d.Order != nil {
			r.Data = orderJSON(*d.Order)
		} else {
			r.Data = jsonv.ObjectOf("status", "cancelled")
		}
		return r
	case d.Outcome == live.OutcomeIndeterminate:
		return Result{Status: StatusError, Decision: live.DecisionAllow, Code: live.ReasonIndeterminate,
			Detail: "the broker did not confirm the order; it is being reconciled, do not resend: " + d.Message()}
	}
	return Result{Status: StatusRejected, Decision: live.DecisionAllow, Code: live.ReasonBrokerReject, Detail: d.Message()}
}

func orderJSON(o live.Order) *jsonv.Object {
	amt := func(a *money.Amount) any {
		if a == nil {
			return nil
		}
		return jsonv.Number(a.String())
	}
	return jsonv.ObjectOf("order_id", o.ID, "client_order_id", o.ClientOrderID, "symbol", o.Symbol, "side", o.Side,
		"type", string(o.Type), "quantity", amt(o.Quantity), "limit_price", amt(o.LimitPrice), "status", string(o.Status),
		"filled_qty", jsonv.Number(o.FilledQty.String()), "avg_fill_price", jsonv.Number(o.AvgFillPrice.String()))
}

// sanitizeReason keeps the agent's stated reason short and on one line.
func sanitizeReason(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > 500 {
		s = string([]rune(s)[:500]) + "…"
	}
	return s
}
