package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/redact"
)

// fakeSink answers from a script of errors (nil = delivered) and keeps what it was sent.
type fakeSink struct {
	mu     sync.Mutex
	script []error
	sent   []Message
	calls  int
}

func (f *fakeSink) Name() string { return "ops" }
func (f *fakeSink) Type() string { return "webhook" }

func (f *fakeSink) Send(_ context.Context, m Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	var err error
	if len(f.script) > 0 {
		err, f.script = f.script[0], f.script[1:]
	}
	if err == nil {
		f.sent = append(f.sent, m)
	}
	return err
}

// clock is a fake clock; its sleep advances it and keeps the waits.
type clock struct {
	mu    sync.Mutex
	t     time.Time
	waits []time.Duration
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
func (c *clock) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.t = c.t.Add(d)
	return nil
}

// rig is a notifier over one fake sink with its workers not started (the test steps the lane).
func rig(t *testing.T, o Options, s *fakeSink) (*Notifier, *lane, *clock, *auditsink.Memory) {
	t.Helper()
	c := &clock{t: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)}
	mem := &auditsink.Memory{}
	o.Targets = append(o.Targets, Target{Sink: s})
	o.Now, o.Sleep, o.Audit, o.Actor = c.now, c.sleep, mem, live.System("notify", "sess_t")
	if o.Timeout == 0 {
		o.Timeout = time.Second
	}
	if o.Queue == 0 {
		o.Queue = 64
	}
	n := newNotifier(o)
	return n, n.lanes[0], c, mem
}

func drain(l *lane) int {
	n := 0
	for l.step(context.Background()) {
		n++
	}
	return n
}

// TestRetryBackoff: a 503 and a network error are retried after backoff, then 2×backoff; the
// send is audited sent with its attempts.
func TestRetryBackoff(t *testing.T) {
	s := &fakeSink{script: []error{&SendError{Status: 503, Msg: "HTTP 503"}, &SendError{Msg: "no answer: connection refused"}, nil}}
	n, l, c, mem := rig(t, Options{Retries: 3, Backoff: 2 * time.Second}, s)
	n.Post(Message{Event: EvHalt, Title: "t", Text: "x"})
	if got := drain(l); got != 1 {
		t.Fatalf("sent %d, want 1", got)
	}
	if got, want := fmt.Sprint(c.waits), "[2s 4s]"; got != want {
		t.Errorf("waits %s, want %s", got, want)
	}
	recs := mem.Records()
	if len(recs) != 1 || recs[0].Kind != KindNotification || recs[0].Outcome != OutcomeSent || detail(t, recs[0])["attempts"] != float64(3) {
		t.Fatalf("audit %+v, want one notification sent after 3 attempts", recs)
	}
}

// TestPermanentFailureIsNotRetried: a 404 fails at once, audited failed with the status.
func TestPermanentFailureIsNotRetried(t *testing.T) {
	s := &fakeSink{script: []error{&SendError{Status: 404, Msg: "HTTP 404: no_service", Permanent: true}}}
	n, l, c, mem := rig(t, Options{Retries: 3, Backoff: time.Second}, s)
	n.Post(Message{Event: EvReview, Title: "t", Text: "x", Ref: "rv_9"})
	drain(l)
	if s.calls != 1 || len(c.waits) != 0 {
		t.Errorf("calls %d waits %v, want one call and no wait", s.calls, c.waits)
	}
	recs := mem.Records()
	if len(recs) != 1 || recs[0].Outcome != OutcomeFailed || detail(t, recs[0])["status"] != float64(404) ||
		!strings.Contains(recs[0].Intent, "notify ops (webhook) review rv_9: FAILED after 1 attempt(s): HTTP 404: no_service") {
		t.Fatalf("audit %+v", recs)
	}
}

// TestRetriesRunOut: retries = 2 makes three attempts, then the send is failed; a Retry-After
// longer than the backoff is waited instead.
func TestRetriesRunOut(t *testing.T) {
	e := func() error { return &SendError{Status: 429, Msg: "HTTP 429", RetryAfter: 30 * time.Second} }
	s := &fakeSink{script: []error{e(), e(), e(), nil}}
	n, l, c, mem := rig(t, Options{Retries: 2, Backoff: time.Second}, s)
	n.Post(Message{Event: EvHalt})
	drain(l)
	if s.calls != 3 || fmt.Sprint(c.waits) != "[30s 30s]" {
		t.Errorf("calls %d waits %v, want 3 calls and [30s 30s]", s.calls, c.waits)
	}
	if recs := mem.Records(); len(recs) != 1 || recs[0].Outcome != OutcomeFailed {
		t.Fatalf("audit %+v, want one failed", recs)
	}
}

