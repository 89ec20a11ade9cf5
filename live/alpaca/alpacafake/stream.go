package alpacafake

import (
	"encoding/json"
	"net/http"
	"time"

	"cockpit/live/money"
)

// emit records a trade update and wakes the streams; the caller holds mu.
func (s *Server) emit(kind string, o *Order, px, qty *money.Amount) {
	at := time.Now().UTC()
	if n := len(s.events); n > 0 && !at.After(s.events[n-1].at) {
		at = s.events[n-1].at.Add(time.Microsecond)
	}
	m := map[string]any{"event": kind, "at": at.Format(time.RFC3339Nano), "order": o.json()}
	if px != nil {
		m["price"], m["qty"] = px.String(), qty.String()
	}
	data, _ := json.Marshal(m)
	s.events = append(s.events, event{at: at, data: data})
	s.notify.Broadcast()
}

// stream serves /v2/events/trades: events after `since` (all new ones without it) until the
// client leaves or DropStreams cuts it.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		writeErr(w, 500, 50010000, "no streaming")
		return
	}
	s.mu.Lock()
	next := len(s.events)
	if since := r.URL.Query().Get("since"); since != "" {
		t, err := time.Parse(time.RFC3339Nano, since)
		if err != nil {
			s.mu.Unlock()
			writeErr(w, 422, 42210000, "invalid since")
			return
		}
		next = 0
		for next < len(s.events) && s.events[next].at.Before(t) {
			next++
		}
	}
	s.streamSeq++
	id, drop := s.streamSeq, make(chan struct{})
	s.streams[id] = drop
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if _, ok := s.streams[id]; ok {
			delete(s.streams, id)
		}
		s.mu.Unlock()
	}()
	go func() { // wake the wait below when the client leaves
		select {
		case <-r.Context().Done():
		case <-drop:
		}
		s.mu.Lock()
		s.notify.Broadcast()
		s.mu.Unlock()
	}()
	s.pump(w, r, drop, next)
}

// pump writes events from index next on until the connection ends or is dropped.
func (s *Server) pump(w http.ResponseWriter, r *http.Request, drop chan struct{}, next int) {
	fl := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(": connected\n\n"))
	fl.Flush()
	dropped := func() bool {
		select {
		case <-drop:
			return true
		default:
			return r.Context().Err() != nil
		}
	}
	for {
		s.mu.Lock()
		for next == len(s.events) && !dropped() {
			s.notify.Wait()
		}
		if dropped() {
			s.mu.Unlock()
			return
		}
		batch := append([]event(nil), s.events[next:]...)
		next = len(s.events)
		s.mu.Unlock()
		for _, e := range batch {
			w.Write([]byte("data: "))
			w.Write(e.data)
			w.Write([]byte("\n\n"))
		}
		fl.Flush()
	}
}
