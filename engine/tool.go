package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// Effect is what a tool can do to the world.
type Effect int8

// Effects, from harmless to consequential.
const (
	EffectUnknown  Effect = iota // not declared: treated as external (fail-closed)
	EffectRead                   // quotes, positions, news, web reads
	EffectTrade                  // place or cancel orders
	EffectExternal               // shell, file writes, outbound messages
)

func (e Effect) String() string {
	switch e {
	case EffectRead:
		return "read"
	case EffectTrade:
		return "trade"
	case EffectExternal:
		return "external"
	}
	return "unknown"
}

// ParamType is a JSON type an argument must have.
type ParamType string

// Argument types.
const (
	TypeString  ParamType = "string"
	TypeNumber  ParamType = "number" // a JSON number or a plain decimal string
	TypeInteger ParamType = "integer"
	TypeBoolean ParamType = "boolean"
)

// Param is one argument of a tool.
type Param struct {
	Name        string
	Type        ParamType
	Required    bool
	Enum        []string
	Description string
}

// Tool is a capability offered to the agent.
type Tool struct {
	Name        string
	Description string
	Effect      Effect
	Params      []Param
	// ScanFields select the result fields that carry outside content (news, web pages,
	// documents, command output): they are scanned and neutralised before the agent sees
	// them, and a finding taints the turn. The result must then be a JSON object.
	ScanFields []string
	// ScanAll scans every string of the result instead (a broker server's read, whose whole
	// reply is outside content); the result must be a JSON object.
	ScanAll bool
	// Run executes a read or external tool under the effective policy of the call. Trade
	// tools are executed by the engine through the gate and have no Run.
	Run func(ctx context.Context, args *jsonv.Object, pol Policy) (any, error)
	// InputSchema, when set, is a remote tool's own schema, offered to the model as is; its
	// arguments are checked only for reserved names (the remote server validates the rest).
	InputSchema *jsonv.Object
	// Profile, on a trade tool, is the tool-shaped broker's profile: the gate extracts the
	// order from the arguments with it and forwards them verbatim.
	Profile *live.Profile
}

// ToolError is a tool's refusal with a stable reason code (path_not_allowed,
// url_not_allowed, sandbox_unavailable, …); the agent gets it as a denial.
type ToolError struct {
	Code live.Reason
	Msg  string
}

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Msg }

