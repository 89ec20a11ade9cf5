package session

import (
	"cockpit/config"
	"cockpit/live"
)

// BrokerProber checks a configured broker's link without trading: it connects, makes at most
// a read-only round trip, and disconnects.
type BrokerProber func(rt *Runtime, key string, bc config.BrokerConfig) live.BrokerHealth

// brokerProbers holds the prober of each kind (registered next to its connector).
var brokerProbers = map[string]BrokerProber{}

// registerProbe makes a kind of broker table probeable by `cockpit status`.
func registerProbe(kind string, p BrokerProber) { brokerProbers[kind] = p }

// ProbeBroker reports a configured broker's link; ok is false for the paper broker, a key
// with no table, or a kind that cannot be probed.
func (rt *Runtime) ProbeBroker(key string) (live.BrokerHealth, bool) {
	bc, ok := rt.Config.Broker(key)
	if !ok {
		return live.BrokerHealth{}, false
	}
	p, ok := brokerProbers[bc.Kind]
	if !ok {
		return live.BrokerHealth{}, false
	}
	return p(rt, key, bc), true
}
