package engine

import (
	"context"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// KindLLMUsage is the audit kind of an LLM request (its model, tokens and cost).
const KindLLMUsage = live.KindLLMUsage

// LLMTool is the policy name of LLM requests: [policy.tools.llm] limits them alone.
const LLMTool = "llm"

// Usage is what an LLM request consumed, in tokens (audited as "input" and "output": key
// names containing "token" are redacted).
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
}

// LLMRequest is one request an agent wants to send to a model.
type LLMRequest struct {
	Agent        string
	Model        string
	PromptTokens int64 // an estimate, for the reservation
	MaxOutput    int64
}

// LLMError is a refusal to send an LLM request (rate or cost limit); nothing was sent.
type LLMError struct {
	Code       live.Reason // rate:<scope>.<limit> or budget:<limit>
	Detail     string
	RetryAfter time.Duration
}

func (e *LLMError) Error() string { return string(e.Code) + ": " + e.Detail }

// CallLLM sends one LLM request under the agent's rate and cost limits: the worst-case cost
// is reserved before sending (a request that could break a limit is refused and never sent),
// the real usage is settled afterwards, and the request is audited with its cost.
func (e *Engine) CallLLM(ctx context.Context, req LLMRequest, send func(context.Context) (Usage, error)) (Usage, error) {
	actor := live.Principal{Kind: live.ActorAgent, ID: req.Agent, SessionID: e.Session}
	pol, err := e.policyFor(req.Agent, LLMTool)
	if err != nil {
		return Usage{}, e.llmRefused(ctx, actor, req, &LLMError{Code: live.ReasonPolicyError, Detail: err.Error()})
	}
	if ok, why := pol.Allows(LLMTool); !ok {
		return Usage{}, e.llmRefused(ctx, actor, req, &LLMError{Code: live.ReasonToolNotAllowed, Detail: "LLM requests are not allowed: " + why})
	}
	release, scope, retry, ok := e.Limiter.Acquire(e.now(), pol.Rates, LLMTool, req.Agent)
	if !ok {
		return Usage{}, e.llmRefused(ctx, actor, req, &LLMError{Code: live.RateCode(scope), RetryAfter: retry,
			Detail: fmt.Sprintf("rate limit %s reached; retry in %s", scope, retry.Round(100*time.Millisecond))})
	}
	defer release()
	if e.Costs == nil {
		return Usage{}, e.llmRefused(ctx, actor, req, &LLMError{Code: live.BudgetCode("no_budget"), Detail: "no cost budget is configured"})
	}
	id, reserved, code, err := e.Costs.Reserve(e.now(), pol, req.Model, req.PromptTokens, req.MaxOutput)
	if err != nil {
		return Usage{}, e.llmRefused(ctx, actor, req, &LLMError{Code: code, Detail: err.Error()})
	}
	u, sendErr := send(ctx)
	cost := e.Costs.Settle(id, req.Model, u.PromptTokens, u.CompletionTokens)
	outcome, errText := live.OutcomeAccepted, ""
	if sendErr != nil {
		outcome, errText = live.OutcomeError, sendErr.Error()
	}
	e.auditLLM(ctx, actor, req, outcome, "", errText, jsonv.ObjectOf("model", req.Model,
		"input", jsonv.Number(fmt.Sprint(u.PromptTokens)), "output", jsonv.Number(fmt.Sprint(u.CompletionTokens)),
		"cost_usd", jsonv.Number(cost.String()), "reserved_usd", jsonv.Number(reserved.String())))
	e.publish(Event{Kind: EvLLM, Agent: req.Agent, Cost: cost,
		Message: fmt.Sprintf("%s: %d in / %d out tokens, $%s", req.Model, u.PromptTokens, u.CompletionTokens, cost.Round(6))})
	return u, sendErr
}

func (e *Engine) llmRefused(ctx context.Context, actor live.Principal, req LLMRequest, le *LLMError) error {
	e.auditLLM(ctx, actor, req, live.OutcomeBlocked, le.Code, le.Detail, jsonv.ObjectOf("model", req.Model,
		"input", jsonv.Number(fmt.Sprint(req.PromptTokens)), "cost_usd", jsonv.Number("0")))
	e.publish(Event{Kind: EvError, Agent: req.Agent, Tool: LLMTool, Message: "LLM request refused: " + le.Error()})
	return le
}

func (e *Engine) auditLLM(ctx context.Context, actor live.Principal, req LLMRequest, outcome string, code live.Reason, errText string, detail *jsonv.Object) {
	if e.Audit == nil {
		return
	}
	dec := &live.GateDecision{Allowed: outcome != live.OutcomeBlocked, Decision: live.DecisionAllow, Checked: []string{"policy", "rate_limits", "cost_limits"}}
	if !dec.Allowed {
		dec.Decision = live.DecisionDeny
	}
	if err := e.Audit.Record(context.WithoutCancel(ctx), live.AuditRecord{Time: e.now(), Actor: actor, Kind: KindLLMUsage, Outcome: outcome,
		Reason: code, Broker: e.BrokerKey, Tool: LLMTool, Intent: "LLM request to " + req.Model,
		Decision: dec, Error: errText, Detail: detail}); err != nil {
		e.auditFailed(KindLLMUsage, err)
	}
}

// SpendFromPayload reads the cost of an llm_usage audit payload (for rebuilding the day's
// spend at start-up).
func SpendFromPayload(payload *jsonv.Object) (money.Amount, bool) {
	d, ok := payload.Get("detail")
	if !ok {
		return money.Zero, false
	}
	do, ok := d.(*jsonv.Object)
	if !ok {
		return money.Zero, false
	}
	v, ok := do.Get("cost_usd")
	if !ok {
		return money.Zero, false
	}
	a, err := live.DecimalFromJSON(v)
	return a, err == nil
}
