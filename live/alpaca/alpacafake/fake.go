// Package alpacafake is an httptest Alpaca: the trading endpoints the connector uses
// (account, positions, orders, cancel-all and close-all with 207 multi-status), latest
// quotes, and the trade-updates SSE stream, over an exact in-memory account. Faults are
// injected per request (a status, a delay, an accept-then-stall) and the stream can be dropped.
// Tests, e2e runs and benchmarks share it.
package alpacafake

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	"cockpit/live/money"
)

// Fault is one injected reply: the next request matching Method and Path gets it.
type Fault struct {
	Method, Path string        // e.g. POST /v2/orders
	Status       int           // reply with this status and Message (0: handle normally)
	Message      string        //
	Delay        time.Duration // wait before replying (after handling, when Status is 0)
}

// Order is the fake's order.
type Order struct {
	ID, ClientOrderID, Symbol, Side, Type, Status string
	Qty, Notional, LimitPrice                     *money.Amount
	StopPrice, TrailPrice, TrailPercent           *money.Amount
	FilledQty, FilledAvgPrice                     money.Amount
	CreatedAt, UpdatedAt                          time.Time
}

// Position is the fake's holding.
type Position struct {
	Qty, AvgPrice money.Amount
}

// Quote is a symbol's top of book.
type Quote struct{ Bid, Ask money.Amount }

// Server is the fake Alpaca.
type Server struct {
	*httptest.Server
	KeyID, Secret string

	mu        sync.Mutex
	cash      money.Amount
	positions map[string]*Position
	orders    map[string]*Order
	byCID     map[string]*Order
	quotes    map[string]Quote
	faults    []Fault
	seq       int
	counts    map[string]int // "METHOD /path" → requests seen
	events    []event
	streams   map[int]chan struct{} // open SSE connections, closed to drop them
	streamSeq int
	notify    *sync.Cond
	hold      bool            // accept orders without filling them
	cancelErr map[string]bool // order ids a cancel-all fails on
	trend     map[string]int  // bar direction by symbol (default rising)
	headers   []http.Header   // every request's headers, for tests that look for keys
}

type event struct {
	at   time.Time
	data []byte
}

// New starts a fake with the given keys and cash, quoting the usual test symbols.
func New(keyID, secret string, cash money.Amount) *Server {
	s := &Server{KeyID: keyID, Secret: secret, cash: cash, positions: map[string]*Position{},
		orders: map[string]*Order{}, byCID: map[string]*Order{}, counts: map[string]int{},
		streams: map[int]chan struct{}{}, cancelErr: map[string]bool{},
		quotes: map[string]Quote{}}
	s.notify = sync.NewCond(&s.mu)
	for sym, px := range map[string]string{"AAPL": "190.00", "MSFT": "410.00", "NVDA": "120.00", "SPY": "560.00", "TSLA": "250.00", "GME": "25.00"} {
		p := money.MustParse(px)
		s.quotes[sym] = Quote{Bid: p.Sub(money.MustParse("0.01")), Ask: p}
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close drops the streams and stops the server.
func (s *Server) Close() {
	s.DropStreams()
	s.Server.Close()
}

// Inject queues faults; each is used once.
func (s *Server) Inject(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// SetQuote sets a symbol's bid and ask.
func (s *Server) SetQuote(symbol string, bid, ask money.Amount) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quotes[symbol] = Quote{Bid: bid, Ask: ask}
}

// Hold makes new orders rest (accepted, unfilled) until FillAll; false fills marketable ones.
func (s *Server) Hold(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = on
}

// FailCancel makes a cancel-all report a failure for the order.
func (s *Server) FailCancel(orderID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelErr[orderID] = true
}

// Count is how many requests "METHOD /path" the fake has seen.
func (s *Server) Count(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method+" "+path]
}

// Headers returns every request header the fake has seen.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

// Streams is the number of open trade-updates connections.
func (s *Server) Streams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams)
}

// DropStreams closes every open trade-updates connection, as a network drop would.
func (s *Server) DropStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ch := range s.streams {
		close(ch)
		delete(s.streams, id)
	}
	s.notify.Broadcast()
}

// OrderByClientID returns a copy of the order the fake holds under a client order id.
func (s *Server) OrderByClientID(cid string) (Order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.byCID[cid]
	if !ok {
		return Order{}, false
	}
	return *o, true
}

