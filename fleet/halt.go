package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"cockpit/live"
	"cockpit/live/halt"
)

// HaltValue is a halt key's value: the latest trip or resume of one scope, and who did it.
type HaltValue struct {
	Halted bool      `json:"halted"`
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	Host   string    `json:"host"`
	// Instance is the writer's root (InstanceID): what tells this root's own changes apart,
	// since two roots may run on one machine.
	Instance string `json:"instance,omitempty"`
	// Sig is Host's signature (ed25519, its fleet key) of the value and its bucket key.
	Sig string `json:"sig,omitempty"`
}

// input is what a halt value's signature covers: its bucket key and every field.
func (v HaltValue) input(key string) []byte {
	return sigInput("halt", key, fmt.Sprint(v.Halted), v.By, v.Reason, v.At.UTC().Format(time.RFC3339Nano), v.Host, v.Instance)
}

// VerifyHalt checks that the value of a halt key was signed by the host it names, a host of
// the fleet; an error says why not (unsigned, an unknown host, a bad signature).
func (f *Fleet) VerifyHalt(ctx context.Context, key string, v HaltValue) error {
	return f.verifyBy(ctx, v.Host, v.input(key), v.Sig)
}

// HaltEvent is a trip or resume from another host, mirrored into this host's sentinel.
type HaltEvent struct {
	Scope live.Scope
	HaltValue
	// Unverified says why a mirrored halt's signature did not check out ("" when it did): a
	// halt is applied all the same (it only stops orders); such a resume never is.
	Unverified string
}

// HaltKey is the bucket key of a scope: "global" or "broker.<key>".
func HaltKey(scope live.Scope) string {
	if scope.Global {
		return "global"
	}
	return "broker." + brokerToken(scope.Broker)
}

// scopeOf reverses HaltKey; ok is false for a key that names no valid scope.
func scopeOf(key string) (live.Scope, bool) {
	if key == "global" {
		return live.GlobalScope, true
	}
	tok, found := strings.CutPrefix(key, "broker.")
	b, ok := brokerOfToken(tok)
	if !found || !ok {
		return live.Scope{}, false
	}
	k, err := live.NormalizeBroker(b)
	if err != nil || k != b {
		return live.Scope{}, false
	}
	return live.BrokerScope(k), true
}

// PublishHalt puts a trip (halted) or a resume of scope into the halt bucket, as this host
// and signed with its key (unsigned without credentials: other hosts then apply its halts
// but ignore its resumes).
func (f *Fleet) PublishHalt(ctx context.Context, scope live.Scope, v HaltValue) error {
	kv, err := f.bucket(ctx, HaltBucket)
	if err != nil {
		return err
	}
	v.Host, v.Sig = f.host, ""
	if v.Instance == "" {
		v.Instance = f.instance
	}
	if f.id != nil {
		v.Sig = f.id.sign(v.input(HaltKey(scope)))
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = kv.Put(ctx, HaltKey(scope), data)
	return err
}

// Halts reads every halt key.
func (f *Fleet) Halts(ctx context.Context) (map[string]HaltValue, error) {
	kv, err := f.bucket(ctx, HaltBucket)
	if err != nil {
		return nil, err
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return map[string]HaltValue{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]HaltValue{}
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		var v HaltValue
		if json.Unmarshal(e.Value(), &v) == nil {
			out[k] = v
		}
	}
	return out, nil
}

// LocalAuthors are the sentinel authors whose halts stay on their host (cockpit's own on_quit
// or audit-failure halt, a failed watcher): neither they nor their removal are published.
var LocalAuthors = []string{"cockpit", "watcher"}

// Mirror keeps this host's HALT sentinels and the fleet's halt bucket in step: a local trip
// or resume (Local, the halt watcher's hook) is published; another host's is written into
// the local sentinel (so the gate and Vibe-Trading see it) and reported to OnRemote. A
// sentinel the mirror wrote itself is not published again.
type Mirror struct {
	F    *Fleet
	Root live.Root
	Now  func() time.Time
	// OnRemote, when set, sees each trip or resume mirrored from another host (to audit it).
	OnRemote func(HaltEvent)
	// LocalOnly names sentinel authors whose halts stay on this host (cockpit's own on_quit
	// or audit-failure halt, the watcher's): neither they nor their removal are published.
	LocalOnly []string

	mu      sync.Mutex
	own     map[string]time.Time // path|exists → until when a sentinel change is the mirror's
	pending map[string]HaltValue // scope key → a local change not yet published
	local   map[string]bool      // sentinel paths written by a LocalOnly author
	kick    chan struct{}
	applyMu sync.Mutex        // one mirror write at a time (the watch and the poll both apply)
	watched map[string]uint64 // per key, how many values the watch applied (under applyMu)
}

func (m *Mirror) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Mirror) expect(path string, exists bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.own == nil {
		m.own = map[string]time.Time{}
	}
	m.own[fmt.Sprint(path, "|", exists)] = time.Now().Add(10 * time.Second)
}

