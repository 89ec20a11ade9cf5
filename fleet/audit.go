package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"cockpit/live"
)

// AuditEntry is one event of a host's hash-chained trail as the fleet stream holds it: its
// seq, prev_hash and hash in that trail (the hash `audit verify` computes), the event as the
// store keeps it (redacted), and the host's signature of host, seq, prev and hash.
type AuditEntry struct {
	Host  string          `json:"host"`
	Seq   int64           `json:"seq"`
	Prev  string          `json:"prev"`
	Hash  string          `json:"hash"`
	Event json.RawMessage `json:"event"`
	Sig   string          `json:"sig,omitempty"`

	StreamSeq uint64    `json:"-"`
	Subject   string    `json:"-"`
	At        time.Time `json:"-"`
}

func (e AuditEntry) input() []byte {
	return sigInput("audit", e.Host, strconv.FormatInt(e.Seq, 10), e.Prev, e.Hash)
}

// TrailEvent is one event of this host's own trail, as the publisher reads it.
type TrailEvent struct {
	Seq        int64
	Prev, Hash string
	Event      json.RawMessage
}

// Trail is this host's audit trail (the store): the events after seq, oldest first.
type Trail interface {
	TrailAfter(ctx context.Context, seq int64, limit int) ([]TrailEvent, error)
}

// AuditSink records to Next (the local trail, the truth) and wakes the publisher, which
// copies the trail's events, in order and with their chain hashes, to the fleet's stream.
// Nothing is lost from the stream while the fleet is away: the publisher goes on from the
// last event of this host the stream holds.
type AuditSink struct {
	Next  live.AuditSink
	F     *Fleet
	Trail Trail

	once sync.Once
	kick chan struct{}
}

func (a *AuditSink) kicker() chan struct{} {
	a.once.Do(func() { a.kick = make(chan struct{}, 1) })
	return a.kick
}

// Record writes to Next; then the publisher is woken.
func (a *AuditSink) Record(ctx context.Context, r live.AuditRecord) error {
	if err := a.Next.Record(ctx, r); err != nil {
		return err
	}
	select {
	case a.kicker() <- struct{}{}:
	default:
	}
	return nil
}

// ProbeAudit probes Next (live.AuditProber), so the gate's check that the trail is writable
// before a forward still reaches the store.
func (a *AuditSink) ProbeAudit(ctx context.Context) error {
	if p, ok := a.Next.(live.AuditProber); ok {
		return p.ProbeAudit(ctx)
	}
	return nil
}

// publishBatch is how many trail events the publisher reads at a time.
const publishBatch = 256

