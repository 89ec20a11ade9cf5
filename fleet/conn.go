package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"cockpit/live"
)

// Bucket and stream names.
const (
	HaltBucket  = "cockpit_halt"
	DayBucket   = "cockpit_days"
	HostBucket  = "cockpit_hosts"
	AuditStream = "COCKPIT_AUDIT"
	auditSubj   = "cockpit.audit."
)

// HostTTL is how long a host's heartbeat stays in the fleet view without a renewal.
const HostTTL = 15 * time.Second

// Options say how to reach the fleet.
type Options struct {
	URL      string    // nats://host:4222 (comma-separated for a cluster)
	Creds    string    // this host's NATS credentials file (fleet add-host); read when Identity is nil
	Identity *Identity // this host's credentials, already read
	Token    string    // a token (read from the environment by the caller), for a server of the operator's own
	CA       string    // TLS: the CA file, the client certificate and its key
	Cert     string
	Key      string
	Host     string         // this host's name in the fleet (unique per root); with credentials, theirs
	Instance string         // this root's id (InstanceID); empty: a random one for this process
	Replicas int            // replicas of the buckets and stream when they are created (default 1)
	Audit    AuditRetention // the audit stream's limits (zero fields: the defaults)
	Log      *slog.Logger
	// OnAlert, when set, sees each thing the fleet refused because it did not check out.
	OnAlert func(Alert)
}

// Fleet is one host's connection to the fleet. It reconnects by itself; while it is away,
// reservations fail (the gate denies fleet_unavailable) and halts stay local.
type Fleet struct {
	nc       *nats.Conn
	js       jetstream.JetStream
	host     string
	instance string
	opts     Options
	log      *slog.Logger
	id       *Identity // nil without credentials: nothing this host writes is signed

	peerMu sync.Mutex
	peers  map[string]cachedPeer

	alertMu sync.Mutex
	alerted map[string]time.Time

	mu      sync.Mutex
	buckets map[string]jetstream.KeyValue
	lastErr error
	recon   chan struct{} // closed (and replaced) at each reconnect

	claimMu  sync.Mutex
	claimed  bool  // no other cockpit announces this host name
	conflict error // another does: the fleet is refused for this process
}

// Connect dials the fleet. It does not wait for the server: a fleet that is down at the
// start is retried in the background (and is unhealthy until it answers).
func Connect(o Options) (*Fleet, error) {
	if o.URL == "" {
		return nil, errors.New("fleet: no url")
	}
	if o.Identity == nil && o.Creds != "" {
		id, err := LoadIdentity(o.Creds)
		if err != nil {
			return nil, fmt.Errorf("fleet creds: %w", err)
		}
		o.Identity = id
	}
	if id := o.Identity; id != nil {
		if o.Host != "" && o.Host != id.Host {
			return nil, fmt.Errorf("fleet: the host name is %q but the credentials are host %q's: set [fleet] host = %q or use %s's creds", o.Host, id.Host, id.Host, o.Host)
		}
		o.Host = id.Host
	}
	if o.Host == "" {
		return nil, errors.New("fleet: no host name")
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Instance == "" {
		o.Instance = live.RandomID("fi")
	}
	f := &Fleet{host: o.Host, instance: o.Instance, opts: o, log: log, id: o.Identity, buckets: map[string]jetstream.KeyValue{},
		recon: make(chan struct{}), peers: map[string]cachedPeer{}, alerted: map[string]time.Time{}}
	opts := []nats.Option{nats.Name("cockpit " + o.Host), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.ReconnectWait(100 * time.Millisecond), nats.Timeout(2 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { log.Warn("fleet disconnected", "err", err) }),
		// nats.go's default error handler prints to stderr; the screen owns the terminal.
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { log.Warn("fleet", "err", err) }),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("fleet reconnected", "url", c.ConnectedUrlRedacted())
			f.reconnected()
		})}
	if id := o.Identity; id != nil {
		opts = append(opts, nats.UserJWTAndSeed(id.JWT, id.seed()), nats.CustomInboxPrefix(inboxPrefix(id.Host)))
	}
	if o.Token != "" {
		opts = append(opts, nats.Token(o.Token))
	}
	if o.CA != "" {
		opts = append(opts, nats.RootCAs(o.CA))
	}
	if o.Cert != "" || o.Key != "" {
		opts = append(opts, nats.ClientCert(o.Cert, o.Key))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("fleet: connect: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("fleet: jetstream: %w", err)
	}
	f.nc, f.js = nc, js
	return f, nil
}

// reconnected wakes the watches waiting on Reconnects: they re-watch from the server's state.
func (f *Fleet) reconnected() {
	f.mu.Lock()
	close(f.recon)
	f.recon = make(chan struct{})
	f.mu.Unlock()
}

// Reconnects returns a channel closed at the next reconnect.
func (f *Fleet) Reconnects() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.recon
}

// Host is this host's name in the fleet.
func (f *Fleet) Host() string { return f.host }

// Close drops the connection.
func (f *Fleet) Close() { f.nc.Close() }

// Connected reports whether the connection is up now.
func (f *Fleet) Connected() bool { return f.nc.IsConnected() }

// Health is the fleet's state for the screen: ok, or why not.
func (f *Fleet) Health() (ok bool, why string) {
	if !f.nc.IsConnected() {
		return false, "fleet " + f.nc.Status().String()
	}
	if err := f.Refused(); err != nil {
		return false, err.Error()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lastErr != nil {
		return false, f.lastErr.Error()
	}
	return true, "fleet ok"
}

// note records the outcome of the last fleet call for Health.
func (f *Fleet) note(err error) error {
	f.mu.Lock()
	f.lastErr = err
	f.mu.Unlock()
	return err
}

// bucket binds (creating when needed) a key-value bucket; a bucket is bound once.
func (f *Fleet) bucket(ctx context.Context, name string) (jetstream.KeyValue, error) {
	f.mu.Lock()
	kv := f.buckets[name]
	f.mu.Unlock()
	if kv != nil {
		return kv, nil
	}
	if !f.nc.IsConnected() {
		return nil, fmt.Errorf("fleet %s", f.nc.Status())
	}
	kv, err := f.js.KeyValue(ctx, name)
	if errors.Is(err, jetstream.ErrBucketNotFound) && f.id == nil { // a fleet with an authority has it make them
		kv, err = f.js.CreateKeyValue(ctx, bucketConfig(name, f.opts.Replicas))
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = f.js.KeyValue(ctx, name)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("fleet bucket %s: %w", name, err)
	}
	f.mu.Lock()
	f.buckets[name] = kv
	f.mu.Unlock()
	return kv, nil
}