// Refuse returns a ToolError.
func Refuse(code live.Reason, format string, args ...any) error {
	return &ToolError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// reservedArgs can never come from the agent: they belong to the runtime (approvals,
// idempotency, dry runs). A call carrying one is refused (the model cannot self-approve).
var reservedArgs = map[string]bool{"approved": true, "approval_id": true, "grant": true, "client_order_id": true,
	"dry_run": true, "principal": true, "actor": true}

// Validate checks arguments against the tool's parameters: no unknown or reserved fields,
// every required one present, every value of its type and within its enum.
func (t *Tool) Validate(args *jsonv.Object) error {
	if args == nil {
		args = jsonv.NewObject()
	}
	if t.InputSchema != nil {
		for _, m := range args.Members() {
			if reservedArgs[m.Key] || strings.HasPrefix(m.Key, "_") {
				return fmt.Errorf("argument %q is reserved for the runtime", m.Key)
			}
		}
		return nil
	}
	known := map[string]Param{}
	for _, p := range t.Params {
		known[p.Name] = p
	}
	for _, m := range args.Members() {
		if reservedArgs[m.Key] || strings.HasPrefix(m.Key, "_") {
			return fmt.Errorf("argument %q is reserved for the runtime", m.Key)
		}
		p, ok := known[m.Key]
		if !ok {
			return fmt.Errorf("unknown argument %q (known: %s)", m.Key, strings.Join(paramNames(t.Params), ", "))
		}
		if err := checkType(p, m.Value); err != nil {
			return err
		}
	}
	for _, p := range t.Params {
		if v, ok := args.Get(p.Name); p.Required && (!ok || v == nil) {
			return fmt.Errorf("missing required argument %q", p.Name)
		}
	}
	return nil
}

func paramNames(ps []Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	sort.Strings(out)
	return out
}

func checkType(p Param, v any) error {
	if v == nil {
		if p.Required {
			return fmt.Errorf("argument %q is null", p.Name)
		}
		return nil
	}
	ok := false
	switch p.Type {
	case TypeString:
		_, ok = v.(string)
	case TypeBoolean:
		_, ok = v.(bool)
	case TypeNumber:
		_, err := live.DecimalFromJSON(v)
		ok = err == nil
	case TypeInteger:
		a, err := live.DecimalFromJSON(v)
		ok = err == nil && a.IsInteger()
	}
	if !ok {
		return fmt.Errorf("argument %q must be a %s, got %s", p.Name, p.Type, jsonv.TypeName(v))
	}
	if len(p.Enum) > 0 {
		s, _ := v.(string)
		for _, e := range p.Enum {
			if s == e {
				return nil
			}
		}
		return fmt.Errorf("argument %q = %q: want one of %s", p.Name, s, strings.Join(p.Enum, ", "))
	}
	return nil
}

// DecimalPattern is the schema pattern of a decimal parameter: digits, optionally a point and
// more digits. A decimal travels as a JSON string so no client rounds it through a float.
const DecimalPattern = `^[0-9]+(\.[0-9]+)?$`

// Schema returns the JSON schema of the tool's parameters (for LLM function calling).
func (t *Tool) Schema() *jsonv.Object {
	if t.InputSchema != nil {
		return t.InputSchema
	}
	props := jsonv.NewObject()
	var required []any
	for _, p := range t.Params {
		typ := string(p.Type)
		prop := jsonv.ObjectOf("type", typ, "description", p.Description)
		if p.Type == TypeNumber { // a JSON number is still accepted (checkType), exactly
			prop.Set("type", "string")
			prop.Set("pattern", DecimalPattern)
			prop.Set("description", strings.TrimSpace(p.Description+` (a decimal string, e.g. "2.5")`))
		}
		if len(p.Enum) > 0 {
			enum := make([]any, len(p.Enum))
			for i, e := range p.Enum {
				enum[i] = e
			}
			prop.Set("enum", enum)
		}
		props.Set(p.Name, prop)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	if required == nil {
		required = []any{}
	}
	return jsonv.ObjectOf("type", "object", "properties", props, "required", required, "additionalProperties", false)
}

// Registry holds the tools the engine can execute.
type Registry struct {
	tools map[string]*Tool
	order []string
}

// Add registers a tool; a second tool with the same name replaces the first.
func (r *Registry) Add(t *Tool) {
	if r.tools == nil {
		r.tools = map[string]*Tool{}
	}
	if _, ok := r.tools[t.Name]; !ok {
		r.order = append(r.order, t.Name)
	}
	r.tools[t.Name] = t
}

// Get returns a tool by name.
func (r *Registry) Get(name string) (*Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// All returns the tools in registration order.
func (r *Registry) All() []*Tool {
	out := make([]*Tool, len(r.order))
	for i, n := range r.order {
		out[i] = r.tools[n]
	}
	return out
}

// Result is what the agent receives from a tool call: always structured, never a Go error.
type Result struct {
	Status     live.CallStatus // ok, denied, error, rejected (by the broker)
	Decision   live.Decision   // allow, deny, ask
	Code       live.Reason     // stable reason code ("" when ok)
	Detail     string          // a sentence for the model and the screen
	Data       any             // the tool's output
	RetryAfter time.Duration
	Findings   int // scanner findings in the output
	ApprovalID string
	Limit      string // the mandate limit behind a refusal or a review, when one applies
}

// Statuses (the domain's, named here for the engine's call sites).
const (
	StatusOK       = live.CallOK
	StatusDenied   = live.CallDenied
	StatusError    = live.CallError
	StatusRejected = live.CallRejected
)

// OK reports a successful call.
func (r Result) OK() bool { return r.Status == StatusOK }

// JSON renders the result for the agent.
func (r Result) JSON() *jsonv.Object {
	o := jsonv.ObjectOf("status", string(r.Status), "decision", string(r.Decision))
	if r.Code != "" {
		o.Set("reason_code", string(r.Code))
	}
	if r.Detail != "" {
		o.Set("detail", r.Detail)
	}
	if r.RetryAfter > 0 {
		o.Set("retry_after_seconds", jsonv.Number(fmt.Sprintf("%.1f", r.RetryAfter.Seconds())))
	}
	if r.ApprovalID != "" {
		o.Set("approval_id", r.ApprovalID)
	}
	if r.Limit != "" {
		o.Set("limit", r.Limit)
	}
	if r.Findings > 0 {
		o.Set("security_warnings", jsonv.Number(fmt.Sprint(r.Findings)))
	}
	if r.Data != nil {
		o.Set("data", r.Data)
	}
	return o
}

func denied(code live.Reason, format string, args ...any) Result {
	return Result{Status: StatusDenied, Decision: live.DecisionDeny, Code: code, Detail: fmt.Sprintf(format, args...)}
}
