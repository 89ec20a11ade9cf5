package paper

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"cockpit/live"
)

// Store keeps a paper account between runs, one change at a time: the broker hands it only
// what a change touched, so saving costs the same on the account's first day as on its
// three-hundredth. Orders that settled (filled, cancelled) leave the broker's memory once
// saved; the broker finds them again here.
type Store interface {
	// Save writes one change atomically and durably: all of it, or nothing and an error.
	Save(Change) error
	// OrderByID returns a saved order (JSON); found is false when there is none.
	OrderByID(id string) (data []byte, found bool, err error)
	// OrderByClientID returns a saved order by its client order id, as OrderByID.
	OrderByClientID(clientOrderID string) (data []byte, found bool, err error)
}

// Change is one change of the account as saved: the account's header (the State without its
// orders and positions, JSON) and each order and position the change touched, as it is now.
type Change struct {
	Header    []byte
	Orders    []OrderRecord
	Positions []PositionRecord
}

// OrderRecord is one order of a change.
type OrderRecord struct {
	ID            string
	ClientOrderID string
	Open          bool   // it may still fill or be cancelled: a restart loads it
	Data          []byte // the live.Order, JSON
}

// PositionRecord is one position of a change.
type PositionRecord struct {
	Symbol string
	Data   []byte // the PositionState, JSON
}

// Restore rebuilds an account from what a Store saved: its header, its open orders and its
// positions by symbol. Anything that does not decode is an error naming it.
func Restore(header []byte, orders [][]byte, positions map[string][]byte) (*State, error) {
	st := &State{}
	if err := json.Unmarshal(header, st); err != nil {
		return nil, fmt.Errorf("the paper account's header: %w", err)
	}
	if len(st.Orders) > 0 || len(st.Positions) > 0 {
		return nil, fmt.Errorf("the paper account's header holds %d orders and %d positions: it is a whole account, not a header", len(st.Orders), len(st.Positions))
	}
	ensureMaps(st)
	for i, data := range orders {
		o := &live.Order{}
		if err := json.Unmarshal(data, o); err != nil {
			return nil, fmt.Errorf("the paper account's open order %d: %w", i+1, err)
		}
		st.Orders[o.ID] = o
	}
	for sym, data := range positions {
		p := &PositionState{}
		if err := json.Unmarshal(data, p); err != nil {
			return nil, fmt.Errorf("the paper account's %s position: %w", sym, err)
		}
		st.Positions[sym] = p
	}
	return st, nil
}

// With returns the account with c applied, s unchanged (its maps copied, their values shared):
// for a store that keeps the whole account as one document (a file, a test).
func (s *State) With(c Change) (*State, error) {
	next := &State{}
	if err := json.Unmarshal(c.Header, next); err != nil {
		return nil, fmt.Errorf("the paper account's header: %w", err)
	}
	next.Orders, next.Positions, next.ByClient = maps.Clone(s.Orders), maps.Clone(s.Positions), maps.Clone(s.ByClient)
	ensureMaps(next)
	for _, r := range c.Orders {
		o := &live.Order{}
		if err := json.Unmarshal(r.Data, o); err != nil {
			return nil, fmt.Errorf("order %s: %w", r.ID, err)
		}
		next.Orders[r.ID] = o
		if o.ClientOrderID != "" {
			next.ByClient[o.ClientOrderID] = o.ID
		}
	}
	for _, r := range c.Positions {
		p := &PositionState{}
		if err := json.Unmarshal(r.Data, p); err != nil {
			return nil, fmt.Errorf("position %s: %w", r.Symbol, err)
		}
		next.Positions[r.Symbol] = p
	}
	return next, nil
}

// OrderByID implements the lookup half of Store over a whole account.
func (s *State) OrderByID(id string) ([]byte, bool, error) {
	o, ok := s.Orders[id]
	if !ok {
		return nil, false, nil
	}
	data, err := json.Marshal(o)
	return data, err == nil, err
}

// OrderByClientID implements the lookup half of Store over a whole account.
func (s *State) OrderByClientID(clientOrderID string) ([]byte, bool, error) {
	id, ok := s.ByClient[clientOrderID]
	if !ok {
		return nil, false, nil
	}
	return s.OrderByID(id)
}

// Whole is the whole account as one change: its header and every order and position, in a
// stable order (a first save of an account kept another way, a migration, a test).
func (s *State) Whole() (Change, error) {
	head, err := s.header()
	if err != nil {
		return Change{}, err
	}
	c := Change{Header: head}
	for _, id := range slices.Sorted(maps.Keys(s.Orders)) {
		o := s.Orders[id]
		if o == nil {
			return Change{}, fmt.Errorf("order %s is empty", id)
		}
		data, err := json.Marshal(o)
		if err != nil {
			return Change{}, fmt.Errorf("order %s: %w", id, err)
		}
		c.Orders = append(c.Orders, OrderRecord{ID: id, ClientOrderID: o.ClientOrderID, Open: o.Status.Open(), Data: data})
	}
	for _, sym := range slices.Sorted(maps.Keys(s.Positions)) {
		p := s.Positions[sym]
		if p == nil {
			return Change{}, fmt.Errorf("position %s is empty", sym)
		}
		data, err := json.Marshal(p)
		if err != nil {
			return Change{}, fmt.Errorf("position %s: %w", sym, err)
		}
		c.Positions = append(c.Positions, PositionRecord{Symbol: sym, Data: data})
	}
	return c, nil
}

// header is the account without its orders and positions, JSON: the part every change saves.
func (s *State) header() ([]byte, error) {
	h := *s
	h.Orders, h.Positions, h.ByClient = nil, nil, nil
	return json.Marshal(h)
}
