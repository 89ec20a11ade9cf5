package readmodel

// OrderTrail is how an order came to be placed: the agent's own reason (untrusted text) and
// every audited step, oldest first.
type OrderTrail struct {
	Reason string      // the agent's stated reason, as the agent wrote it
	Steps  []TrailStep // policy, gate, breach, approval and broker events, oldest first
	// Checked is the notional the gate checked the order at, and on what basis ("quote",
	// "limit", "explicit"…), from its audit record: the Orders pane's column is the order's
	// own notional (quantity × limit price), which can differ from it.
	Checked      string
	CheckedBasis string
}

// TrailStep is one audited event of an order's trail.
type TrailStep struct {
	Time    string   // HH:MM:SS
	What    string   // e.g. "tool_call place_order", "gate allow"
	Outcome string   // the event's outcome and reason
	Checked []string // the gate's steps, in order, for a gate decision
	Breach  string   // the limit breached and by how much, "" for none
	Approve string   // the approval that let the breach through, "" for none
}
