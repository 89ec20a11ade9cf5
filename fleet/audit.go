package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"cockpit/live"
	"cockpit/live/auditsink"
)

// AuditEntry is one host's audit record as the fleet stream holds it.
type AuditEntry struct {
	Host   string          `json:"host"`
	Hash   string          `json:"hash"`
	Record json.RawMessage `json:"record"`
	Seq    uint64          `json:"-"`
	At     time.Time       `json:"-"`
}

// AuditSink records to Next (the local trail, the truth) and then publishes each record to
// the fleet's audit stream in the background, with its hash as the message id so a record
// sent twice is stored once. A record the fleet cannot take is dropped from the stream only.
type AuditSink struct {
	Next live.AuditSink
	F    *Fleet

	once sync.Once
	ch   chan AuditEntry
}

// Record writes to Next; only then is the record queued for the fleet.
func (a *AuditSink) Record(ctx context.Context, r live.AuditRecord) error {
	if err := a.Next.Record(ctx, r); err != nil {
		return err
	}
	data, err := json.Marshal(auditsink.Redact(r)) // what the store keeps: no secret leaves the host
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(append([]byte(a.F.host+"\n"), data...))
	a.once.Do(func() { a.ch = make(chan AuditEntry, 1024) })
	select {
	case a.ch <- AuditEntry{Host: a.F.host, Hash: hex.EncodeToString(sum[:]), Record: data}:
	default:
		a.F.log.Warn("fleet audit queue full: record not published", "kind", r.Kind)
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

// Run publishes queued records until ctx ends.
func (a *AuditSink) Run(ctx context.Context) {
	a.once.Do(func() { a.ch = make(chan AuditEntry, 1024) })
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-a.ch:
			for try := 0; try < 50 && ctx.Err() == nil; try++ {
				if err := a.F.PublishAudit(ctx, e); err == nil {
					break
				}
				select {
				case <-ctx.Done():
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
	}
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

// stream binds (creating when needed) the audit stream, with this host's retention: a
// stream whose limits differ (an older cockpit made it unbounded, or another host set others)
// is updated to them, and the change is logged.
func (f *Fleet) stream(ctx context.Context) (jetstream.Stream, error) {
	ret := f.opts.Audit.withDefaults()
	s, err := f.js.Stream(ctx, AuditStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = f.js.CreateStream(ctx, jetstream.StreamConfig{Name: AuditStream, Subjects: []string{auditSubj + ">"},
			Storage: jetstream.FileStorage, Replicas: f.opts.Replicas, Duplicates: 10 * time.Minute,
			MaxAge: ret.MaxAge, MaxBytes: ret.MaxBytes, Discard: jetstream.DiscardOld})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			s, err = f.js.Stream(ctx, AuditStream)
		}
	}
	if err != nil {
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

// PublishAudit appends one entry to the stream; duplicate reports a hash already stored.
func (f *Fleet) PublishAudit(ctx context.Context, e AuditEntry) error {
	if _, err := f.stream(ctx); err != nil {
		return err
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = f.js.Publish(cctx, auditSubj+e.Host, data, jetstream.WithMsgID(e.Hash))
	return err
}

// AuditTail returns the last n entries of the fleet's audit stream, oldest first.
func (f *Fleet) AuditTail(ctx context.Context, n int) ([]AuditEntry, error) {
	s, err := f.stream(ctx)
	if err != nil {
		return nil, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return nil, err
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	if info.State.Msgs == 0 {
		return nil, nil
	}
	if n > 0 && last-first+1 > uint64(n) {
		first = last - uint64(n) + 1
	}
	var out []AuditEntry
	for seq := first; seq <= last; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("fleet audit %d: %w", seq, err)
		}
		var e AuditEntry
		if json.Unmarshal(m.Data, &e) == nil {
			e.Seq, e.At = m.Sequence, m.Time
			out = append(out, e)
		}
	}
	return out, nil
}
