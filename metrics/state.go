package metrics

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// State is the root owner's state at one scrape, read from the read model (and the store's
// review table), never kept here: the figures cannot drift from what the screen shows.
type State struct {
	Broker       string
	Halted       map[string]bool // scope (global, broker, latch) → halted
	OrdersToday  int
	CountUnknown bool // the day's count could not be read (the gate denies): not exposed as a number
	OrdersCap    int  // the mandate's max_trades_per_day
	HasMandate   bool // a verified mandate: OrdersCap and Usage are its limits
	// Usage is each limit's used / limit ratio (1 is at the cap), by limit name; a limit whose
	// level is unknown (the book or the equity was not read) is absent.
	Usage       map[string]float64
	LossCrossed map[string]bool // loss limit → crossed, as the gate last read them
	Reviews     map[string]int  // review items by state (pending, approved, denied, timed_out, voided); nil: unreadable
	// OldestPending is how long the oldest pending review has waited (0: none).
	OldestPending time.Duration
	BrokerUp      bool
	BrokerLatency time.Duration // the last read of the broker's book
	Fleet         bool          // in a fleet: FleetUp says whether its link is healthy
	FleetUp       bool
	ChainLength   int64 // the audit trail's newest seq
	MCPClients    int
	SSHSessions   map[string]int // role → open screens
}

// Collector reads State at every scrape and exposes it.
type Collector struct {
	Read func(ctx context.Context) State
}

type desc struct {
	d    *prometheus.Desc
	kind prometheus.ValueType
}

func newDesc(name, help string, kind prometheus.ValueType, labels ...string) desc {
	return desc{prometheus.NewDesc(name, help, labels, nil), kind}
}

var (
	dHalted        = newDesc("cockpit_halted", "1 while trading is halted in the scope (global HALT, the broker's HALT, the process latch), else 0.", prometheus.GaugeValue, "broker", "scope")
	dOrdersToday   = newDesc("cockpit_orders_today", "Orders counted today (UTC) as the gate counts them (the fleet's count in a fleet).", prometheus.GaugeValue, "broker")
	dOrdersCap     = newDesc("cockpit_orders_today_limit", "The mandate's max_trades_per_day (absent without a verified mandate).", prometheus.GaugeValue, "broker")
	dMandate       = newDesc("cockpit_mandate_verified", "1 when the broker's mandate is present and verified against the ledger, else 0 (every order is denied).", prometheus.GaugeValue, "broker")
	dUsage         = newDesc("cockpit_limit_usage_ratio", "Headroom: a mandate limit's used / limit (1 = at the cap), by limit; absent while the level is unknown.", prometheus.GaugeValue, "broker", "limit")
	dLossCrossed   = newDesc("cockpit_loss_limit_crossed", "1 when a loss limit is crossed as the gate last read it, else 0.", prometheus.GaugeValue, "broker", "limit")
	dReviews       = newDesc("cockpit_reviews", "Review items in the store by state (pending, approved, denied, timed_out, voided).", prometheus.GaugeValue, "state")
	dOldest        = newDesc("cockpit_review_oldest_pending_seconds", "How long the oldest pending review item has waited (0 when none waits).", prometheus.GaugeValue)
	dBrokerUp      = newDesc("cockpit_broker_up", "1 when the last read of the broker succeeded, else 0.", prometheus.GaugeValue, "broker")
	dBrokerLatency = newDesc("cockpit_broker_read_duration_seconds", "Round trip of the last read of the broker's positions.", prometheus.GaugeValue, "broker")
	dFleetUp       = newDesc("cockpit_fleet_up", "1 when the fleet link is healthy, else 0 (absent without a fleet).", prometheus.GaugeValue)
	dChain         = newDesc("cockpit_audit_chain_length", "The hash-chained audit trail's newest sequence number.", prometheus.GaugeValue)
	dMCP           = newDesc("cockpit_mcp_clients", "MCP client sessions connected to serve-mcp.", prometheus.GaugeValue)
	dSSH           = newDesc("cockpit_ssh_sessions", "Screens open over SSH, by role.", prometheus.GaugeValue, "role")
	allDescs       = []desc{dHalted, dOrdersToday, dOrdersCap, dMandate, dUsage, dLossCrossed, dReviews, dOldest, dBrokerUp, dBrokerLatency, dFleetUp, dChain, dMCP, dSSH}
)

// ReviewStates are the states cockpit_reviews always reports (0 when none).
var ReviewStates = []string{"pending", "approved", "denied", "timed_out", "voided"}

// SSHRoles are the roles cockpit_ssh_sessions always reports (0 when none).
var SSHRoles = []string{"viewer", "operator", "admin"}

// HaltScopes are the scopes cockpit_halted always reports.
var HaltScopes = []string{"global", "broker", "latch"}

// Describe implements prometheus.Collector.
func (c Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d.d
	}
}

// Collect implements prometheus.Collector: one read of the state per scrape.
func (c Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := ctxTimeout(context.Background())
	defer cancel()
	s := c.Read(ctx)
	b := Label(s.Broker)
	emit := func(d desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d.d, d.kind, v, labels...)
	}
	for _, scope := range HaltScopes {
		emit(dHalted, b01(s.Halted[scope]), b, scope)
	}
	if !s.CountUnknown { // an unreadable count is absent, never 0
		emit(dOrdersToday, float64(s.OrdersToday), b)
	}
	emit(dMandate, b01(s.HasMandate), b)
	if s.HasMandate {
		emit(dOrdersCap, float64(s.OrdersCap), b)
	}
	for _, l := range slices.Sorted(maps.Keys(s.Usage)) {
		emit(dUsage, s.Usage[l], b, Label(l))
	}
	for _, l := range slices.Sorted(maps.Keys(s.LossCrossed)) {
		emit(dLossCrossed, b01(s.LossCrossed[l]), b, Label(l))
	}
	if s.Reviews != nil { // nil: the store could not be read; absent beats a false 0
		for _, st := range ReviewStates {
			emit(dReviews, float64(s.Reviews[st]), st)
		}
		emit(dOldest, s.OldestPending.Seconds())
	}
	emit(dBrokerUp, b01(s.BrokerUp), b)
	emit(dBrokerLatency, s.BrokerLatency.Seconds(), b)
	if s.Fleet {
		emit(dFleetUp, b01(s.FleetUp))
	}
	emit(dChain, float64(s.ChainLength))
	emit(dMCP, float64(s.MCPClients))
	for _, r := range SSHRoles {
		emit(dSSH, float64(s.SSHSessions[r]), r)
	}
}

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
