package live

// Decision is the decision word a tool call or a gate outcome carries in the agent's result
// and in the audit trail's gate decision. Its text is part of the audit vocabulary: never
// rename one.
type Decision string

// Decisions.
const (
	DecisionAllow          Decision = "allow"
	DecisionDeny           Decision = "deny"
	DecisionAsk            Decision = "ask" // held for a human; recorded as deny
	DecisionCancel         Decision = "cancel"
	DecisionPauseForReauth Decision = "pause_for_reauth"
)

// Recorded is the decision as the audit trail stores it: a call still waiting for a human
// (ask) or with no decision is recorded as a denial.
func (d Decision) Recorded() Decision {
	if d == "" || d == DecisionAsk {
		return DecisionDeny
	}
	return d
}

// Allowed reports whether the recorded decision lets the call through.
func (d Decision) Allowed() bool { return d.Recorded() != DecisionDeny }

// CallStatus is how a tool call ended, as the agent sees it.
type CallStatus string

// Call statuses.
const (
	CallOK       CallStatus = "ok"
	CallDenied   CallStatus = "denied"
	CallError    CallStatus = "error"
	CallRejected CallStatus = "rejected" // by the broker
)

// Reason codes of tool calls and model requests, beside the gate's own.
const (
	ReasonToolError      Reason = "tool_error"
	ReasonPolicyError    Reason = "policy_error"
	ReasonToolNotAllowed Reason = "tool_not_allowed"
	ReasonNoApprover     Reason = "no_approver"
	ReasonUnknownTool    Reason = "unknown_tool"
	ReasonInvalidArgs    Reason = "invalid_args"
	ReasonReadOnly       Reason = "read_only"
	ReasonCoolingDown    Reason = "cooling_down"
	ReasonNotRunnable    Reason = "not_runnable"
)

// Reason codes of the breach review: how an order that waited for a human ended.
const (
	ReasonApprovalDenied    Reason = "approval_denied"
	ReasonApprovalTimeout   Reason = "approval_timeout"
	ReasonApprovalVoided    Reason = "approval_voided"
	ReasonApprovalQueueFull Reason = "approval_queue_full"
	ReasonReviewUnavailable Reason = "review_unavailable"
	ReasonGrantUnusable     Reason = "grant_unusable"
)

// MandateCode is the reason code of a refusal or a review behind a mandate limit:
// "mandate:<limit>".
func MandateCode(limit string) Reason { return Reason("mandate:" + limit) }

// RateCode is the reason code of a rate-limit refusal in a scope: "rate:<scope>".
func RateCode(scope string) Reason { return Reason("rate:" + scope) }

// BudgetCode is the reason code of a cost-budget refusal in a scope: "budget:<scope>".
func BudgetCode(scope string) Reason { return Reason("budget:" + scope) }

// Audit kinds of tool calls, model requests, approvals and the audit chain itself.
const (
	KindToolCall          = "tool_call"
	KindLLMUsage          = "llm_usage" // an LLM request: its model, tokens and cost
	KindApprovalRequested = "approval_requested"
	KindApprovalTimedOut  = "approval_timed_out"
	KindApprovalVoided    = "approval_voided"
	KindAuditRotated      = "audit_rotated" // a new chain after `cockpit audit rotate`; it carries the old head
)

// ApprovalKind is the audit kind of an approval reaching a state: "approval_<state>"
// (approval_approved, approval_denied, …).
func ApprovalKind[S ~string](state S) string { return "approval_" + string(state) }

// Decision is the verdict's decision word: allow, pause_for_reauth, or deny.
func (v Verdict) Decision() Decision {
	switch v {
	case Allow:
		return DecisionAllow
	case PauseForReauth:
		return DecisionPauseForReauth
	}
	return DecisionDeny
}

// CannotCoverCode is the reason code of an order that also breaches a limit no approval can
// waive: "approval_cannot_cover:<limit>".
func CannotCoverCode(limit string) Reason { return Reason("approval_cannot_cover:" + limit) }

// DoesNotCoverCode is the reason code of an approved order that breaches a limit the approval
// did not cover: "approval_does_not_cover:<limit>".
func DoesNotCoverCode(limit string) Reason { return Reason("approval_does_not_cover:" + limit) }