// Orders returns copies of every order, oldest first.
func (s *Server) Orders() []Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Order, 0, len(s.orders))
	for _, o := range s.orders {
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	s.mu.Lock()
	s.counts[r.Method+" "+path]++
	s.headers = append(s.headers, r.Header.Clone())
	var fault *Fault
	for i, f := range s.faults {
		if f.Method == r.Method && f.Path == path {
			fault = &f
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	if r.Header.Get("APCA-API-KEY-ID") != s.KeyID || r.Header.Get("APCA-API-SECRET-KEY") != s.Secret {
		writeErr(w, http.StatusUnauthorized, 40110000, "request is not authorized")
		return
	}
	if fault != nil && fault.Status != 0 {
		sleep(r, fault.Delay)
		writeErr(w, fault.Status, 40010000+fault.Status, fault.Message)
		return
	}
	if path == "/v2/events/trades" && r.Method == http.MethodGet {
		s.stream(w, r)
		return
	}
	rec := httptest.NewRecorder()
	s.route(rec, r)
	if fault != nil {
		sleep(r, fault.Delay) // handled (the order exists), the reply is late
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

func sleep(r *http.Request, d time.Duration) {
	select {
	case <-r.Context().Done():
	case <-time.After(d):
	}
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/v2/account" && r.Method == http.MethodGet:
		s.account(w)
	case p == "/v2/positions" && r.Method == http.MethodGet:
		s.listPositions(w)
	case p == "/v2/positions" && r.Method == http.MethodDelete:
		s.closeAll(w, r)
	case p == "/v2/orders" && r.Method == http.MethodPost:
		s.place(w, r)
	case p == "/v2/orders" && r.Method == http.MethodGet:
		s.listOrders(w, r)
	case p == "/v2/orders" && r.Method == http.MethodDelete:
		s.cancelAll(w)
	case p == "/v2/orders:by_client_order_id" && r.Method == http.MethodGet:
		s.byClientID(w, r)
	case strings.HasPrefix(p, "/v2/orders/") && r.Method == http.MethodDelete:
		s.cancel(w, strings.TrimPrefix(p, "/v2/orders/"))
	case p == "/v2/stocks/bars" && r.Method == http.MethodGet:
		s.bars(w, r)
	case p == "/v2/stocks/quotes/latest" && r.Method == http.MethodGet:
		s.latestQuotes(w, r)
	default:
		writeErr(w, http.StatusNotFound, 40410000, "endpoint not found")
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"code": code, "message": msg})
}

func str(a *money.Amount) any {
	if a == nil {
		return nil
	}
	return a.String()
}

func (o *Order) json() map[string]any {
	m := map[string]any{"id": o.ID, "client_order_id": o.ClientOrderID, "symbol": o.Symbol, "side": o.Side,
		"type": o.Type, "status": o.Status, "time_in_force": "day", "asset_class": "us_equity",
		"qty": str(o.Qty), "notional": str(o.Notional), "limit_price": str(o.LimitPrice),
		"filled_qty": o.FilledQty.String(), "created_at": o.CreatedAt.Format(time.RFC3339Nano),
		"updated_at": o.UpdatedAt.Format(time.RFC3339Nano), "submitted_at": o.CreatedAt.Format(time.RFC3339Nano)}
	if o.FilledQty.Sign() > 0 {
		m["filled_avg_price"] = o.FilledAvgPrice.String()
	}
	for k, v := range map[string]*money.Amount{"stop_price": o.StopPrice, "trail_price": o.TrailPrice, "trail_percent": o.TrailPercent} {
		if v != nil {
			m[k] = v.String()
		}
	}
	return m
}

func open(status string) bool {
	return status == "new" || status == "accepted" || status == "partially_filled"
}

func (s *Server) account(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	equity := s.cash
	for sym, p := range s.positions {
		equity = equity.Add(p.Qty.Mul(s.mark(sym)))
	}
	writeJSON(w, 200, map[string]any{"id": "fake-account", "status": "ACTIVE", "currency": "USD",
		"cash": s.cash.String(), "equity": equity.String(), "buying_power": s.cash.String()})
}

func (s *Server) mark(sym string) money.Amount {
	q := s.quotes[sym]
	return q.Bid.Add(q.Ask).Div(money.FromInt(2))
}

func (s *Server) listPositions(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []any{}
	syms := make([]string, 0, len(s.positions))
	for sym := range s.positions {
		syms = append(syms, sym)
	}
	sort.Strings(syms)
	for _, sym := range syms {
		p := s.positions[sym]
		side := "long"
		if p.Qty.Sign() < 0 {
			side = "short"
		}
		px := s.mark(sym)
		class, shown := "us_equity", sym
		if strings.Contains(sym, "/") { // Alpaca lists crypto positions without the slash
			class, shown = "crypto", strings.ReplaceAll(sym, "/", "")
		}
		out = append(out, map[string]any{"symbol": shown, "asset_class": class, "qty": p.Qty.String(), "side": side,
			"avg_entry_price": p.AvgPrice.String(), "market_value": p.Qty.Mul(px).String(), "current_price": px.String(),
			"cost_basis": p.Qty.Mul(p.AvgPrice).String(), "unrealized_pl": p.Qty.Mul(px.Sub(p.AvgPrice)).String()})
	}
	writeJSON(w, 200, out)
}