// TestRateLimitFakeClock: rate 2 a minute per event. Five reviews at once: two go, three are
// held back; the newest goes when the bucket refills, saying two earlier were held back. A
// halt meanwhile is not held back by the reviews' bucket.
func TestRateLimitFakeClock(t *testing.T) {
	s := &fakeSink{}
	n, l, c, mem := rig(t, Options{Rate: 2, Queue: 64, Retries: 0}, s)
	for i := 1; i <= 5; i++ {
		n.Post(Message{Event: EvReview, Title: fmt.Sprint("review ", i), Text: "x"})
	}
	if got := drain(l); got != 2 {
		t.Fatalf("sent %d at once, want 2", got)
	}
	if m, wait, _ := l.take(c.now()); m != nil || wait != 30*time.Second {
		t.Fatalf("take: %v wait %v, want nothing for 30s", m, wait)
	}
	n.Post(Message{Event: EvHalt, Title: "halt", Text: "h"})
	if got := drain(l); got != 1 || s.sent[2].Title != "halt" {
		t.Fatalf("the halt did not go past the held reviews: sent %d", got)
	}
	c.add(29 * time.Second)
	if got := drain(l); got != 0 {
		t.Fatalf("sent %d after 29s, want 0", got)
	}
	c.add(time.Second)
	if got := drain(l); got != 1 {
		t.Fatalf("sent %d after 30s, want 1", got)
	}
	last := s.sent[3]
	if last.Title != "review 5" || !strings.Contains(last.body(), "(2 earlier review notification(s) held back by the rate limit)") {
		t.Errorf("got %q %q, want review 5 saying 2 were held back", last.Title, last.body())
	}
	if d := detail(t, mem.Records()[3]); d["held_back"] != float64(2) {
		t.Errorf("audit detail %v, want held_back 2", d)
	}
}

// TestQueueDropsOldest: a full queue drops its oldest message and the next one sent says how
// many were dropped.
func TestQueueDropsOldest(t *testing.T) {
	s := &fakeSink{}
	n, l, _, mem := rig(t, Options{Rate: 100, Queue: 3}, s)
	for i := 1; i <= 5; i++ {
		n.Post(Message{Event: EvHalt, Title: fmt.Sprint("m", i), Text: "x"})
	}
	drain(l)
	var titles []string
	for _, m := range s.sent {
		titles = append(titles, m.Title)
	}
	if got := strings.Join(titles, " "); got != "m3 m4 m5" {
		t.Fatalf("sent %s, want m3 m4 m5", got)
	}
	if !strings.Contains(s.sent[0].body(), "(2 notification(s) dropped: this sink's queue was full)") || s.sent[1].dropped != 0 {
		t.Errorf("first %q, second dropped %d", s.sent[0].body(), s.sent[1].dropped)
	}
	if d := detail(t, mem.Records()[0]); d["dropped"] != float64(2) {
		t.Errorf("audit detail %v, want dropped 2", d)
	}
}

// TestEventsFilter: a sink that takes halts gets no reviews.
func TestEventsFilter(t *testing.T) {
	s := &fakeSink{}
	n, l, _, _ := rig(t, Options{Rate: 10}, s)
	l.events = []Event{EvHalt, EvLossLimit}
	n.Post(Message{Event: EvReview})
	n.Post(Message{Event: EvLossLimit})
	if got := drain(l); got != 1 || s.sent[0].Event != EvLossLimit {
		t.Fatalf("sent %d (%v), want the loss limit only", got, s.sent)
	}
}

