package paper

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"cockpit/live"
)

// touched is what the change under way changed: the orders (every change to an order is
// published, and publish marks it) and the positions (fill marks them). The header (cash, the
// order sequence, the day mark) is saved with every change.
type touched struct {
	orders    map[string]bool
	positions map[string]bool
}

// saved is the account as its Store last took it, as JSON: the header, the open orders and the
// positions. A change the Store refuses goes back to it, touched part by touched part.
type saved struct {
	header    []byte
	orders    map[string][]byte
	positions map[string][]byte
}

// settled keeps the settled orders of a broker with no Store.
type settled struct {
	orders   map[string]*live.Order
	byClient map[string]string
}

// ensureMaps gives a restored account its empty maps.
func ensureMaps(st *State) {
	if st.Positions == nil {
		st.Positions = map[string]*PositionState{}
	}
	if st.Orders == nil {
		st.Orders = map[string]*live.Order{}
	}
	if st.ByClient == nil {
		st.ByClient = map[string]string{}
	}
}

// load sorts a new broker's account: the open orders stay in memory, indexed by client order
// id; the settled ones go to settled (with a Store they are in it already). With a Store, the
// account as it stands is what a refused change goes back to.
func (b *Broker) load() error {
	st := b.st
	b.touched = touched{orders: map[string]bool{}, positions: map[string]bool{}}
	b.settled = settled{orders: map[string]*live.Order{}, byClient: map[string]string{}}
	st.ByClient = map[string]string{}
	for id, o := range st.Orders {
		switch {
		case o == nil:
			return fmt.Errorf("the paper account's order %s is empty", id)
		case o.Status.Open():
			if o.ClientOrderID != "" {
				st.ByClient[o.ClientOrderID] = id
			}
			continue
		case b.persist == nil:
			b.settled.orders[id] = o
			if o.ClientOrderID != "" {
				b.settled.byClient[o.ClientOrderID] = id
			}
		}
		delete(st.Orders, id)
	}
	if b.persist == nil {
		return nil
	}
	c, err := b.st.Whole()
	if err != nil {
		return err
	}
	b.saved = saved{header: c.Header, orders: map[string][]byte{}, positions: map[string][]byte{}}
	b.keep(c)
	return nil
}

// touch marks an order changed by the change under way. publish calls it; a change to an
// order that is not published must call it itself, or the change is not saved.
func (b *Broker) touch(id string) { b.touched.orders[id] = true }

// touchPosition marks a position changed by the change under way.
func (b *Broker) touchPosition(sym string) { b.touched.positions[sym] = true }

// Save writes the whole account in memory (its header, open orders and positions) to the
// Store: a new account's first save.
func (b *Broker) Save() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id := range b.st.Orders {
		b.touch(id)
	}
	for sym := range b.st.Positions {
		b.touchPosition(sym)
	}
	return b.changed()
}

// changed saves a change and publishes its updates; a change the Store refuses is undone
// (back to the account as last saved, its updates dropped) and reported. Orders the change
// settled then leave memory. Callers hold b.mu.
func (b *Broker) changed() error {
	if b.persist != nil {
		c, err := b.change()
		if err == nil {
			err = b.persist.Save(c)
		}
		if b.persistErr = err; err != nil {
			b.undo()
			return fmt.Errorf("the paper account could not be saved, so the change was undone: %w", err)
		}
		b.keep(c)
	}
	b.settle()
	for _, u := range b.pending {
		b.send(u)
	}
	b.pending = nil
	return nil
}

// change is the change under way as the Store takes it: the header and each touched order
// and position, in a stable order.
func (b *Broker) change() (Change, error) {
	head, err := b.st.header()
	if err != nil {
		return Change{}, err
	}
	c := Change{Header: head}
	for _, id := range slices.Sorted(maps.Keys(b.touched.orders)) {
		o := b.st.Orders[id]
		if o == nil {
			continue
		}
		data, err := json.Marshal(o)
		if err != nil {
			return Change{}, fmt.Errorf("order %s: %w", id, err)
		}
		c.Orders = append(c.Orders, OrderRecord{ID: id, ClientOrderID: o.ClientOrderID, Open: o.Status.Open(), Data: data})
	}
	for _, sym := range slices.Sorted(maps.Keys(b.touched.positions)) {
		p := b.st.Positions[sym]
		if p == nil {
			continue
		}
		data, err := json.Marshal(p)
		if err != nil {
			return Change{}, fmt.Errorf("position %s: %w", sym, err)
		}
		c.Positions = append(c.Positions, PositionRecord{Symbol: sym, Data: data})
	}
	return c, nil
}

