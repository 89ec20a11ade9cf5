package alpacafake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"cockpit/live/money"
)

type placeBody struct {
	Symbol        string  `json:"symbol"`
	Qty           *string `json:"qty"`
	Notional      *string `json:"notional"`
	Side          string  `json:"side"`
	Type          string  `json:"type"`
	TimeInForce   string  `json:"time_in_force"`
	LimitPrice    *string `json:"limit_price"`
	StopPrice     *string `json:"stop_price"`
	TrailPrice    *string `json:"trail_price"`
	TrailPercent  *string `json:"trail_percent"`
	ClientOrderID string  `json:"client_order_id"`
}

func amount(s *string) (*money.Amount, error) {
	if s == nil {
		return nil, nil
	}
	a, err := money.Parse(*s)
	return &a, err
}

func (s *Server) place(w http.ResponseWriter, r *http.Request) {
	var b placeBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		writeErr(w, 400, 40010000, "malformed request: "+err.Error())
		return
	}
	qty, err1 := amount(b.Qty)
	notional, err2 := amount(b.Notional)
	limit, err3 := amount(b.LimitPrice)
	stop, err4 := amount(b.StopPrice)
	trail, err5 := amount(b.TrailPrice)
	trailPct, err6 := amount(b.TrailPercent)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || err6 != nil {
		writeErr(w, 422, 40010001, "invalid decimal")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, known := s.quotes[b.Symbol]
	switch {
	case !known:
		writeErr(w, 422, 40010001, "asset not found: "+b.Symbol)
		return
	case b.Side != "buy" && b.Side != "sell":
		writeErr(w, 422, 40010001, "invalid side")
		return
	case (qty == nil) == (notional == nil):
		writeErr(w, 422, 40010001, "qty or notional is required")
		return
	case b.ClientOrderID != "" && s.byCID[b.ClientOrderID] != nil:
		writeErr(w, 422, 40010001, "client_order_id must be unique")
		return
	case b.TimeInForce != "day" && b.TimeInForce != "gtc":
		writeErr(w, 422, 40010001, "invalid time_in_force")
		return
	case strings.Contains(b.Symbol, "/") && b.TimeInForce == "day": // as Alpaca: crypto is gtc or ioc
		writeErr(w, 422, 40010001, "invalid crypto time_in_force")
		return
	}
	s.seq++
	now := time.Now().UTC()
	o := &Order{ID: fmt.Sprintf("ord-%06d", s.seq), ClientOrderID: b.ClientOrderID, Symbol: b.Symbol, Side: b.Side,
		Type: b.Type, Status: "new", Qty: qty, Notional: notional, LimitPrice: limit, StopPrice: stop, TrailPrice: trail,
		TrailPercent: trailPct, CreatedAt: now, UpdatedAt: now}
	if o.ClientOrderID == "" {
		o.ClientOrderID = "fake-" + o.ID
	}
	s.orders[o.ID] = o
	s.byCID[o.ClientOrderID] = o
	s.emit("new", o, nil, nil)
	if !s.hold {
		s.tryFill(o, q)
	}
	writeJSON(w, 200, o.json())
}

// FillAll fills every open order at the touch, limits included, as the market moving through them.
func (s *Server) FillAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.sortedOrders() {
		if open(o.Status) {
			s.fill(o, s.quotes[o.Symbol])
		}
	}
}

