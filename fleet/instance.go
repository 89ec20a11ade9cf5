package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"cockpit/live"
	"cockpit/live/atomicfile"
)

// InstanceFile holds a runtime root's fleet instance id, under the root.
const InstanceFile = "fleet.id"

// InstanceID returns the root's fleet instance id in dir/fleet.id, creating it (0600, random)
// when missing. Halts and heartbeats carry it, so two roots that share a host name (two
// cockpits on one machine) still tell their own changes from each other's; it is per root, not
// per process, so `cockpit halt` and a restarted cockpit are the same instance as before.
func InstanceID(dir string) (string, error) {
	path := filepath.Join(dir, InstanceFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		id := live.RandomID("fi")
		if err := atomicfile.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
			return "", err
		}
		return id, nil
	}
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(data))
	if !strings.HasPrefix(id, "fi_") || len(id) < 16 {
		return "", fmt.Errorf("%s: not a fleet instance id: %q", path, id)
	}
	return id, nil
}

// Instance is this root's (or, without one, this process's) id in the fleet.
func (f *Fleet) Instance() string { return f.instance }

// ErrHostTaken is the refusal when another cockpit announces this host name.
var ErrHostTaken = errors.New("fleet host name taken")

// claim makes sure no other cockpit has a live heartbeat under this host name before this one
// counts orders or announces itself; it is checked once per connection and remembered. A
// clash is final for this process: the fleet stays refused (orders DENY fleet_unavailable)
// until [fleet] host is made unique and cockpit restarted.
func (f *Fleet) claim(ctx context.Context) error {
	f.claimMu.Lock()
	defer f.claimMu.Unlock()
	if f.conflict != nil || f.claimed {
		return f.conflict
	}
	kv, err := f.bucket(ctx, HostBucket)
	if err != nil {
		return err
	}
	mine, err := json.Marshal(Beat{Host: f.host, Instance: f.instance, State: "STARTING", At: time.Now()})
	if err != nil {
		return err
	}
	for range 3 {
		e, err := kv.Get(ctx, f.host)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			if _, err = kv.Create(ctx, f.host, mine); err == nil {
				f.claimed = true
				return nil
			}
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // another cockpit announced it meanwhile: look at it
			}
			return err
		}
		if err != nil {
			return err
		}
		var b Beat
		if json.Unmarshal(e.Value(), &b) == nil && b.Instance == f.instance {
			f.claimed = true
			return nil
		}
		f.conflict = fmt.Errorf("%w: another cockpit (instance %s) has a live heartbeat as host %q: give each root its own [fleet] host",
			ErrHostTaken, orNone(b.Instance), f.host)
		f.log.Error("fleet refused", "err", f.conflict)
		return f.conflict
	}
	return errors.New("fleet host claim: too much contention")
}

// Refused is why the fleet refused this process (a host name clash), or nil.
func (f *Fleet) Refused() error {
	f.claimMu.Lock()
	defer f.claimMu.Unlock()
	return f.conflict
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
