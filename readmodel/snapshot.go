package readmodel

import (
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// Snapshot is the state on screen at one moment.
type Snapshot struct {
	Taken  time.Time
	Broker string
	Live   bool // a live broker (the LIVE badge), else paper

	State      live.TradingState // from the sentinels
	HaltReason string            // who, why and when, from the sentinel, when halted
	HaltFile   string            // the sentinel path shown in the status bar
	HaltFileOK bool              // false: the sentinel could not be read (shown as ERROR, and halted)
	Paused     bool              // the agent loop is paused
	PauseWhy   string            // why the agent is auto-paused until PauseTill ("5 denied writes within a minute")
	PauseTill  time.Time         // the end of an auto-pause, zero when none
	Agent      string            // the agent's name, "" when none runs
	Warnings   []string          // conditions to raise as alerts (a sentinel nobody acts on)
	Faults     []string          // data that cannot be trusted, raised as critical alerts (a broken audit chain)
	Blocked    []string          // symbols on the session block list, sorted
	// Supervising says another process owns the account ("SUPERVISING serve-mcp pid 1234
	// (mcp:…)", issue 14); OwnerGone: that owner has no heartbeat.
	Supervising string
	OwnerGone   bool

	Mandate      *live.Mandate
	MandateErr   string
	MandateState live.MandateState // verified, or why the gate will not use the file (DV13)
	Committed    time.Time         // when the mandate was committed (start of the expiry gauge)
	Expires      time.Time

	OrdersToday  int
	LargestOrder money.Amount // the largest order notional accepted today
	LastOrder    money.Amount // the notional of the last order accepted today
	Breaches     int          // orders accepted today over a cap on a human's approval

	BrokerErr string // the last broker read error, "" when healthy
	Latency   time.Duration
	Tools     []BrokerTool // the broker server's own tools and their class; nil unless it is an MCP server
	Positions []live.Position
	Orders    []live.Order          // open orders
	Origins   map[string]string     // client order id → who placed it (agent, operator)
	Trails    map[string]OrderTrail // client order id → the decision that placed it
	Account   live.Account
	Quotes    map[string]live.Quote

	StartEquity money.Amount // the equity at the session's first account read
	DayEquity   money.Amount // the equity at the first snapshot of the UTC day (0: none read today)
	Realized    money.Amount // realised P&L, closed positions included

	Remote []string   // who is connected over SSH ("alice@laptop (operator)"), empty when nobody
	Fleet  *FleetView // the fleet's health and hosts; nil without a fleet

	Reviews    []live.ReviewItem // pending
	Audit      []AuditRow        // the newest events, newest first
	AuditTotal int64
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