// TestRedactSeededSecret: a registered secret in a message never reaches a sink nor the audit.
func TestRedactSeededSecret(t *testing.T) {
	const secret = "sk-live-SEEDED-0123456789abcdef"
	defer redact.RegisterSecret(secret)()
	s := &fakeSink{script: []error{&SendError{Msg: "HTTP 400: bad token " + secret, Permanent: true}, nil}}
	n, l, _, mem := rig(t, Options{Rate: 10}, s)
	n.Post(Message{Event: EvHalt, Title: "halt " + secret, Text: "reason: key " + secret + " leaked"})
	n.Post(Message{Event: EvHalt, Title: "again", Text: "api_key=" + secret})
	drain(l)
	for _, m := range s.sent {
		if strings.Contains(m.Title+m.Text, secret) {
			t.Errorf("a sink got the secret: %q %q", m.Title, m.Text)
		}
	}
	if len(s.sent) != 1 || !strings.Contains(s.sent[0].Text, redact.Redacted) {
		t.Errorf("sent %+v, want the second message with %s", s.sent, redact.Redacted)
	}
	for _, r := range mem.Records() {
		b, _ := json.Marshal(r.Detail)
		if strings.Contains(r.Intent+string(b), secret) {
			t.Errorf("the audit holds the secret: %s %s", r.Intent, b)
		}
	}
}

// TestPostNeverWaitsForASink: with the worker stuck inside a send that never returns, a
// thousand posts all return (the test would hang otherwise) and the queue keeps the newest.
func TestPostNeverWaitsForASink(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	stuck := &blockingSink{entered: entered, release: release}
	mem := &auditsink.Memory{}
	n := New(Options{Targets: []Target{{Sink: stuck}}, Rate: 10000, Queue: 8, Timeout: time.Hour, Audit: mem, Drain: time.Hour})
	n.Post(Message{Event: EvHalt, Title: "first"})
	<-entered // the worker is inside Send and stays there
	for i := 0; i < 1000; i++ {
		n.Post(Message{Event: EvReview, Title: fmt.Sprint("r", i)})
	}
	l := n.lanes[0]
	l.mu.Lock()
	queued, dropped, newest := len(l.q), l.dropped, l.q[len(l.q)-1].Title
	l.mu.Unlock()
	if queued != 8 || dropped != 992 || newest != "r999" {
		t.Errorf("queued %d dropped %d newest %s, want 8, 992, r999", queued, dropped, newest)
	}
	close(release)
	n.Close()
	if got := len(mem.Records()); got != 9 {
		t.Errorf("%d audit records, want 9 (the stuck one and the 8 queued)", got)
	}
}

type blockingSink struct {
	entered, release chan struct{}
	once             sync.Once
}

func (b *blockingSink) Name() string { return "dead" }
func (b *blockingSink) Type() string { return "webhook" }
func (b *blockingSink) Send(ctx context.Context, _ Message) error {
	b.once.Do(func() { close(b.entered) })
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestCloseRecordsWhatNeverLeft: when the drain runs out on a dead sink, the message in flight
// is failed and the queued ones are recorded as not sent, in one record.
func TestCloseRecordsWhatNeverLeft(t *testing.T) {
	entered := make(chan struct{})
	stuck := &blockingSink{entered: entered, release: make(chan struct{})}
	mem := &auditsink.Memory{}
	n := New(Options{Targets: []Target{{Sink: stuck}}, Rate: 100, Queue: 8, Timeout: time.Hour, Audit: mem, Drain: time.Millisecond})
	n.Post(Message{Event: EvHalt})
	<-entered
	n.Post(Message{Event: EvReview})
	n.Post(Message{Event: EvReview})
	n.Close()
	recs := mem.Records()
	if len(recs) != 2 || recs[0].Outcome != OutcomeFailed || recs[1].Outcome != OutcomeFailed ||
		!strings.Contains(recs[1].Intent, "2 notification(s) not sent: cockpit closed") {
		t.Fatalf("records %+v", recs)
	}
	n.Post(Message{Event: EvHalt}) // after Close: ignored, no panic
}

// TestCloseDrains: Close sends what is queued before it returns.
func TestCloseDrains(t *testing.T) {
	s := &fakeSink{}
	mem := &auditsink.Memory{}
	n := New(Options{Targets: []Target{{Sink: s}}, Rate: 100, Queue: 8, Timeout: time.Second, Audit: mem})
	for i := 0; i < 3; i++ {
		n.Post(Message{Event: EvHalt, Title: fmt.Sprint(i)})
	}
	n.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sent) != 3 || len(mem.Records()) != 3 {
		t.Fatalf("sent %d recorded %d, want 3 and 3", len(s.sent), len(mem.Records()))
	}
}

// detail decodes a record's detail object.
func detail(t *testing.T, r live.AuditRecord) map[string]any {
	t.Helper()
	b, err := json.Marshal(r.Detail)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
