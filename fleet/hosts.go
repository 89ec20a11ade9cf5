package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Beat is one host's heartbeat: what the fleet view lists.
type Beat struct {
	Host      string    `json:"host"`
	Instance  string    `json:"instance,omitempty"` // the root's id: two cockpits may not share a host name
	State     string    `json:"state"`              // ACTIVE, HALTED, REDUCE_ONLY
	Broker    string    `json:"broker"`
	Orders    int       `json:"orders_today"`
	LastEvent string    `json:"last_event"`
	At        time.Time `json:"at"`
}

// Lag is how old the beat is at now.
func (b Beat) Lag(now time.Time) time.Duration { return max(now.Sub(b.At), 0) }

// PutBeat announces this host (the key expires after HostTTL without a renewal).
func (f *Fleet) PutBeat(ctx context.Context, b Beat) error {
	kv, err := f.bucket(ctx, HostBucket)
	if err != nil {
		return err
	}
	if err := f.claim(ctx); err != nil {
		return err // never overwrite another cockpit's heartbeat
	}
	b.Host, b.Instance = f.host, f.instance
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	_, err = kv.Put(ctx, f.host, data)
	return err
}

// Hosts lists the hosts with a live heartbeat, by name.
func (f *Fleet) Hosts(ctx context.Context) ([]Beat, error) {
	kv, err := f.bucket(ctx, HostBucket)
	if err != nil {
		return nil, err
	}
	return readAll(ctx, kv, func(_ string, b Beat) bool { return true }, func(b Beat) string { return b.Host })
}

// readAll reads and decodes every key of kv, keeps the values keep accepts (a key gone
// between the listing and the read, or a value that does not decode, is left out) and sorts
// them by name.
func readAll[T any](ctx context.Context, kv jetstream.KeyValue, keep func(key string, v T) bool, name func(T) string) ([]T, error) {
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []T
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue // expired or deleted between the listing and the read
		}
		var v T
		if json.Unmarshal(e.Value(), &v) == nil && keep(k, v) {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return name(out[i]) < name(out[j]) })
	return out, nil
}

// Heartbeat puts beat() every interval until ctx ends; a failed put is noted in Health.
func (f *Fleet) Heartbeat(ctx context.Context, every time.Duration, beat func() Beat) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := f.PutBeat(cctx, beat())
		cancel()
		if err != nil && ctx.Err() == nil {
			f.note(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
