package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Sink sends one message in one attempt. An error that is a *SendError says whether a retry
// may help and how long the service asked to wait.
type Sink interface {
	Name() string // the configured name ([notify.sinks.NAME])
	Type() string // webhook | ntfy | slack | discord | telegram
	Send(ctx context.Context, m Message) error
}

// format builds one service's request and reads its answer.
type format interface {
	request(ctx context.Context, m Message) (*http.Request, error)
	accept(status int, body []byte) error // called for every answer; nil = delivered
}

// httpSink is a Sink over a format and an HTTP client.
type httpSink struct {
	name, kind string
	client     *http.Client
	fmt        format
}

func (s *httpSink) Name() string { return s.name }
func (s *httpSink) Type() string { return s.kind }

// Send posts m once. The error never carries the URL (it may hold the secret).
func (s *httpSink) Send(ctx context.Context, m Message) error {
	req, err := s.fmt.request(ctx, m)
	if err != nil {
		return &SendError{Msg: "build request: " + err.Error(), Permanent: true}
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return transportError(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err := s.fmt.accept(resp.StatusCode, body); err != nil {
		if se, ok := err.(*SendError); ok && se.RetryAfter == 0 {
			se.RetryAfter = retryAfterHeader(resp.Header.Get("Retry-After"))
		}
		return err
	}
	return nil
}

// statusError classifies an HTTP answer that is not a success: 429 and 5xx may pass on a retry,
// anything else will not.
func statusError(status int, body []byte) *SendError {
	snippet := strings.TrimSpace(string(body))
	if len(snippet) > 200 {
		snippet = snippet[:200] + "…"
	}
	msg := "HTTP " + strconv.Itoa(status)
	if snippet != "" {
		msg += ": " + snippet
	}
	return &SendError{Status: status, Msg: msg, Permanent: status != http.StatusTooManyRequests && status < 500}
}

// retryAfterHeader reads Retry-After in seconds (Slack and Discord send it on 429); 0 when absent.
func retryAfterHeader(v string) time.Duration {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f <= 0 || f > 3600 {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// postJSON is a POST of v as JSON to url.
func postJSON(ctx context.Context, url string, v any) (*http.Request, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// ---- the generic JSON webhook

// WebhookPayload is the generic webhook's JSON body.
type WebhookPayload struct {
	Source   string `json:"source"` // always "cockpit"
	Event    string `json:"event"`
	Title    string `json:"title"`
	Text     string `json:"text"`
	Priority string `json:"priority"` // default | high | urgent
	Time     string `json:"time"`     // RFC 3339, UTC
	Ref      string `json:"ref,omitempty"`
	Deadline string `json:"deadline,omitempty"`
}

type webhook struct{ url, token string }

func (w webhook) request(ctx context.Context, m Message) (*http.Request, error) {
	p := WebhookPayload{Source: "cockpit", Event: string(m.Event), Title: m.Title, Text: m.body(), Priority: m.Priority.String(),
		Time: m.Time.UTC().Format(time.RFC3339Nano), Ref: m.Ref}
	if !m.Deadline.IsZero() {
		p.Deadline = m.Deadline.UTC().Format(time.RFC3339)
	}
	req, err := postJSON(ctx, w.url, p)
	if err == nil && w.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	return req, err
}

func (webhook) accept(status int, body []byte) error {
	if status/100 == 2 {
		return nil
	}
	return statusError(status, body)
}

// ---- ntfy: the text is the body; title, priority and tags are headers

type ntfy struct{ url, token string }

// ntfyMax keeps a message under ntfy's 4,096-byte limit, past which it becomes an attachment.
const ntfyMax = 3900

func (n ntfy) request(ctx context.Context, m Message) (*http.Request, error) {
	text := m.body()
	for len(text) > ntfyMax {
		text = clip(text, utf8.RuneCountInString(text)*ntfyMax/len(text))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	req.Header.Set("Title", mime.QEncoding.Encode("utf-8", m.Title)) // RFC 2047 when not ASCII, as ntfy reads it
	req.Header.Set("Priority", strconv.Itoa(ntfyPriority(m.Priority)))
	req.Header.Set("Tags", ntfyTag(m.Event))
	if n.token != "" {
		req.Header.Set("Authorization", "Bearer "+n.token)
	}
	return req, nil
}

// ntfyPriority maps a priority to ntfy's 1 (min) … 5 (max/urgent).
func ntfyPriority(p Priority) int {
	switch p {
	case PriorityUrgent:
		return 5
	case PriorityHigh:
		return 4
	}
	return 3
}

// ntfyTag is the emoji tag ntfy shows before the title.
func ntfyTag(e Event) string {
	switch e {
	case EvReview:
		return "hourglass"
	case EvHalt, EvLossLimit, EvFlattenFailed:
		return "rotating_light"
	}
	return "warning"
}

func (ntfy) accept(status int, body []byte) error {
	if status/100 == 2 {
		return nil
	}
	return statusError(status, body)
}

// ---- Slack-compatible incoming webhook: {"text": …}, answered "ok"

type slack struct{ url string }

// slackEscape escapes the three characters Slack reads as markup (<!channel> would ping everyone).
var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func (s slack) request(ctx context.Context, m Message) (*http.Request, error) {
	text := "*" + slackEscape.Replace(m.Title) + "*\n" + slackEscape.Replace(m.body())
	return postJSON(ctx, s.url, map[string]string{"text": clip(text, 3900)})
}

func (slack) accept(status int, body []byte) error {
	if status/100 == 2 {
		return nil
	}
	return statusError(status, body)
}

// ---- Discord-compatible webhook: {"content": …} (2,000 characters), answered 204

type discord struct{ url string }

type discordPayload struct {
	Content         string `json:"content"`
	AllowedMentions struct {
		Parse []string `json:"parse"` // empty: no @everyone, role or user ping from the text
	} `json:"allowed_mentions"`
}

func (d discord) request(ctx context.Context, m Message) (*http.Request, error) {
	p := discordPayload{Content: clip("**"+m.Title+"**\n"+m.body(), 2000)}
	p.AllowedMentions.Parse = []string{}
	return postJSON(ctx, d.url, p)
}

func (discord) accept(status int, body []byte) error {
	if status/100 == 2 {
		return nil
	}
	e := statusError(status, body)
	var rl struct {
		RetryAfter float64 `json:"retry_after"` // seconds
	}
	if status == http.StatusTooManyRequests && json.Unmarshal(body, &rl) == nil && rl.RetryAfter > 0 && rl.RetryAfter < 3600 {
		e.RetryAfter = time.Duration(rl.RetryAfter * float64(time.Second))
	}
	return e
}

// ---- Telegram Bot API sendMessage: {"chat_id", "text"}, answered {"ok": true, …}

type telegram struct{ base, token, chat string }

func (t telegram) request(ctx context.Context, m Message) (*http.Request, error) {
	var chat any = t.chat
	if id, err := strconv.ParseInt(t.chat, 10, 64); err == nil {
		chat = id
	}
	body := map[string]any{"chat_id": chat, "text": clip(m.Title+"\n"+m.body(), 4096), "link_preview_options": map[string]bool{"is_disabled": true}}
	return postJSON(ctx, strings.TrimRight(t.base, "/")+"/bot"+t.token+"/sendMessage", body)
}

func (telegram) accept(status int, body []byte) error {
	var r struct {
		OK          bool   `json:"ok"`
		ErrorCode   int    `json:"error_code"`
		Description string `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	err := json.Unmarshal(body, &r)
	if status/100 == 2 && err == nil && r.OK {
		return nil
	}
	if err != nil || r.Description == "" {
		if status/100 == 2 {
			return &SendError{Status: status, Msg: "HTTP " + strconv.Itoa(status) + " without {\"ok\": true}", Permanent: true}
		}
		return statusError(status, body)
	}
	code := r.ErrorCode
	if code == 0 {
		code = status
	}
	e := &SendError{Status: code, Msg: fmt.Sprintf("telegram %d: %s", code, r.Description), Permanent: code != http.StatusTooManyRequests && code < 500}
	if r.Parameters.RetryAfter > 0 && r.Parameters.RetryAfter < 3600 {
		e.RetryAfter = time.Duration(r.Parameters.RetryAfter) * time.Second
	}
	return e
}
