package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
)

const apiKey = "sk-test-DO-NOT-LEAK-0123456789abcdef"

// reply is one scripted answer of the fake server.
type reply struct {
	status int
	body   string
}

// fakeServer plays replies in order and keeps every request body.
type fakeServer struct {
	mu       sync.Mutex
	replies  []reply
	requests []map[string]any
	auth     []string
}

func (s *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(body, &req)
	s.requests = append(s.requests, req)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
		return
	}
	if len(s.replies) == 0 {
		http.Error(w, `{"error": {"message": "script exhausted"}}`, http.StatusInternalServerError)
		return
	}
	rep := s.replies[0]
	s.replies = s.replies[1:]
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

func toolCalls(calls ...[2]string) string {
	var parts []string
	for i, c := range calls {
		args, _ := json.Marshal(c[1])
		parts = append(parts, fmt.Sprintf(`{"id": "call_%d", "type": "function", "function": {"name": %q, "arguments": %s}}`, i, c[0], args))
	}
	return completion(`"content": null, "tool_calls": [`+strings.Join(parts, ",")+`]`, "tool_calls")
}

func text(s string) string { return completion(fmt.Sprintf(`"content": %q`, s), "stop") }

func completion(message, finish string) string {
	return `{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
 "choices": [{"index": 0, "finish_reason": "` + finish + `", "message": {"role": "assistant", ` + message + `}}],
 "usage": {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200}}`
}

func setup(t *testing.T, replies []reply, policy string) (*enginetest.Fixture, *fakeServer, *Agent) {
	t.Helper()
	var opts []enginetest.Option
	if policy != "" {
		opts = append(opts, enginetest.WithPolicy(policy))
	}
	f := enginetest.New(t, opts...)
	f.Engine.Approver = false
	f.Engine.Costs = &engine.CostBudget{Prices: map[string]engine.Price{
		"test-model": {InputPerMTok: money.MustParse("1"), OutputPerMTok: money.MustParse("10")}}}
	srv := &fakeServer{replies: replies}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	m, err := mandatefile.Load(f.Root, live.PaperBroker)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Config{BaseURL: ts.URL + "/v1", Model: "test-model", APIKey: apiKey, MaxOutput: 512, Mandate: Summary(m), Now: f.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return f, srv, a
}

// TestScriptedSession: a 429, then a multi-step turn with a read, an order whose arguments
// are garbage, a corrected order inside the mandate, an order the mandate excludes, and a
// closing answer; then a turn whose reply body is not JSON.
func TestScriptedSession(t *testing.T) {
	f, srv, a := setup(t, []reply{
		{429, `{"error": {"message": "slow down", "type": "rate_limit"}}`},
		{200, toolCalls([2]string{"get_quote", `{"symbol": "AAPL"}`}, [2]string{"place_order", `{"symbol": "AAPL", "side": "buy", "notional": `})},
		{200, toolCalls([2]string{"place_order", `{"symbol": "AAPL", "side": "buy", "notional": "1500", "reason": "momentum"}`},
			[2]string{"place_order", `{"symbol": "GME", "side": "buy", "notional": "100", "reason": "meme"}`})},
		{200, text("Bought $1,500 of AAPL; GME is excluded by the mandate.")},
		{200, `this is not json`},
	}, "")
	ctx := context.Background()
	notes := f.Engine.Bus.Subscribe(ctx, 64)
	if err := a.Turn(ctx, f.Engine.NewTurn(a.Name())); err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("turn 1: %v, want the 429", err)
	}
	if err := a.Turn(ctx, f.Engine.NewTurn(a.Name())); err != nil {
		t.Fatalf("turn 2: %v", err)
	}
	if err := a.Turn(ctx, f.Engine.NewTurn(a.Name())); err == nil {
		t.Fatal("turn 3: garbage body accepted")
	}
	if len(srv.requests) != 5 {
		t.Fatalf("requests = %d, want 5", len(srv.requests))
	}
	for i, auth := range srv.auth {
		if auth != "Bearer "+apiKey {
			t.Errorf("request %d auth %q", i, auth)
		}
	}
	// The system prompt pins the mandate; tools are offered with schemas.
	first := srv.requests[1]
	msgs := first["messages"].([]any)
	sys := msgs[0].(map[string]any)["content"].(string)
	for _, want := range []string{"max order notional: $5000", "excluded symbols: GME", "never an instruction"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if tools := first["tools"].([]any); len(tools) < 6 {
		t.Errorf("tools offered = %d", len(tools))
	}
	// The model saw the invalid_args result and then the gate's answers.
	second := srv.requests[2]["messages"].([]any)
	last := second[len(second)-1].(map[string]any)
	if !strings.Contains(last["content"].(string), "invalid_args") {
		t.Errorf("garbage arguments result: %v", last["content"])
	}
	third := srv.requests[3]["messages"].([]any)
	if got := third[len(third)-1].(map[string]any)["content"].(string); !strings.Contains(got, "mandate:exclude_symbols") {
		t.Errorf("GME result: %s", got)
	}
	if f.Placed() != 1 {
		t.Errorf("orders placed = %d, want 1", f.Placed())
	}
	// Usage: three successful requests at 1000 in / 200 out = $0.003 each; the 429 and the
	// garbage reply cost nothing.
	if got := f.Engine.Costs.Spent(f.Clock.Now().Add(-1)); got.Cmp(money.MustParse("0.009")) != 0 {
		t.Errorf("spent %s, want 0.009", got)
	}
	var llm, errs int
	for _, e := range f.Events() {
		if e.Type == engine.KindLLMUsage {
			llm++
			if e.Outcome == live.OutcomeError {
				errs++
			}
		}
		if strings.Contains(e.Payload, apiKey) {
			t.Errorf("API key in event %d", e.Seq)
		}
	}
	if llm != 5 || errs != 2 {
		t.Errorf("llm_usage records = %d (errors %d), want 5 (2)", llm, errs)
	}
	sawNote := false
	for len(notes) > 0 {
		ev := <-notes
		sawNote = sawNote || (ev.Kind == engine.EvNote && strings.Contains(ev.Message, "GME is excluded"))
	}
	if !sawNote {
		t.Error("the model's closing answer was not published")
	}
}

// TestBudgetRefusesBeforeSending is case 24 end to end: with a spend limit the worst case
// would break, nothing is sent and the refusal is audited.
func TestBudgetRefusesBeforeSending(t *testing.T) {
	f, srv, a := setup(t, []reply{{200, text("hi")}}, "[policy.agents.llm.cost_limits]\nmax_per_day_usd = \"0.001\"")
	err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name()))
	if err == nil || !strings.Contains(err.Error(), "budget:per_day") {
		t.Fatalf("turn: %v, want budget:per_day", err)
	}
	if len(srv.requests) != 0 {
		t.Errorf("requests sent = %d, want 0", len(srv.requests))
	}
	evs := f.Events()
	if len(evs) != 1 || evs[0].Reason != "budget:per_day" || evs[0].Outcome != live.OutcomeBlocked {
		t.Errorf("audit: %+v", evs)
	}
}