// keep records a saved change as what a later refused change goes back to.
func (b *Broker) keep(c Change) {
	b.saved.header = c.Header
	for _, r := range c.Orders {
		if r.Open {
			b.saved.orders[r.ID] = r.Data
		} else {
			delete(b.saved.orders, r.ID)
		}
	}
	for _, r := range c.Positions {
		b.saved.positions[r.Symbol] = r.Data
	}
}

// settle moves the orders the change settled out of memory (into settled without a Store)
// and ends the change.
func (b *Broker) settle() {
	for id := range b.touched.orders {
		o := b.st.Orders[id]
		if o == nil || o.Status.Open() {
			continue
		}
		delete(b.st.Orders, id)
		if o.ClientOrderID != "" {
			delete(b.st.ByClient, o.ClientOrderID)
		}
		if b.persist == nil {
			b.settled.orders[id] = o
			if o.ClientOrderID != "" {
				b.settled.byClient[o.ClientOrderID] = id
			}
		}
	}
	clear(b.touched.orders)
	clear(b.touched.positions)
}

// undo puts back what the change under way touched, as last saved, and drops its updates.
func (b *Broker) undo() {
	var st State
	if err := json.Unmarshal(b.saved.header, &st); err != nil {
		panic(err) // saved.header was marshalled from a State
	}
	st.Orders, st.Positions, st.ByClient = b.st.Orders, b.st.Positions, b.st.ByClient
	for id := range b.touched.orders {
		if o := st.Orders[id]; o != nil && o.ClientOrderID != "" {
			delete(st.ByClient, o.ClientOrderID)
		}
		delete(st.Orders, id)
		if data, ok := b.saved.orders[id]; ok {
			o := &live.Order{}
			if err := json.Unmarshal(data, o); err != nil {
				panic(err) // marshalled from a live.Order
			}
			st.Orders[id] = o
			if o.ClientOrderID != "" {
				st.ByClient[o.ClientOrderID] = id
			}
		}
	}
	for sym := range b.touched.positions {
		delete(st.Positions, sym)
		if data, ok := b.saved.positions[sym]; ok {
			p := &PositionState{}
			if err := json.Unmarshal(data, p); err != nil {
				panic(err) // marshalled from a PositionState
			}
			st.Positions[sym] = p
		}
	}
	b.st, b.pending = &st, nil
	clear(b.touched.orders)
	clear(b.touched.positions)
	b.matched.ok = false
}

// orderByClient finds an order by client order id: in memory, else where settled ones are
// kept. Callers hold b.mu.
func (b *Broker) orderByClient(clientOrderID string) (live.Order, bool, error) {
	if id, ok := b.st.ByClient[clientOrderID]; ok {
		return *b.st.Orders[id], true, nil
	}
	if b.persist == nil {
		id, ok := b.settled.byClient[clientOrderID]
		if !ok {
			return live.Order{}, false, nil
		}
		return *b.settled.orders[id], true, nil
	}
	return decodeSaved(b.persist.OrderByClientID(clientOrderID))
}

// orderByID finds an order by id, as orderByClient. Callers hold b.mu.
func (b *Broker) orderByID(id string) (live.Order, bool, error) {
	if o, ok := b.st.Orders[id]; ok {
		return *o, true, nil
	}
	if b.persist == nil {
		o, ok := b.settled.orders[id]
		if !ok {
			return live.Order{}, false, nil
		}
		return *o, true, nil
	}
	return decodeSaved(b.persist.OrderByID(id))
}

// decodeSaved decodes an order a Store returned.
func decodeSaved(data []byte, found bool, err error) (live.Order, bool, error) {
	if err != nil {
		return live.Order{}, false, fmt.Errorf("the paper account could not be read: %w", err)
	}
	if !found {
		return live.Order{}, false, nil
	}
	var o live.Order
	if err := json.Unmarshal(data, &o); err != nil {
		return live.Order{}, false, fmt.Errorf("the paper account's saved order is unreadable: %w", err)
	}
	return o, true, nil
}
