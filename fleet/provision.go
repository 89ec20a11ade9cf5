package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// bucketConfig is how each bucket is made, by the authority or, on a server without one, by
// the first host that needs it.
func bucketConfig(name string, replicas int) jetstream.KeyValueConfig {
	cfg := jetstream.KeyValueConfig{Bucket: name, Replicas: max(replicas, 1), Storage: jetstream.FileStorage}
	switch name {
	case HaltBucket:
		cfg.History = 16
	case DayBucket:
		cfg.History = dayHistory
	case HostBucket:
		cfg.TTL, cfg.Storage = HostTTL, jetstream.MemoryStorage
	case PeerBucket:
		cfg.History = 4
	}
	return cfg
}

func auditStreamConfig(replicas int, ret AuditRetention) jetstream.StreamConfig {
	ret = ret.withDefaults()
	return jetstream.StreamConfig{Name: AuditStream, Subjects: []string{auditSubj + ">"},
		Storage: jetstream.FileStorage, Replicas: max(replicas, 1), Duplicates: 10 * time.Minute,
		MaxAge: ret.MaxAge, MaxBytes: ret.MaxBytes, Discard: jetstream.DiscardOld}
}

// noPeers is JetStream's "no suitable peers for placement": a cluster whose nodes are not
// all current yet cannot place a replicated bucket for a moment.
const noPeers jetstream.ErrorCode = 10005

// storeBusy is JetStream's "error creating store for stream": asked again while an earlier
// request for the same bucket is still creating its store (a slow disk), the server refuses
// the second; the next try finds the bucket made.
const storeBusy jetstream.ErrorCode = 10049

// attemptTimeout bounds one JetStream API request while provisioning: a request the meta
// leader never answers (a cluster still forming can drop it) is asked again rather than
// waited on until the whole deadline; long enough for a loaded disk to make a store.
var attemptTimeout = 15 * time.Second

// retry runs fn, each attempt under its own attemptTimeout, until it succeeds, fails otherwise
// than for want of peers, JetStream responders or an answer, or for a store still being made
// (a cluster or a disk settling), or ctx ends.
func retry(ctx context.Context, fn func(context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err := fn(actx)
		cancel()
		var api *jetstream.APIError
		unanswered := errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
		settling := errors.As(err, &api) && (api.ErrorCode == noPeers || api.ErrorCode == storeBusy) || errors.Is(err, nats.ErrNoResponders) || unanswered
		if err == nil || !settling {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Provision connects to ns in-process as the authority's administrator (a is nil for an
// open server), makes the buckets and the audit stream (hosts with credentials may not), and
// puts each peer record whose value changed. A cluster is provisioned through any one of its
// nodes once all of them are up.
func Provision(ns *server.Server, a *Authority, replicas int, peers []Peer, ret AuditRetention) error {
	opts := []nats.Option{nats.InProcessServer(ns), nats.Name("cockpit fleet authority")}
	if a != nil {
		c, err := a.adminCreds()
		if err != nil {
			return err
		}
		tok, err := jwt.ParseDecoratedJWT(c.Data)
		if err != nil {
			return err
		}
		kp, err := jwt.ParseDecoratedUserNKey(c.Data)
		if err != nil {
			return err
		}
		opts = append(opts, nats.UserJWTAndSeed(tok, seedOf(kp)))
	}
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return fmt.Errorf("fleet serve: provision: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, b := range []string{HaltBucket, DayBucket, HostBucket, PeerBucket} {
		if err := retry(ctx, func(ctx context.Context) error {
			_, err := js.CreateOrUpdateKeyValue(ctx, bucketConfig(b, replicas))
			return err
		}); err != nil {
			return fmt.Errorf("fleet serve: bucket %s: %w", b, err)
		}
	}
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := js.CreateOrUpdateStream(ctx, auditStreamConfig(replicas, ret))
		return err
	}); err != nil {
		return fmt.Errorf("fleet serve: stream %s: %w", AuditStream, err)
	}
	var kv jetstream.KeyValue
	if err := retry(ctx, func(ctx context.Context) (err error) { kv, err = js.KeyValue(ctx, PeerBucket); return err }); err != nil {
		return fmt.Errorf("fleet serve: bucket %s: %w", PeerBucket, err)
	}
	for _, p := range peers {
		data, err := json.Marshal(p)
		if err != nil {
			return err
		}
		// A replicated bucket just made may have no leader yet (no responders): asked again.
		if err := retry(ctx, func(ctx context.Context) error { return putPeer(ctx, kv, p.Host, data) }); err != nil {
			return fmt.Errorf("fleet serve: peer %s: %w", p.Host, err)
		}
	}
	return nil
}

// putPeer puts a peer record unless the bucket already holds that very value.
func putPeer(ctx context.Context, kv jetstream.KeyValue, host string, data []byte) error {
	if e, err := kv.Get(ctx, host); err == nil && bytes.Equal(e.Value(), data) {
		return nil
	} else if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return err
	}
	_, err := kv.Put(ctx, host, data)
	return err
}
