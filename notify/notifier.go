package notify

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
)

// KindNotification is the audit kind of a send: outcome sent or failed, with the sink's name
// and type and the event in its detail (never the URL or the token).
const KindNotification = "notification"

// Audit outcomes of a send.
const (
	OutcomeSent   = "sent"
	OutcomeFailed = "failed"
)

// Target is a sink and the events it gets (nil: all).
type Target struct {
	Sink   Sink
	Events []Event
}

// Options shape a Notifier.
type Options struct {
	Targets []Target
	Rate    int           // messages per sink and event a minute (also the burst)
	Queue   int           // messages a sink holds; beyond it the oldest is dropped
	Retries int           // attempts after the first
	Backoff time.Duration // the first retry's delay; it doubles
	Timeout time.Duration // one attempt
	Drain   time.Duration // how long Close waits for queued messages (0: 5 s)

	Audit  live.AuditSink // where each send is recorded
	Actor  live.Principal // who the records are by
	Broker string         // the session's broker, on each record
	Log    *slog.Logger   // nil: discarded
	Now    func() time.Time
	Sleep  func(ctx context.Context, d time.Duration) error // the wait between attempts (nil: a timer)
}

// Notifier fans messages out to its sinks' queues; each sink has one worker.
type Notifier struct {
	o      Options
	lanes  []*lane
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// maxRetryAfter bounds how long a service's Retry-After holds a sink's queue.
const maxRetryAfter = 2 * time.Minute

// New returns a Notifier over o.Targets and starts one worker per sink; Close stops them.
func New(o Options) *Notifier {
	n := newNotifier(o)
	for _, l := range n.lanes {
		n.wg.Add(1)
		go func() { defer n.wg.Done(); l.run(n.ctx) }()
	}
	return n
}

// newNotifier builds the lanes without starting their workers (tests drive step).
func newNotifier(o Options) *Notifier {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Drain <= 0 {
		o.Drain = 5 * time.Second
	}
	o.Rate, o.Queue = max(o.Rate, 1), max(o.Queue, 1)
	n := &Notifier{o: o}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	for _, t := range o.Targets {
		n.lanes = append(n.lanes, newLane(n, t))
	}
	return n
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Sinks names the sinks, "name (type)" each, for the operator's start-up note.
func (n *Notifier) Sinks() []string {
	var out []string
	for _, l := range n.lanes {
		out = append(out, l.t.Sink.Name()+" ("+l.t.Sink.Type()+")")
	}
	return out
}

// Post queues m for every sink that takes its event and returns at once: it never waits for a
// sink. Title and text are redacted first, like the log. A nil Notifier ignores it.
func (n *Notifier) Post(m Message) {
	if n == nil {
		return
	}
	m.Title, m.Text = redact.Secrets(m.Title), redact.Secrets(m.Text)
	if m.Time.IsZero() {
		m.Time = n.o.Now()
	}
	for _, l := range n.lanes {
		if l.wants(m.Event) {
			l.push(m)
		}
	}
}

// Close stops taking messages, gives the queued ones up to Options.Drain to go out, then cuts
// what is still in flight (recorded failed) and records what never left. Idempotent.
func (n *Notifier) Close() {
	if n == nil {
		return
	}
	n.once.Do(func() {
		for _, l := range n.lanes {
			l.close()
		}
		done := make(chan struct{})
		go func() { n.wg.Wait(); close(done) }()
		t := time.NewTimer(n.o.Drain)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			n.cancel()
			<-done
		}
		n.cancel()
		for _, l := range n.lanes {
			l.abandon()
		}
	})
}

// deliver sends m with retries and backoff, then records the outcome.
func (n *Notifier) deliver(ctx context.Context, l *lane, m Message) {
	attempts := 0
	var err error
	for {
		attempts++
		actx, cancel := context.WithTimeout(ctx, n.o.Timeout)
		err = l.t.Sink.Send(actx, m)
		cancel()
		if err == nil || attempts > n.o.Retries || ctx.Err() != nil {
			break
		}
		again, after := retryable(err)
		if !again {
			break
		}
		d := n.o.Backoff << (attempts - 1)
		if after > d {
			d = min(after, maxRetryAfter)
		}
		if n.o.Sleep(ctx, d) != nil {
			break
		}
	}
	n.record(l.t.Sink, m, attempts, err)
}

// record audits one send; a record that cannot be written is logged (a notification is not an
// order: it trips no halt).
func (n *Notifier) record(s Sink, m Message, attempts int, err error) {
	outcome, what := OutcomeSent, "sent"
	detail := jsonv.ObjectOf("sink", s.Name(), "type", s.Type(), "event", string(m.Event), "ref", m.Ref, "title", m.Title,
		"attempts", attempts, "dropped", m.dropped, "held_back", m.suppressed)
	if err != nil {
		outcome, what = OutcomeFailed, "FAILED after "+fmt.Sprint(attempts)+" attempt(s): "+redact.Secrets(err.Error())
		detail.Set("error", redact.Secrets(err.Error()))
		if se, ok := err.(*SendError); ok && se.Status != 0 {
			detail.Set("status", se.Status)
		}
		n.o.Log.Warn("notification failed", "sink", s.Name(), "type", s.Type(), "event", string(m.Event), "attempts", attempts, "err", err.Error())
	}
	n.audit(m.Event, outcome, fmt.Sprintf("notify %s (%s) %s %s: %s", s.Name(), s.Type(), m.Event, m.Ref, what), detail)
}

func (n *Notifier) audit(e Event, outcome, intent string, detail *jsonv.Object) {
	if n.o.Audit == nil {
		return
	}
	reason := "notify"
	if e != "" {
		reason += ":" + string(e)
	}
	rec := live.AuditRecord{Time: n.o.Now(), Actor: n.o.Actor, Kind: KindNotification, Outcome: outcome, Broker: n.o.Broker,
		Reason: live.Reason(reason), Intent: intent, Detail: detail}
	if err := n.o.Audit.Record(context.Background(), rec); err != nil {
		n.o.Log.Error("audit write failed", "kind", KindNotification, "err", err)
	}
}

// lane is one sink's queue and its worker's state.
type lane struct {
	n      *Notifier
	t      Target
	events []Event
	wake   chan struct{}

	mu      sync.Mutex
	q       []Message
	dropped int  // dropped since the last message taken
	closed  bool // Close was called: drain and stop
	buckets map[Event]*bucket
	held    map[Event]*Message // the newest message the rate limit held back, per event
	heldN   map[Event]int      // how many were held back (the newest included)
}

func newLane(n *Notifier, t Target) *lane {
	ev := t.Events
	if ev == nil {
		ev = Events
	}
	return &lane{n: n, t: t, events: slices.Clone(ev), wake: make(chan struct{}, 1),
		buckets: map[Event]*bucket{}, held: map[Event]*Message{}, heldN: map[Event]int{}}
}

func (l *lane) wants(e Event) bool { return slices.Contains(l.events, e) }

// push appends m, dropping the oldest queued message when full (counted), and wakes the worker.
func (l *lane) push(m Message) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	if len(l.q) >= l.n.o.Queue {
		l.q = slices.Delete(l.q, 0, 1)
		l.dropped++
	}
	l.q = append(l.q, m)
	l.mu.Unlock()
	l.signal()
}

func (l *lane) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *lane) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.signal()
}
