package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/config"
)

// hit is one request a test server saw.
type hit struct {
	Method, Path, ContentType string
	Header                    http.Header
	Body                      string
}

// server answers every request with status and body, and keeps what it saw.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
}

func newServer(t *testing.T, status int, body string, header map[string]string) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.hits = append(s.hits, hit{Method: r.Method, Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"), Header: r.Header.Clone(), Body: string(b)})
		s.mu.Unlock()
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) last(t *testing.T) hit {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.hits) == 0 {
		t.Fatal("the server got no request")
	}
	return s.hits[len(s.hits)-1]
}

// sinkFor builds one configured sink against env.
func sinkFor(t *testing.T, sc config.NotifySink, env map[string]string) Sink {
	t.Helper()
	ts, err := Targets(config.Notify{Sinks: map[string]config.NotifySink{"s": sc}}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return ts[0].Sink
}

var testMsg = Message{Event: EvReview, Title: "cockpit paper: review rv_1 waits", Text: "buy $2500 AAPL <!channel> & more",
	Priority: PriorityHigh, Ref: "rv_1", Time: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC),
	Deadline: time.Date(2026, 12, 1, 14, 5, 0, 0, time.UTC)}

// TestSinkFormats: each service gets the request it documents (method, path, headers, body).
func TestSinkFormats(t *testing.T) {
	cases := []struct {
		name         string
		sink         config.NotifySink
		status       int
		reply        string
		wantPath     string
		wantCT       string
		wantBody     string
		wantHeaders  map[string]string
		wantJSONBody bool
	}{
		{name: "webhook", sink: config.NotifySink{Type: "webhook", URLEnv: "U", TokenEnv: "T"}, status: 200, wantPath: "/hook/secretpath",
			wantCT: "application/json", wantJSONBody: true, wantHeaders: map[string]string{"Authorization": "Bearer tok-1234567890"},
			wantBody: `{"source":"cockpit","event":"review","title":"cockpit paper: review rv_1 waits","text":"buy $2500 AAPL <!channel> & more","priority":"high","time":"2026-12-01T14:00:00Z","ref":"rv_1","deadline":"2026-12-01T14:05:00Z"}`},
		{name: "ntfy", sink: config.NotifySink{Type: "ntfy", URLEnv: "U", TokenEnv: "T"}, status: 200, reply: `{"id":"x"}`, wantPath: "/hook/secretpath",
			wantCT: "text/plain; charset=utf-8", wantBody: "buy $2500 AAPL <!channel> & more",
			wantHeaders: map[string]string{"Title": "cockpit paper: review rv_1 waits", "Priority": "4", "Tags": "hourglass", "Authorization": "Bearer tok-1234567890"}},
		{name: "slack", sink: config.NotifySink{Type: "slack", URLEnv: "U"}, status: 200, reply: "ok", wantPath: "/hook/secretpath",
			wantCT: "application/json", wantJSONBody: true,
			wantBody: `{"text":"*cockpit paper: review rv_1 waits*\nbuy $2500 AAPL &lt;!channel&gt; &amp; more"}`},
		{name: "discord", sink: config.NotifySink{Type: "discord", URLEnv: "U"}, status: 204, wantPath: "/hook/secretpath",
			wantCT: "application/json", wantJSONBody: true,
			wantBody: `{"content":"**cockpit paper: review rv_1 waits**\nbuy $2500 AAPL <!channel> & more","allowed_mentions":{"parse":[]}}`},
		{name: "telegram", sink: config.NotifySink{Type: "telegram", TokenEnv: "T", ChatID: "-1001234567890"}, status: 200,
			reply: `{"ok":true,"result":{"message_id":7}}`, wantPath: "/bottok-1234567890/sendMessage", wantCT: "application/json", wantJSONBody: true,
			wantBody: `{"chat_id":-1001234567890,"link_preview_options":{"is_disabled":true},"text":"cockpit paper: review rv_1 waits\nbuy $2500 AAPL <!channel> & more"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, c.status, c.reply, nil)
			sc := c.sink
			if sc.Type == "telegram" {
				sc.BaseURL = srv.URL
			}
			s := sinkFor(t, sc, map[string]string{"U": srv.URL + "/hook/secretpath", "T": "tok-1234567890"})
			if err := s.Send(context.Background(), testMsg); err != nil {
				t.Fatalf("Send: %v", err)
			}
			h := srv.last(t)
			if h.Method != http.MethodPost || h.Path != c.wantPath || h.ContentType != c.wantCT {
				t.Errorf("got %s %s (%s), want POST %s (%s)", h.Method, h.Path, h.ContentType, c.wantPath, c.wantCT)
			}
			got := h.Body
			if c.wantJSONBody {
				got = canonicalJSON(t, got)
				c.wantBody = canonicalJSON(t, c.wantBody)
			}
			if got != c.wantBody {
				t.Errorf("body\ngot  %s\nwant %s", got, c.wantBody)
			}
			for k, want := range c.wantHeaders {
				if got := h.Header.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func canonicalJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestNtfyTitleNotASCII: a title that is not ASCII goes as an RFC 2047 encoded word, which ntfy
// decodes; the priority follows the message's.
func TestNtfyTitleNotASCII(t *testing.T) {
	srv := newServer(t, 200, "", nil)
	s := sinkFor(t, config.NotifySink{Type: "ntfy", URLEnv: "U"}, map[string]string{"U": srv.URL + "/topic-x"})
	m := testMsg
	m.Title, m.Priority = "cockpit paper: HALTED — loss limit", PriorityUrgent
	if err := s.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	h := srv.last(t)
	if got, want := h.Header.Get("Title"), "=?utf-8?q?cockpit_paper:_HALTED_=E2=80=94_loss_limit?="; got != want {
		t.Errorf("Title = %q, want %q", got, want)
	}
	if got := h.Header.Get("Priority"); got != "5" {
		t.Errorf("Priority = %q, want 5", got)
	}
	if h.Header.Get("Authorization") != "" {
		t.Errorf("an Authorization header without token_env")
	}
}

// TestSendErrors: which answers may pass on a retry, the wait a service asks for, and an error
// that never names the URL.
func TestSendErrors(t *testing.T) {
	cases := []struct {
		name, kind  string
		status      int
		reply       string
		header      map[string]string
		permanent   bool
		retryAfter  time.Duration
		wantInError string
	}{
		{"webhook 500", "webhook", 500, "boom", nil, false, 0, "HTTP 500: boom"},
		{"webhook 404", "webhook", 404, "no_service", nil, true, 0, "HTTP 404: no_service"},
		{"slack 429 Retry-After", "slack", 429, "rate_limited", map[string]string{"Retry-After": "7"}, false, 7 * time.Second, "HTTP 429"},
		{"slack 410 archived", "slack", 410, "channel_is_archived", nil, true, 0, "channel_is_archived"},
		{"discord 429 retry_after", "discord", 429, `{"message":"You are being rate limited.","retry_after":1.5,"global":false}`, nil, false, 1500 * time.Millisecond, "HTTP 429"},
		{"ntfy 403", "ntfy", 403, `{"code":40301,"http":403,"error":"forbidden"}`, nil, true, 0, "HTTP 403"},
		{"telegram 400 chat not found", "telegram", 400, `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`, nil, true, 0, "telegram 400: Bad Request: chat not found"},
		{"telegram 429", "telegram", 429, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 34","parameters":{"retry_after":34}}`, nil, false, 34 * time.Second, "telegram 429"},
		{"telegram 200 without ok", "telegram", 200, `{"ok":false}`, nil, true, 0, "HTTP 200"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, c.status, c.reply, c.header)
			sc := config.NotifySink{Type: c.kind, URLEnv: "U"}
			if c.kind == "telegram" {
				sc = config.NotifySink{Type: "telegram", TokenEnv: "T", ChatID: "@cockpit_ops", BaseURL: srv.URL}
			}
			s := sinkFor(t, sc, map[string]string{"U": srv.URL + "/services/T000/B000/secretpath", "T": "tok-1234567890"})
			err := s.Send(context.Background(), testMsg)
			se, ok := err.(*SendError)
			if !ok {
				t.Fatalf("Send: %v, want a *SendError", err)
			}
			if se.Permanent != c.permanent || se.RetryAfter != c.retryAfter || !strings.Contains(se.Msg, c.wantInError) {
				t.Errorf("got %+v, want permanent %v retry after %v and %q", se, c.permanent, c.retryAfter, c.wantInError)
			}
			if strings.Contains(se.Msg, "secretpath") || strings.Contains(se.Msg, "tok-1234567890") {
				t.Errorf("the error names the secret: %q", se.Msg)
			}
		})
	}
}