func (m *Mirror) ours(path string, exists bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := fmt.Sprint(path, "|", exists)
	until, ok := m.own[k]
	delete(m.own, k)
	return ok && time.Now().Before(until)
}

// Local is the halt watcher's hook: a HALT sentinel appeared or disappeared on this host. It
// reports true when the change is the mirror's own write (already published by its host);
// otherwise the change is queued for publishing and false is returned.
func (m *Mirror) Local(c halt.SentinelChange) bool {
	if c.Sentinel != live.HaltSentinel {
		return false
	}
	if m.ours(c.Path, c.Exists) {
		return true
	}
	v := HaltValue{Halted: c.Exists, At: c.At, Host: m.F.host, Instance: m.F.instance, By: "operator", Reason: "resumed"}
	if c.Exists {
		v.Reason = ""
		if a, _ := halt.ReadSentinel(m.Root, c.Sentinel, c.Scope); a != nil {
			v.By, v.Reason = a.By, a.Reason
		}
	}
	if m.localOnly(c.Path, c.Exists, v.By) {
		return false
	}
	if v.At.IsZero() {
		v.At = m.now()
	}
	m.queue(c.Scope, v)
	return false
}

// localOnly reports (and tracks) a sentinel of a LocalOnly author: its appearance and then
// its removal stay on this host.
func (m *Mirror) localOnly(path string, exists bool, by string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !exists {
		was := m.local[path]
		delete(m.local, path)
		return was
	}
	for _, who := range m.LocalOnly {
		if by == who {
			if m.local == nil {
				m.local = map[string]bool{}
			}
			m.local[path] = true
			return true
		}
	}
	delete(m.local, path)
	return false
}

// queue keeps the latest local change of a scope until it is published.
func (m *Mirror) queue(scope live.Scope, v HaltValue) {
	m.mu.Lock()
	if m.pending == nil {
		m.pending = map[string]HaltValue{}
	}
	m.pending[HaltKey(scope)] = v
	kick := m.kicker()
	m.mu.Unlock()
	select {
	case kick <- struct{}{}:
	default:
	}
}

func (m *Mirror) kicker() chan struct{} {
	if m.kick == nil {
		m.kick = make(chan struct{}, 1)
	}
	return m.kick
}

// flush publishes the queued local changes. A change stays queued until it is published (so
// the mirror does not write an older bucket value over it meanwhile); a failure keeps it for
// the next try.
func (m *Mirror) flush(ctx context.Context) {
	m.mu.Lock()
	batch := make(map[string]HaltValue, len(m.pending))
	for k, v := range m.pending {
		batch[k] = v
	}
	m.mu.Unlock()
	for key, v := range batch {
		scope, _ := scopeOf(key)
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := m.F.PublishHalt(cctx, scope, v)
		cancel()
		if err != nil {
			m.F.log.Warn("fleet halt not published yet", "scope", key, "err", err)
			continue
		}
		m.mu.Lock()
		if cur, ok := m.pending[key]; ok && cur == v { // not replaced by a newer change meanwhile
			delete(m.pending, key)
		}
		m.mu.Unlock()
	}
}

