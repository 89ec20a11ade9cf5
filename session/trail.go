package session

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"cockpit/readmodel"

	"cockpit/live"
	"cockpit/store"
)

// trailCache keeps the trails of the open orders read so far and how often an order's read
// found no event; it holds only orders still open, so it does not grow with history.
type trailCache struct {
	mu     sync.Mutex
	got    map[string]readmodel.OrderTrail
	misses map[string]int
}

// of gives each open order the audited trail that placed it (the agent's reason, the policy
// call, each gate step, a breach and its approval), read once per order and cached.
func (c *trailCache) of(ctx context.Context, s *Session, orders []live.Order) map[string]readmodel.OrderTrail {
	out := make(map[string]readmodel.OrderTrail, len(orders))
	c.mu.Lock()
	defer c.mu.Unlock()
	got, misses := make(map[string]readmodel.OrderTrail, len(orders)), map[string]int{}
	reads := 0 // at most 20 store reads per snapshot; an order with no event yet is read again later
	for _, o := range orders {
		id := o.ClientOrderID
		if id == "" {
			continue
		}
		t, ok := c.got[id]
		if !ok {
			if reads++; reads > 20 {
				continue
			}
			events, err := s.rt.DB.Events(ctx, store.Filter{OrderID: id, Ascending: true, Limit: 50})
			if err != nil {
				continue // read again on the next snapshot
			}
			t = trailOf(events)
			// An order with no event yet (its record may be a moment behind) is read again on
			// the next two snapshots, then taken as having none (placed outside the cockpit).
			if n := c.misses[id] + 1; len(t.Steps) == 0 && n < 3 {
				misses[id] = n
				out[id] = t
				continue
			}
		}
		got[id], out[id] = t, t
	}
	c.got, c.misses = got, misses
	return out
}

// originCache names who placed each open order, from its journal row; it holds only orders
// still open.
type originCache struct {
	mu  sync.Mutex
	got map[string]string
}

// of names who placed each open order ("?" when the journal has no row for it), reading the
// journal only for orders it has not named yet, by key.
func (c *originCache) of(ctx context.Context, s *Session, orders []live.Order) map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var missing []string
	for _, o := range orders {
		if _, ok := c.got[o.ClientOrderID]; !ok && o.ClientOrderID != "" {
			missing = append(missing, o.ClientOrderID)
		}
	}
	var found map[string]string
	if len(missing) > 0 {
		var err error
		if found, err = s.rt.DB.JournalActors(ctx, s.key, missing); err != nil {
			missing = nil // read again on the next snapshot
		}
	}
	out := make(map[string]string, len(orders))
	for _, o := range orders {
		id := o.ClientOrderID
		who, ok := c.got[id]
		switch {
		case ok:
		case found[id] != "":
			who = found[id]
		case slices.Contains(missing, id):
			who = "?"
		default:
			continue // not read this time
		}
		out[id] = who
	}
	c.got = out
	return out
}

// trailPayload is the part of an audit payload the trail shows.
type trailPayload struct {
	Request  any `json:"request"`
	Detail   any `json:"detail"`
	Decision *struct {
		Decision string   `json:"decision"`
		Checked  []string `json:"checked"`
		Limit    string   `json:"limit"`
		Kind     string   `json:"kind"`
		Value    any      `json:"limit_value"`
		Tried    any      `json:"attempted_value"`
		Grant    string   `json:"approved_by_grant"`
	} `json:"decision"`
}

// trailOf turns an order's audit events, oldest first, into its trail.
func trailOf(events []store.Event) readmodel.OrderTrail {
	var t readmodel.OrderTrail
	policy := false
	for _, e := range events {
		var p trailPayload
		dec := json.NewDecoder(strings.NewReader(e.Payload))
		dec.UseNumber()
		_ = dec.Decode(&p) // a payload the trail cannot read still lists the event
		if t.Reason == "" {
			t.Reason = field(p.Detail, "agent_reason") // the gate's copy, on one line
		}
		if b := field(p.Detail, "notional_basis"); b != "" && t.CheckedBasis == "" {
			if m, ok := p.Detail.(map[string]any); ok {
				if a := amountText(m["notional_at_"+b]); a != "?" {
					t.CheckedBasis, t.Checked = b, a
				}
			}
		}
		if !policy {
			if s, ok := policyStep(e, p.Detail); ok { // the engine's policy, before the gate: first
				t.Steps, policy = append([]readmodel.TrailStep{s}, t.Steps...), true
			}
		}
		if t.Reason == "" {
			t.Reason = field(p.Request, "reason") // the tool call's own argument
		}
		what := e.Type
		if e.Tool != "" {
			what += " " + e.Tool
		}
		outcome := strings.TrimSpace(e.Outcome + " " + e.Reason)
		s := readmodel.TrailStep{Time: e.Time.UTC().Format("15:04:05"), What: what, Outcome: outcome, Approve: e.ApprovalID}
		if d := p.Decision; d != nil {
			s.Outcome = strings.TrimSpace(d.Decision + " " + outcome)
			s.Checked = d.Checked
			if d.Limit != "" {
				s.Breach = strings.TrimSpace(d.Limit + " " + d.Kind + " limit " + amountText(d.Value) + ", attempted " + amountText(d.Tried))
			}
			if d.Grant != "" {
				s.Approve = d.Grant
			}
		}
		t.Steps = append(t.Steps, s)
	}
	return t
}

// policyStep is the engine's policy decision the gate's record carries (detail.policy: the
// steps passed and the autonomy); ok is false when the record has none.
func policyStep(e store.Event, detail any) (readmodel.TrailStep, bool) {
	m, _ := detail.(map[string]any)
	p, ok := m["policy"].(map[string]any)
	if !ok {
		return readmodel.TrailStep{}, false
	}
	var checked []string
	steps, _ := p["checked"].([]any)
	for _, s := range steps {
		if s, ok := s.(string); ok {
			checked = append(checked, s)
		}
	}
	outcome := "allow"
	if a, _ := p["autonomy"].(string); a != "" {
		outcome += " (autonomy " + a + ")"
	}
	if tainted, _ := p["tainted"].(bool); tainted {
		outcome += ", the turn read flagged content"
	}
	return readmodel.TrailStep{Time: e.Time.UTC().Format("15:04:05"), What: "policy " + e.Tool, Outcome: outcome, Checked: checked}, true
}

// amountText is an encoded amount as text ("?" when absent).
func amountText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return "?"
}

// field is a string field of a JSON object ("" when v is no object or has none).
func field(v any, name string) string {
	m, _ := v.(map[string]any)
	s, _ := m[name].(string)
	return s
}
