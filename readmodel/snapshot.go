package readmodel

import (
	"time"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/store"
)

// Snapshot is the state of one broker account at one moment, as every window shows it.
type Snapshot struct {
	Taken  time.Time
	Broker string
	Live   bool // a live broker (the LIVE badge), else paper

	State      live.TradingState // from the sentinels and the latches
	HaltReason string            // who, why and when, from the sentinel or the latch, when halted
	HaltFile   string            // the sentinel path shown in the status bar
	HaltFileOK bool              // false: the sentinel could not be read (shown as ERROR, and halted)
	Warnings   []string          // conditions to raise as alerts (a sentinel nobody acts on)
	Faults     []string          // data that cannot be trusted, raised as critical alerts (a broken audit chain)
	// Supervising says another process owns the account ("SUPERVISING serve-mcp pid 1234
	// (mcp:…)", issue 14); OwnerGone: that owner has no heartbeat.
	Supervising string
	OwnerGone   bool
	// Attached says the screen shows a root whose trading runs elsewhere and what it can do
	// there ("ATTACHED to Vibe-Trading: H and U write its HALT file; nothing else acts").
	Attached string

	Mandate      *live.Mandate
	MandateErr   string
	MandateState live.MandateState // verified, or why the gate will not use the file (DV13)
	Committed    time.Time         // when the mandate was committed (start of the expiry gauge)
	Expires      time.Time

	OrdersToday int    // the day's count as the gate counts it: the fleet's when FleetOrders
	CountErr    string // the day's count could not be read (the gate denies): OrdersToday means nothing then
	FleetOrders bool   // OrdersToday is the fleet's count; HostOrders is this root's share
	HostOrders  int

	Tools []BrokerTool // the broker server's own tools and their class; nil unless it is an MCP server

	Owned // what only the account's owner reads: its broker and its engine

	Remote []string   // who is connected over SSH ("alice@laptop (operator)"), empty when nobody
	Fleet  *FleetView // the fleet's health and hosts; nil without a fleet

	// Trades is the UTC day's fills of this broker and the round trips they closed, from the
	// audit trail: the numbers `cockpit trades` prints. TradesErr says they could not be read.
	Trades    store.DayTrades
	TradesErr string

	Reviews    []live.ReviewItem // pending
	Audit      []AuditRow        // the newest events, newest first
	AuditTotal int64
	Alerts     []TrailAlert // what the trail raises (halts, denials, reviews, findings…), oldest first
}

// Owned is the part of a snapshot only the process that owns the account can read (its broker
// and its engine). The owner publishes it in the store while a supervisor watches, so a
// supervising screen shows the owner's own numbers, not numbers of its own.
type Owned struct {
	Agent     string    `json:"agent,omitempty"`   // the agent's name (or the MCP clients served), "" when none runs
	Clients   []string  `json:"clients,omitempty"` // MCP client sessions, mcp:<name>@<version>
	Paused    bool      `json:"paused,omitempty"`  // the agent loop is paused
	PauseWhy  string    `json:"pause_why,omitempty"`
	PauseTill time.Time `json:"pause_till"` // the end of an auto-pause, zero when none
	Blocked   []string  `json:"blocked,omitempty"`
	// OwnerHalt is the owner's in-memory halt (its watcher's or its audit latch), "" when none.
	OwnerHalt string `json:"owner_halt,omitempty"`
	// FleetDay is the fleet's day count as the owner read it (nil without a fleet): a
	// supervisor, which has no fleet link, shows the fleet's count with it.
	FleetDay *FleetDay `json:"fleet_day,omitempty"`

	BrokerErr string                `json:"broker_err,omitempty"` // the last broker read error, "" when healthy
	Latency   time.Duration         `json:"latency"`
	Positions []live.Position       `json:"positions"`
	Orders    []live.Order          `json:"orders"`            // open orders
	Origins   map[string]string     `json:"origins,omitempty"` // client order id → who placed it (agent, operator)
	Trails    map[string]OrderTrail `json:"trails,omitempty"`  // client order id → the decision that placed it
	Account   live.Account          `json:"account"`
	Quotes    map[string]live.Quote `json:"quotes"`
	// BookAt is when the owner read the broker: the age of the positions and orders shown.
	BookAt time.Time `json:"book_at"`

	LargestOrder money.Amount `json:"largest_order"` // the largest order notional accepted today
	LastOrder    money.Amount `json:"last_order"`    // the notional of the last order accepted today
	Breaches     int          `json:"breaches,omitempty"`

	// Loss is the gate's last reading of the mandate's loss limits (max_daily_loss_usd,
	// max_drawdown_pct), one gauge each; LossErr says the equity or the day's mark could not be
	// read (orders that add exposure are then denied).
	Loss    []live.LossGauge `json:"loss,omitempty"`
	LossErr string           `json:"loss_err,omitempty"`

	StartEquity money.Amount `json:"start_equity"` // the equity at the session's first account read
	DayEquity   money.Amount `json:"day_equity"`   // the equity at the UTC day's baseline (0: none read today)
	Realized    money.Amount `json:"realized"`     // realised P&L, closed positions included
}

// AuditRow is one audit event as the screen lists it.
type AuditRow struct {
	Seq     int64
	Time    time.Time
	Actor   string // agent:strategy, operator:alice, system:reconcile
	Type    string
	Outcome string
	Reason  string
	Tool    string
	OrderID string
	Summary string
	// Unverified marks a row read from a hash chain at or after its first break.
	Unverified bool
}

// AuditFilter selects audit rows (newest first).
type AuditFilter struct {
	Text      string // substring of type, reason, summary or order id
	BeforeSeq int64  // paging: rows older than this
	Limit     int
}

// FleetDay is the fleet's day count and this host's share of it.
type FleetDay struct {
	Orders int `json:"orders"`
	Here   int `json:"here"`
}