// Run publishes local changes and mirrors the bucket until ctx ends, re-watching after a
// failure. At each (re)start it reconciles: a local halt the bucket does not hold (or holds
// an older resume of) is published; a remote halt missing here is written.
func (m *Mirror) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() { defer close(done); m.publishAndPoll(ctx) }()
	defer func() { <-done }()
	for ctx.Err() == nil {
		if err := m.watch(ctx); err != nil && ctx.Err() == nil {
			m.F.note(err)
			m.F.log.Warn("fleet halt watch", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// publishAndPoll publishes local changes as soon as they are queued, and each second retries
// what failed and reads the whole bucket (for safety, as the file watcher polls: a watch was
// seen to miss a halt while it was being set up again after a server restart).
func (m *Mirror) publishAndPoll(ctx context.Context) {
	m.mu.Lock()
	kick := m.kicker()
	m.mu.Unlock()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
			m.flush(ctx)
		case <-tick.C:
			m.flush(ctx)
			if kv, err := m.F.bucket(ctx, HaltBucket); err == nil {
				m.poll(ctx, kv)
			}
		}
	}
}

func (m *Mirror) watch(ctx context.Context) error {
	recon := m.F.Reconnects()
	kv, err := m.F.bucket(ctx, HaltBucket)
	if err != nil {
		return err
	}
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return err
	}
	defer w.Stop()
	seen := map[string]HaltValue{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-recon: // the server may have lost the watch's consumer: watch afresh
			return nil
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("halt watch closed")
			}
			if e == nil { // the initial values are in
				m.reconcile(seen)
				continue
			}
			var v HaltValue
			if e.Operation() != jetstream.KeyValuePut || json.Unmarshal(e.Value(), &v) != nil {
				continue
			}
			seen[e.Key()] = v
			if scope, ok := scopeOf(e.Key()); ok {
				m.applyWatched(scope, v)
			}
		}
	}
}

// poll reads every halt key and mirrors it (apply changes nothing already in step).
func (m *Mirror) poll(ctx context.Context, kv jetstream.KeyValue) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	keys, err := kv.Keys(ctx)
	if err != nil {
		return
	}
	for _, k := range keys {
		gen := m.watchedOf(k)
		e, err := kv.Get(ctx, k)
		var v HaltValue
		if err != nil || json.Unmarshal(e.Value(), &v) != nil {
			continue
		}
		if scope, ok := scopeOf(k); ok {
			m.applyPolled(scope, v, gen)
		}
	}
}

// reconcile queues the local HALT files the bucket does not know (tripped while the fleet
// was away) for publishing.
func (m *Mirror) reconcile(seen map[string]HaltValue) {
	scopes := []live.Scope{live.GlobalScope}
	if ents, err := os.ReadDir(m.Root.LiveDir()); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				if k, err := live.NormalizeBroker(e.Name()); err == nil && k == e.Name() {
					scopes = append(scopes, live.BrokerScope(k))
				}
			}
		}
	}
	for _, sc := range scopes {
		path, err := m.Root.ScopedSentinelPath(live.HaltSentinel, sc)
		if err != nil {
			continue
		}
		fi, err := os.Lstat(path)
		if err != nil {
			continue
		}
		v, known := seen[HaltKey(sc)]
		if known && (v.Halted || v.At.After(fi.ModTime())) {
			delete(seen, HaltKey(sc))
			continue
		}
		delete(seen, HaltKey(sc))
		m.Local(halt.SentinelChange{Sentinel: live.HaltSentinel, Scope: sc, Path: path, Exists: true, At: fi.ModTime()})
	}
	// A halt of this host's that the bucket still holds, but whose file was removed while the
	// fleet was away, was resumed here: the resume is published.
	for key, v := range seen {
		sc, ok := scopeOf(key)
		if !ok || !v.Halted || v.Instance != m.F.instance {
			continue
		}
		path, err := m.Root.ScopedSentinelPath(live.HaltSentinel, sc)
		if _, serr := os.Lstat(path); err == nil && serr != nil {
			m.queue(sc, HaltValue{Halted: false, By: "operator", Reason: "resumed while the fleet was away", At: m.now(), Host: m.F.host, Instance: m.F.instance})
		}
	}
}

