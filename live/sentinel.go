package live

import "path/filepath"

// Sentinel names a kill-switch file. Its existence is the signal, whatever it contains.
type Sentinel string

// Sentinels.
const (
	HaltSentinel       Sentinel = "HALT"
	ReduceOnlySentinel Sentinel = "REDUCE_ONLY" // cockpit extension
)

// SentinelPath returns the global sentinel path when broker is "", else the broker's one.
// The broker key must already be normalised.
func (r Root) SentinelPath(s Sentinel, broker string) string {
	if broker == "" {
		return filepath.Join(r.LiveDir(), string(s))
	}
	return filepath.Join(r.BrokerDir(broker), string(s))
}

// ScopedSentinelPath is the sentinel path for a scope; a broker key is normalised first.
func (r Root) ScopedSentinelPath(s Sentinel, scope Scope) (string, error) {
	broker, global := scope.Broker, scope.Global
	if global {
		return r.SentinelPath(s, ""), nil
	}
	key, err := NormalizeBroker(broker)
	if err != nil {
		return "", err
	}
	return r.SentinelPath(s, key), nil
}

// Scope is where a sentinel applies: everywhere (Global) or to one broker.
type Scope struct {
	Broker string // ignored when Global
	Global bool
}

// GlobalScope applies to every broker.
var GlobalScope = Scope{Global: true}

// BrokerScope applies to one broker.
func BrokerScope(broker string) Scope { return Scope{Broker: broker} }

// String names the scope for messages.
func (s Scope) String() string {
	if s.Global {
		return "global"
	}
	return s.Broker
}

// TradingState is what the sentinels allow on a broker.
type TradingState string

// Trading states, from least to most restrictive.
const (
	Active     TradingState = "ACTIVE"
	ReduceOnly TradingState = "REDUCE_ONLY"
	Halted     TradingState = "HALTED"
)
