package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/gofrs/flock"

	"cockpit/config"
	"cockpit/live"
)

// BrokerOpener opens a configured real broker of one kind; the caller holds its account lock
// and has already refused a live table opened without the run's --live flag.
type BrokerOpener func(rt *Runtime, key string, bc config.BrokerConfig) (live.Broker, error)

// brokerOpeners holds the connector of each kind; each connector registers itself from its
// own file (broker_<kind>.go).
var brokerOpeners = map[string]BrokerOpener{}

// registerBroker makes a kind of broker table openable.
func registerBroker(kind string, open BrokerOpener) { brokerOpeners[kind] = open }

// ErrLiveNotConfirmed reports a live broker table opened without the run's --live flag.
var ErrLiveNotConfirmed = errors.New("real money needs both mode = \"live\" in config and the --live flag on the command line")

// IsLive reports whether key trades real money: false only for the embedded paper broker and
// tables that say mode = "paper". An unknown key is live (fail closed).
func (rt *Runtime) IsLive(key string) bool {
	if live.IsPaperBroker(key) {
		return false
	}
	bc, ok := rt.Config.Broker(key)
	return !ok || bc.Live()
}

// openConfigured opens the [brokers.<key>] table's broker through its kind's connector.
func (rt *Runtime) openConfigured(key string) (live.Broker, error) {
	bc, ok := rt.Config.Broker(key)
	if !ok {
		return nil, fmt.Errorf("broker %q: no [brokers.%s] table in %s", key, key, config.Path(rt.Root))
	}
	if bc.Live() && !rt.AllowLive {
		return nil, fmt.Errorf("broker %q: %w", key, ErrLiveNotConfirmed)
	}
	open, ok := brokerOpeners[bc.Kind]
	if !ok {
		kinds := make([]string, 0, len(brokerOpeners))
		for k := range brokerOpeners {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		return nil, fmt.Errorf("config: brokers.%s.kind = %q: this build has no such connector (it has: %v)", key, bc.Kind, kinds)
	}
	return open(rt, key, bc)
}

// lockAccount takes the account lock of a configured broker: one process trades an account.
func lockAccount(root live.Root, key string) (func(), error) {
	if err := os.MkdirAll(root.BrokerDir(key), 0o700); err != nil {
		return nil, err
	}
	lock := flock.New(filepath.Join(root.BrokerDir(key), ".account.lock"), flock.SetPermissions(0o600))
	ok, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("%s account lock: %w", key, err)
	}
	if !ok {
		return nil, fmt.Errorf("the %s account is in use by a running cockpit (stop it first): %w", key, ErrAccountInUse)
	}
	return func() { lock.Unlock() }, nil
}