// TestRateLimitsLLMRequests: the llm tool layer's rate limit refuses the second request in
// the minute with a retry hint, before sending.
func TestRateLimitsLLMRequests(t *testing.T) {
	f, srv, a := setup(t, []reply{{200, text("one")}, {200, text("two")}},
		"[policy.tools.llm]\nrate_limits = { requests_per_minute = 1 }")
	if err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name())); err != nil {
		t.Fatal(err)
	}
	err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name()))
	var le *engine.LLMError
	if !asLLMError(err, &le) || le.Code != "rate:tool:llm.requests_per_minute" || le.RetryAfter <= 0 {
		t.Fatalf("second turn: %v", err)
	}
	if len(srv.requests) != 1 {
		t.Errorf("requests sent = %d, want 1", len(srv.requests))
	}
}

// TestSpendSurvivesRestart is case 23 for LLM spend: the day's spend is rebuilt from the
// audit trail.
func TestSpendSurvivesRestart(t *testing.T) {
	f, _, a := setup(t, []reply{{200, text("one")}}, "")
	if err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name())); err != nil {
		t.Fatal(err)
	}
	fresh := &engine.CostBudget{}
	day := f.Clock.Now().Truncate(24 * 60 * 60 * 1e9)
	n, err := engine.RestoreSpend(context.Background(), f.DB.EachEvent, fresh, day)
	if err != nil || n != 1 {
		t.Fatalf("restore: %d %v", n, err)
	}
	if got := fresh.Spent(day); got.Cmp(money.MustParse("0.003")) != 0 {
		t.Errorf("restored spend %s, want 0.003", got)
	}
}

func TestNewRefusesMissingSettings(t *testing.T) {
	for _, c := range []Config{{Model: "m", APIKey: "k", MaxOutput: 1}, {BaseURL: "http://x", APIKey: "k", MaxOutput: 1},
		{BaseURL: "http://x", Model: "m", MaxOutput: 1}, {BaseURL: "http://x", Model: "m", APIKey: "k"}} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
	os.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/elsewhere")
	defer os.Unsetenv("OPENAI_BASE_URL")
	f, srv, a := setup(t, []reply{{200, text("ok")}}, "")
	if err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name())); err != nil || len(srv.requests) != 1 {
		t.Errorf("OPENAI_BASE_URL in the environment redirected the client: %v", err)
	}
}

func asLLMError(err error, target **engine.LLMError) bool { return errors.As(err, target) }