// Run publishes the trail until ctx ends: it finds where the stream's copy of this host's
// trail ends and goes on from there, on each wake-up and every half second.
func (a *AuditSink) Run(ctx context.Context) {
	kick := a.kicker()
	next, known := int64(0), false
	for ctx.Err() == nil {
		if !known {
			n, err := a.resumePoint(ctx)
			if err == nil {
				next, known = n, true
			}
		}
		if known {
			prev := next
			var err error
			if next, err = a.publishFrom(ctx, next); err != nil && ctx.Err() == nil {
				a.F.log.Warn("fleet audit not published yet", "after", next, "err", err)
				known = false // find the stream's end again once it answers
			} else if err == nil && next != prev {
				continue // a full batch: more may be waiting
			}
		}
		select {
		case <-ctx.Done():
		case <-kick:
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// resumePoint is the seq after which this host's trail is not yet in the stream: the last
// entry the stream holds for this host, when the trail has that very event; otherwise (a
// new trail, a rotated or replaced database) 0: the whole trail is published again.
func (a *AuditSink) resumePoint(ctx context.Context) (int64, error) {
	s, err := a.F.stream(ctx)
	if err != nil {
		return 0, err
	}
	m, err := s.GetLastMsgForSubject(ctx, auditSubj+a.F.host)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var last AuditEntry
	if json.Unmarshal(m.Data, &last) != nil || last.Seq <= 0 {
		return 0, nil
	}
	evs, err := a.Trail.TrailAfter(ctx, last.Seq-1, 1)
	if err != nil {
		return 0, err
	}
	if len(evs) == 1 && evs[0].Seq == last.Seq && evs[0].Hash == last.Hash {
		return last.Seq, nil
	}
	return 0, nil
}

// publishFrom publishes the trail's events after seq (a batch) and returns the last one
// published.
func (a *AuditSink) publishFrom(ctx context.Context, seq int64) (int64, error) {
	evs, err := a.Trail.TrailAfter(ctx, seq, publishBatch)
	if err != nil {
		return seq, err
	}
	for _, e := range evs {
		if err := a.F.PublishAudit(ctx, AuditEntry{Seq: e.Seq, Prev: e.Prev, Hash: e.Hash, Event: e.Event}); err != nil {
			return seq, err
		}
		seq = e.Seq
	}
	return seq, nil
}

// The audit stream's default limits: a mirror of each host's trail (the trail itself, in
// each host's store, is the truth) need not grow without end.
const (
	DefaultAuditMaxAge         = 90 * 24 * time.Hour
	DefaultAuditMaxBytes int64 = 1 << 30
)

// AuditRetention bounds the fleet's audit stream: records older than MaxAge, and the oldest
// records past MaxBytes, are dropped (new records are always taken).
type AuditRetention struct {
	MaxAge   time.Duration // 0: DefaultAuditMaxAge
	MaxBytes int64         // 0: DefaultAuditMaxBytes
}

// withDefaults fills the zero limits.
func (r AuditRetention) withDefaults() AuditRetention {
	if r.MaxAge <= 0 {
		r.MaxAge = DefaultAuditMaxAge
	}
	if r.MaxBytes <= 0 {
		r.MaxBytes = DefaultAuditMaxBytes
	}
	return r
}

// stream binds the audit stream. `fleet serve` creates it, with the retention in its config
// (a host with credentials may not create or change it); on an open demo server a host creates
// it, and updates a stream whose limits differ (an older cockpit made it unbounded), logged.
func (f *Fleet) stream(ctx context.Context) (jetstream.Stream, error) {
	ret := f.opts.Audit.withDefaults()
	s, err := f.js.Stream(ctx, AuditStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) && f.id == nil {
		s, err = f.js.CreateStream(ctx, auditStreamConfig(f.opts.Replicas, ret))
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			s, err = f.js.Stream(ctx, AuditStream)
		}
	}
	if err != nil || f.id != nil {
		return s, err
	}
	if c := s.CachedInfo().Config; c.MaxAge != ret.MaxAge || c.MaxBytes != ret.MaxBytes || c.Discard != jetstream.DiscardOld {
		f.log.Info("fleet audit stream retention set", "max_age", ret.MaxAge, "max_bytes", ret.MaxBytes,
			"was_max_age", c.MaxAge, "was_max_bytes", c.MaxBytes)
		c.MaxAge, c.MaxBytes, c.Discard = ret.MaxAge, ret.MaxBytes, jetstream.DiscardOld
		return f.js.UpdateStream(ctx, c)
	}
	return s, nil
}

// PublishAudit appends one of this host's trail events to the stream, signed; an event
// sent twice is stored once (its host and hash are the message id).
func (f *Fleet) PublishAudit(ctx context.Context, e AuditEntry) error {
	if _, err := f.stream(ctx); err != nil {
		return err
	}
	e.Host, e.Sig = f.host, ""
	if f.id != nil {
		e.Sig = f.id.sign(e.input())
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = f.js.Publish(cctx, auditSubj+f.host, data, jetstream.WithMsgID(f.host+":"+e.Hash))
	return err
}

// AuditTail is the newest entries of the fleet's audit stream, oldest first, and what the
// stream says of itself: messages gone from its start or its middle.
type AuditTail struct {
	Entries  []AuditEntry
	FromHead bool     // the entries start at the stream's first message
	Warnings []string // purged or deleted messages
	// Notes say what the stream's retention removed from its start, as it should: no alarm.
	Notes []string
}

// ReadAuditTail reads the last n entries of the stream (n <= 0: all).
func (f *Fleet) ReadAuditTail(ctx context.Context, n int) (AuditTail, error) {
	var out AuditTail
	s, err := f.stream(ctx)
	if err != nil {
		return out, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return out, err
	}
	st := info.State
	if st.FirstSeq > 1 {
		if retained(info.Config, st, time.Now()) {
			out.Notes = append(out.Notes, fmt.Sprintf("the stream's messages 1 to %d were dropped by its retention (max age %s, max bytes %d): records before can no longer be checked here",
				st.FirstSeq-1, info.Config.MaxAge, info.Config.MaxBytes))
		} else {
			out.Warnings = append(out.Warnings, fmt.Sprintf("the stream's messages 1 to %d are gone (purged or deleted), and its retention does not explain it: those records can no longer be checked here", st.FirstSeq-1))
		}
	}
	if st.NumDeleted > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d messages were deleted from the middle of the stream", st.NumDeleted))
	}
	if st.Msgs == 0 {
		out.FromHead = true
		return out, nil
	}
	first, last := st.FirstSeq, st.LastSeq
	if n > 0 && last-first+1 > uint64(n) {
		first = last - uint64(n) + 1
	}
	out.FromHead = first == st.FirstSeq
	for seq := first; seq <= last; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("fleet audit %d: %w", seq, err)
		}
		var e AuditEntry
		if json.Unmarshal(m.Data, &e) != nil {
			e = AuditEntry{} // unreadable: kept, and marked forged
		}
		e.StreamSeq, e.Subject, e.At = m.Sequence, m.Subject, m.Time
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

// subjectHost is the host an audit subject belongs to.
func subjectHost(subject string) string { return strings.TrimPrefix(subject, auditSubj) }

// retained reports whether the stream's retention explains that its first messages are gone:
// it is near its size limit, or its oldest message is near its age limit (a purge leaves a
// small, young stream). A fleet idle longer than the age limit is told as a purge: a false
// alarm, never a missed one.
func retained(c jetstream.StreamConfig, st jetstream.StreamState, now time.Time) bool {
	if c.MaxBytes > 0 && st.Bytes >= uint64(c.MaxBytes)*9/10 {
		return true
	}
	return c.MaxAge > 0 && !st.FirstTime.IsZero() && now.Sub(st.FirstTime) >= c.MaxAge-c.MaxAge/10
}