func (s *Server) sortedOrders() []*Order {
	out := make([]*Order, 0, len(s.orders))
	for _, o := range s.orders {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// tryFill fills a market order, or a limit order that crosses the touch.
func (s *Server) tryFill(o *Order, q Quote) {
	switch o.Type {
	case "trailing_stop":
		return // rests: the fake does not trail
	case "stop", "stop_limit": // rests until the touch reaches the stop
		if o.StopPrice == nil || (o.Side == "buy" && q.Ask.Cmp(*o.StopPrice) < 0) || (o.Side == "sell" && q.Bid.Cmp(*o.StopPrice) > 0) {
			return
		}
	}
	if (o.Type == "limit" || o.Type == "stop_limit") && o.LimitPrice != nil {
		if (o.Side == "buy" && o.LimitPrice.Cmp(q.Ask) < 0) || (o.Side == "sell" && o.LimitPrice.Cmp(q.Bid) > 0) {
			return // rests
		}
	}
	s.fill(o, q)
}

// fill executes the whole order at the touch.
func (s *Server) fill(o *Order, q Quote) {
	px := q.Ask
	if o.Side == "sell" {
		px = q.Bid
	}
	qty := money.Zero
	if o.Qty != nil {
		qty = *o.Qty
	} else {
		qty = o.Notional.Div(px).Truncate(9)
	}
	signed := qty
	if o.Side == "sell" {
		signed = qty.Neg()
	}
	p := s.positions[o.Symbol]
	if p == nil {
		p = &Position{}
		s.positions[o.Symbol] = p
	}
	switch {
	case p.Qty.Sign() == 0 || p.Qty.Sign() == signed.Sign():
		total := p.Qty.Add(signed)
		p.AvgPrice = p.Qty.Abs().Mul(p.AvgPrice).Add(qty.Mul(px)).Div(total.Abs()).Round(6)
		p.Qty = total
	default:
		p.Qty = p.Qty.Add(signed)
		if p.Qty.Sign() == signed.Sign() && !p.Qty.IsZero() {
			p.AvgPrice = px
		}
	}
	if p.Qty.IsZero() {
		delete(s.positions, o.Symbol)
	}
	s.cash = s.cash.Sub(signed.Mul(px))
	o.FilledQty, o.FilledAvgPrice, o.Status, o.UpdatedAt = qty, px, "filled", time.Now().UTC()
	s.emit("fill", o, &px, &qty)
}

func (s *Server) listOrders(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := r.URL.Query().Get("status")
	out := []any{}
	for _, o := range s.sortedOrders() {
		if want == "" || want == "all" || (want == "open") == open(o.Status) {
			out = append(out, o.json())
		}
	}
	writeJSON(w, 200, out)
}

func (s *Server) byClientID(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.byCID[r.URL.Query().Get("client_order_id")]
	if !ok {
		writeErr(w, 404, 40410000, "order not found")
		return
	}
	writeJSON(w, 200, o.json())
}

func (s *Server) cancel(w http.ResponseWriter, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	switch {
	case !ok:
		writeErr(w, 404, 40410000, "order not found")
	case !open(o.Status):
		writeErr(w, 422, 42210000, "order is not cancelable")
	default:
		s.cancelLocked(o)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) cancelLocked(o *Order) {
	o.Status, o.UpdatedAt = "canceled", time.Now().UTC()
	s.emit("canceled", o, nil, nil)
}

// cancelAll answers 207 with a result per open order.
func (s *Server) cancelAll(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []any{}
	for _, o := range s.sortedOrders() {
		if !open(o.Status) {
			continue
		}
		if s.cancelErr[o.ID] {
			out = append(out, map[string]any{"id": o.ID, "status": 500, "body": map[string]any{"code": 50010000, "message": "internal error"}})
			continue
		}
		s.cancelLocked(o)
		out = append(out, map[string]any{"id": o.ID, "status": 200, "body": o.json()})
	}
	writeJSON(w, http.StatusMultiStatus, out)
}

// closeAll answers 207 with a result per position, placing a market order against each.
func (s *Server) closeAll(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Query().Get("cancel_orders") == "true" {
		for _, o := range s.sortedOrders() {
			if open(o.Status) {
				s.cancelLocked(o)
			}
		}
	}
	syms := make([]string, 0, len(s.positions))
	for sym := range s.positions {
		syms = append(syms, sym)
	}
	sort.Strings(syms)
	out := []any{}
	for _, sym := range syms {
		p := s.positions[sym]
		q, ok := s.quotes[sym]
		if !ok || q.Bid.Sign() <= 0 {
			out = append(out, map[string]any{"symbol": sym, "status": 422, "body": map[string]any{"code": 42210000, "message": "no market for " + sym}})
			continue
		}
		side := "sell"
		if p.Qty.Sign() < 0 {
			side = "buy"
		}
		qty := p.Qty.Abs()
		s.seq++
		now := time.Now().UTC()
		o := &Order{ID: fmt.Sprintf("ord-%06d", s.seq), ClientOrderID: fmt.Sprintf("close-%06d", s.seq), Symbol: sym, Side: side,
			Type: "market", Status: "new", Qty: &qty, CreatedAt: now, UpdatedAt: now}
		s.orders[o.ID], s.byCID[o.ClientOrderID] = o, o
		s.fill(o, q)
		out = append(out, map[string]any{"symbol": sym, "status": 200, "body": o.json()})
	}
	writeJSON(w, http.StatusMultiStatus, out)
}

func (s *Server) latestQuotes(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]any{}
	for _, sym := range strings.Split(r.URL.Query().Get("symbols"), ",") {
		q, ok := s.quotes[sym]
		if !ok {
			continue
		}
		out[sym] = map[string]any{"t": time.Now().UTC().Format(time.RFC3339Nano), "bp": num(q.Bid),
			"ap": num(q.Ask), "bs": 1, "as": 1}
	}
	writeJSON(w, 200, map[string]any{"quotes": out})
}

// num writes an amount as a JSON number with its exact digits.
func num(a money.Amount) json.Number { return json.Number(a.String()) }