// TestTransportErrorHidesURL: a sink that cannot be reached fails with a retryable error that
// does not carry the URL (Go's client puts it in every error).
func TestTransportErrorHidesURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL + "/services/T000/B000/XXXXsecretXXXX"
	srv.Close()
	s := sinkFor(t, config.NotifySink{Type: "slack", URLEnv: "U"}, map[string]string{"U": u})
	err := s.Send(context.Background(), testMsg)
	if again, _ := retryable(err); err == nil || !again {
		t.Fatalf("Send to a closed server: %v (retryable %v), want a retryable error", err, again)
	}
	if strings.Contains(err.Error(), "XXXXsecretXXXX") || strings.Contains(err.Error(), srv.URL) {
		t.Errorf("the error names the URL: %q", err)
	}
}

// TestRedirectIsNotFollowed: a 3xx is the answer (a failure), not a second place to send the
// message with its secret.
func TestRedirectIsNotFollowed(t *testing.T) {
	other := newServer(t, 200, "ok", nil)
	srv := newServer(t, http.StatusTemporaryRedirect, "", map[string]string{"Location": other.URL + "/stolen"})
	s := sinkFor(t, config.NotifySink{Type: "webhook", URLEnv: "U"}, map[string]string{"U": srv.URL + "/hook"})
	err := s.Send(context.Background(), testMsg)
	if err == nil {
		t.Fatal("a redirect counted as delivered")
	}
	other.mu.Lock()
	n := len(other.hits)
	other.mu.Unlock()
	if n != 0 {
		t.Errorf("the redirect was followed: %d request(s) reached its target", n)
	}
}
