package alpacafake

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"cockpit/live/money"
)

// Trend sets how a symbol's bars move into its current ask: +1 rising (the strategy sees
// momentum), -1 falling (a stretched price), 0 flat. Rising is the default.
func (s *Server) Trend(symbol string, dir int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trend == nil {
		s.trend = map[string]int{}
	}
	s.trend[symbol] = dir
}

// bars serves GET /v2/stocks/bars: `limit` one-minute closes per symbol ending at the ask,
// newest first with sort=desc.
func (s *Server) bars(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := r.URL.Query()
	n, err := strconv.Atoi(q.Get("limit"))
	if err != nil || n <= 0 || n > 10000 {
		n = 1000
	}
	out := map[string]any{}
	now := time.Now().UTC().Truncate(time.Minute)
	for _, sym := range strings.Split(q.Get("symbols"), ",") {
		quote, ok := s.quotes[sym]
		if !ok {
			continue
		}
		dir, set := s.trend[sym]
		if !set {
			dir = 1
		}
		list := make([]any, 0, n)
		for i := n - 1; i >= 0; i-- { // i bars ago
			// 0.1 % per bar toward the ask, with a small alternating wiggle.
			step := money.MustParse("0.001").Mul(money.FromInt(int64(-dir * i)))
			if i%2 == 1 {
				step = step.Add(money.MustParse("0.0002"))
			}
			c := quote.Ask.Mul(money.FromInt(1).Add(step)).Round(2)
			list = append(list, map[string]any{"t": now.Add(-time.Duration(i) * time.Minute).Format(time.RFC3339),
				"o": num(c), "h": num(c), "l": num(c), "c": num(c), "v": 100, "n": 1, "vw": num(c)})
		}
		if q.Get("sort") == "desc" {
			for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
				list[i], list[j] = list[j], list[i]
			}
		}
		out[sym] = list
	}
	writeJSON(w, 200, map[string]any{"bars": out, "next_page_token": nil})
}