// applyWatched applies a value the watch delivered (the newest, in order).
func (m *Mirror) applyWatched(scope live.Scope, v HaltValue) {
	m.applyMu.Lock()
	defer m.applyMu.Unlock()
	if m.watched == nil {
		m.watched = map[string]uint64{}
	}
	m.watched[HaltKey(scope)]++
	m.apply(scope, v)
}

// watchedOf is how many values of key the watch has applied so far.
func (m *Mirror) watchedOf(key string) uint64 {
	m.applyMu.Lock()
	defer m.applyMu.Unlock()
	return m.watched[key]
}

// applyPolled applies a value the poll read when the watch had applied gen values of its
// key; if the watch applied another since, the read may be older than it and is dropped (the
// next poll reads again).
func (m *Mirror) applyPolled(scope live.Scope, v HaltValue, gen uint64) {
	m.applyMu.Lock()
	defer m.applyMu.Unlock()
	if m.watched[HaltKey(scope)] != gen {
		return
	}
	m.apply(scope, v)
}

// apply mirrors one bucket value into the local sentinel (under applyMu). A halt is written whoever signed
// it (it only stops orders; an unverified one is alerted); a resume is applied only when
// signed by a host of the fleet and only to a halt that same host made (see clears).
func (m *Mirror) apply(scope live.Scope, v HaltValue) {
	if v.Instance == m.F.instance {
		return // this root's own change: its file already says so
	}
	m.mu.Lock()
	_, newer := m.pending[HaltKey(scope)]
	m.mu.Unlock()
	if newer {
		return // a local change of this scope is waiting to be published: it is the later one
	}
	path, err := m.Root.ScopedSentinelPath(live.HaltSentinel, scope)
	if err != nil {
		return
	}
	fi, statErr := os.Lstat(path)
	exists := statErr == nil
	if v.Halted == exists {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	verr := m.F.VerifyHalt(ctx, HaltKey(scope), v)
	cancel()
	ev := HaltEvent{Scope: scope, HaltValue: v}
	if v.Halted {
		if verr != nil {
			ev.Unverified = verr.Error()
			m.F.alert(Alert{Kind: AlertHaltUnverified, Host: v.Host, Subject: HaltKey(scope),
				Text: fmt.Sprintf("halt of %s from host %q applied, but it does not check out: %v", scope, v.Host, verr)})
		}
		if !m.trip(scope, path, v) {
			return
		}
	} else {
		if fi.ModTime().After(v.At) { // tripped here after that resume: the halt stands
			return
		}
		if why := m.refuseResume(scope, v, verr); why != "" {
			m.F.alert(Alert{Kind: AlertResumeIgnored, Host: v.Host, Subject: HaltKey(scope),
				Text: fmt.Sprintf("resume of %s from host %q ignored: %s; the HALT stands", scope, v.Host, why)})
			return
		}
		m.expect(path, false)
		if _, err := halt.Clear(m.Root, live.HaltSentinel, scope); err != nil {
			m.F.log.Error("fleet resume not mirrored", "scope", scope.String(), "err", err)
			return
		}
		m.forget(scope)
	}
	if m.OnRemote != nil {
		m.OnRemote(ev)
	}
}
