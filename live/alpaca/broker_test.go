package alpaca

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/alpaca/alpacafake"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

const (
	testKey    = "PKTESTKEYID0123456789"
	testSecret = "sEcReTvAlUe0123456789abcdefghijklmnopqrs"
)

// pair starts a fake and a connector pointed at it.
func pair(t *testing.T, timeout time.Duration) (*alpacafake.Server, *Broker) {
	t.Helper()
	f := alpacafake.New(testKey, testSecret, money.MustParse("100000"))
	t.Cleanup(f.Close)
	b, err := New(Config{Key: "alpaca", Mode: "paper", BaseURL: f.URL, DataURL: f.URL, KeyID: testKey, Secret: testSecret,
		Timeout: timeout, StreamBackoff: 5 * time.Millisecond, StreamBackoffMax: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return f, b
}

func amt(s string) *money.Amount { a := money.MustParse(s); return &a }

func TestNewRefuses(t *testing.T) {
	base := Config{Key: "alpaca", Mode: "paper", BaseURL: "http://127.0.0.1:1", DataURL: "http://127.0.0.1:1", KeyID: testKey, Secret: testSecret}
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no key", func(c *Config) { c.KeyID = "" }, "no API key"},
		{"no secret", func(c *Config) { c.Secret = "" }, "no API key"},
		{"no base url", func(c *Config) { c.BaseURL = "" }, "set explicitly"},
		{"no data url", func(c *Config) { c.DataURL = "" }, "set explicitly"},
		{"bad mode", func(c *Config) { c.Mode = "" }, "want paper or live"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			_, err := New(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
	t.Run("oauth in the environment", func(t *testing.T) {
		t.Setenv(OAuthEnv, "some-token-value")
		if _, err := New(base); err == nil || !strings.Contains(err.Error(), OAuthEnv) {
			t.Fatalf("got %v, want a refusal naming %s", err, OAuthEnv)
		}
	})
}

// TestNoEnvironmentFallback: with the SDK's APCA_* variables pointing elsewhere, every request
// still goes to the configured URL with the configured keys.
func TestNoEnvironmentFallback(t *testing.T) {
	t.Setenv("APCA_API_KEY_ID", "PKWRONGWRONGWRONG")
	t.Setenv("APCA_API_SECRET_KEY", "wrongwrongwrongwrongwrong")
	t.Setenv("APCA_API_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("APCA_API_DATA_URL", "http://127.0.0.1:1")
	f, b := pair(t, 5*time.Second)
	ctx := context.Background()
	if _, err := b.Account(ctx); err != nil {
		t.Fatalf("account: %v", err)
	}
	if _, err := b.Quote(ctx, "AAPL"); err != nil {
		t.Fatalf("quote: %v", err)
	}
	for _, h := range f.Headers() {
		if got := h.Get("APCA-API-KEY-ID"); got != testKey {
			t.Fatalf("key header = %q, want the configured key", got)
		}
		if h.Get("Authorization") != "" {
			t.Fatalf("an Authorization header was sent")
		}
	}
}

func TestReads(t *testing.T) {
	f, b := pair(t, 5*time.Second)
	ctx := context.Background()
	f.SetQuote("AAPL", money.MustParse("189.97"), money.MustParse("190.03"))
	q, err := b.Quote(ctx, "AAPL")
	if err != nil {
		t.Fatal(err)
	}
	if !q.Bid.Equal(money.MustParse("189.97")) || !q.Ask.Equal(money.MustParse("190.03")) {
		t.Fatalf("quote = %s/%s, want 189.97/190.03 exactly", q.Bid, q.Ask)
	}
	if _, err := b.Quote(ctx, "NOPE"); !errors.Is(err, live.ErrRejected) {
		t.Fatalf("unknown symbol: got %v, want rejected", err)
	}
	o, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "c1", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("3")})
	if err != nil {
		t.Fatal(err)
	}
	if o.ClientOrderID != "c1" || o.Symbol != "AAPL" {
		t.Fatalf("order = %+v", o)
	}
	ps, err := b.Positions(ctx)
	if err != nil || len(ps) != 1 {
		t.Fatalf("positions = %v, %v; want one", ps, err)
	}
	if !ps[0].Qty.Equal(money.MustParse("3")) || !ps[0].MarketValue.Equal(money.MustParse("570")) {
		t.Fatalf("position = %s @ value %s, want 3 and 570", ps[0].Qty, ps[0].MarketValue)
	}
	a, err := b.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := money.MustParse("99429.91"); !a.Cash.Equal(want) {
		t.Fatalf("cash = %s, want %s", a.Cash, want)
	}
	h := b.Health()
	if !h.Connected || h.Mode != "paper" || h.LastError != "" || h.Checked.IsZero() {
		t.Fatalf("health = %+v, want connected paper with no error", h)
	}
}

func TestPlaceShapes(t *testing.T) {
	f, b := pair(t, 5*time.Second)
	ctx := context.Background()
	f.Hold(true)
	lim, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "lim", Symbol: "MSFT", Side: live.Buy, Type: live.Limit, Quantity: amt("0.5"), LimitPrice: amt("400.01")})
	if err != nil {
		t.Fatal(err)
	}
	if lim.Type != live.Limit || !lim.LimitPrice.Equal(money.MustParse("400.01")) || !lim.Quantity.Equal(money.MustParse("0.5")) || !lim.Status.Open() {
		t.Fatalf("limit order = %+v", lim)
	}
	not, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "not", Symbol: "SPY", Side: live.Buy, Type: live.Market, Notional: amt("1234.56")})
	if err != nil || !not.Notional.Equal(money.MustParse("1234.56")) {
		t.Fatalf("notional order = %+v, %v", not, err)
	}
	open, err := b.OpenOrders(ctx)
	if err != nil || len(open) != 2 {
		t.Fatalf("open orders = %d, %v; want 2", len(open), err)
	}
	if err := b.CancelOrder(ctx, lim.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.CancelOrder(ctx, lim.ID); !errors.Is(err, live.ErrRejected) {
		t.Fatalf("second cancel: got %v, want rejected (not cancelable)", err)
	}
	bad := []live.OrderRequest{
		{Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("1")},                                            // no client id
		{ClientOrderID: "x1", Symbol: "AAPL", Side: "hold", Type: live.Market, Quantity: amt("1")},                         // side
		{ClientOrderID: "x2", Symbol: "AAPL", Side: live.Buy, Type: live.Market},                                           // no size
		{ClientOrderID: "x3", Symbol: "AAPL", Side: live.Buy, Type: live.Limit, Quantity: amt("1")},                        // no limit
		{ClientOrderID: "x4", Symbol: "AAPL", Side: live.Buy, Type: "stop", Quantity: amt("1")},                            // type
		{ClientOrderID: "x5", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("-1")},                      // negative
		{ClientOrderID: "x6", Symbol: "AAPL", Side: live.Sell, Type: live.Market, Quantity: amt("1"), ReduceOnly: true},    // no position
		{ClientOrderID: "x7", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("1"), Tool: "place_order"},  // tool-shaped
		{ClientOrderID: "x8", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("1"), Notional: amt("100")}, // both
		{ClientOrderID: "x9", Symbol: "BTC/USD", Side: live.Buy, Type: live.Market, Notional: amt("100")},                  // crypto
		{ClientOrderID: "xa", Symbol: "AAPL250117C00190000", Side: live.Buy, Type: live.Market, Quantity: amt("1")},        // option
		{ClientOrderID: "xb", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("2"), Replaces: "ord-1"},    // a replace
		{ClientOrderID: "xc", Symbol: "AAPL250117C00190000", Instrument: live.Option, Side: live.Buy, Type: live.Market,
			Legs: []live.Leg{{Symbol: "AAPL250117C00190000"}}, Quantity: amt("1")}, // multi-leg
		{ClientOrderID: "xd", Symbol: "AAPL250117C00190000", Instrument: live.Option, Side: live.Buy, Type: live.Market, Quantity: amt("1.5")}, // part of a contract
		{ClientOrderID: "xe", Symbol: "AAPL", Instrument: live.Option, Side: live.Buy, Type: live.Market, Quantity: amt("1")},                  // not an OCC symbol
		{ClientOrderID: "xf", Symbol: "EUR/USD", Instrument: live.Forex, Side: live.Buy, Type: live.Market, Quantity: amt("1")},                // forex
	}
	before := f.Count("POST", "/v2/orders")
	for i, r := range bad {
		if _, err := b.PlaceOrder(ctx, r); !errors.Is(err, live.ErrRejected) {
			t.Errorf("bad request %d: got %v, want rejected", i, err)
		}
	}
	if got := f.Count("POST", "/v2/orders"); got != before {
		t.Fatalf("malformed requests reached Alpaca: %d POSTs, want %d", got, before)
	}
}

func TestErrorClasses(t *testing.T) {
	req := func(cid string) live.OrderRequest {
		return live.OrderRequest{ClientOrderID: cid, Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("1")}
	}
	cases := []struct {
		name  string
		fault alpacafake.Fault
		want  error
		msg   string
	}{
		{"403 forbidden", alpacafake.Fault{Status: 403, Message: "insufficient buying power"}, live.ErrRejected, "insufficient buying power"},
		{"422 unprocessable", alpacafake.Fault{Status: 422, Message: "qty must be > 0"}, live.ErrRejected, "qty must be > 0"},
		{"429 rate limited", alpacafake.Fault{Status: 429, Message: "rate limit exceeded"}, live.ErrTransport, "429"},
		{"500", alpacafake.Fault{Status: 500, Message: "internal"}, live.ErrIndeterminate, "internal"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, b := pair(t, 5*time.Second)
			tc.fault.Method, tc.fault.Path = "POST", "/v2/orders"
			f.Inject(tc.fault)
			_, err := b.PlaceOrder(context.Background(), req(string(rune('a'+i))))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want %v with %q", err, tc.want, tc.msg)
			}
			if got := f.Count("POST", "/v2/orders"); got != 1 {
				t.Fatalf("POSTs = %d, want exactly 1 (no SDK retry)", got)
			}
			if h := b.Health(); h.LastError == "" {
				t.Fatalf("health shows no error after %v", err)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		b, err := New(Config{Key: "alpaca", Mode: "paper", BaseURL: "http://127.0.0.1:1", DataURL: "http://127.0.0.1:1", KeyID: testKey, Secret: testSecret})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.PlaceOrder(context.Background(), req("u")); !errors.Is(err, live.ErrTransport) {
			t.Fatalf("got %v, want transport (nothing was sent)", err)
		}
		if h := b.Health(); h.Connected {
			t.Fatalf("health = %+v, want not connected", h)
		}
	})
	t.Run("cancelled context sends nothing", func(t *testing.T) {
		f, b := pair(t, 5*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := b.PlaceOrder(ctx, req("cx")); !errors.Is(err, live.ErrTransport) {
			t.Fatalf("got %v, want transport", err)
		}
		if got := f.Count("POST", "/v2/orders"); got != 0 {
			t.Fatalf("POSTs = %d, want 0", got)
		}
	})
}

// TestSlowSubmitIsIndeterminateAndReconciled: the order reaches Alpaca but the reply comes
// after the timeout; the submit is indeterminate, never resent, and the client order id finds it.
func TestSlowSubmitIsIndeterminateAndReconciled(t *testing.T) {
	f, b := pair(t, 200*time.Millisecond)
	f.Inject(alpacafake.Fault{Method: "POST", Path: "/v2/orders", Delay: 5 * time.Second})
	ctx := context.Background()
	_, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "slow-1", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("2")})
	if !errors.Is(err, live.ErrIndeterminate) {
		t.Fatalf("got %v, want indeterminate", err)
	}
	o, err := b.OrderByClientID(ctx, "slow-1")
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if o.ClientOrderID != "slow-1" || !o.FilledQty.Equal(money.MustParse("2")) {
		t.Fatalf("reconciled order = %+v", o)
	}
	if got := f.Count("POST", "/v2/orders"); got != 1 {
		t.Fatalf("POSTs = %d, want exactly 1: an indeterminate submit is never resent", got)
	}
	if _, err := b.OrderByClientID(ctx, "never-sent"); !errors.Is(err, live.ErrOrderNotFound) {
		t.Fatalf("unknown client id: got %v, want ErrOrderNotFound", err)
	}
}

func TestCancelAllAndCloseAll(t *testing.T) {
	f, b := pair(t, 5*time.Second)
	ctx := context.Background()
	for _, sym := range []string{"AAPL", "MSFT"} {
		if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "fill-" + sym, Symbol: sym, Side: live.Buy, Type: live.Market, Quantity: amt("1")}); err != nil {
			t.Fatal(err)
		}
	}
	f.Hold(true)
	var ids []string
	for i, sym := range []string{"NVDA", "SPY", "TSLA"} {
		o, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "rest-" + sym, Symbol: sym, Side: live.Buy, Type: live.Limit,
			Quantity: amt("1"), LimitPrice: amt("1")})
		if err != nil {
			t.Fatal(i, err)
		}
		ids = append(ids, o.ID)
	}
	f.FailCancel(ids[1])
	res, err := b.CancelAll(ctx)
	if !errors.Is(err, live.ErrRejected) || !strings.Contains(err.Error(), "1 of 3") {
		t.Fatalf("cancel-all error = %v, want 1 of 3 not cancelled", err)
	}
	if len(res) != 3 {
		t.Fatalf("results = %+v, want 3", res)
	}
	for _, r := range res {
		if wantOK := r.OrderID != ids[1]; (r.Status == http.StatusOK) != wantOK {
			t.Fatalf("result %+v: want ok=%v", r, wantOK)
		}
	}
	open, _ := b.OpenOrders(ctx)
	if len(open) != 1 || open[0].ID != ids[1] {
		t.Fatalf("open after cancel-all = %+v, want only %s", open, ids[1])
	}
	f.Hold(false)
	closes, err := b.CloseAll(ctx)
	if err != nil || len(closes) != 2 {
		t.Fatalf("close-all = %d orders, %v; want 2, nil", len(closes), err)
	}
	ps, _ := b.Positions(ctx)
	open, _ = b.OpenOrders(ctx)
	if len(ps) != 0 || len(open) != 0 {
		t.Fatalf("after close-all: %d positions, %d open orders; want none", len(ps), len(open))
	}
}

// TestStreamDropReconnectReconcile: fills arrive on the stream; the stream drops; a fill
// happens in the gap; the connector reconnects, resubscribes and reports the missed fill once.
func TestStreamDropReconnectReconcile(t *testing.T) {
	f, b := pair(t, 5*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	updates := b.Subscribe(ctx)
	waitStreams(t, f, 1)
	_, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "s1", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("1")})
	if err != nil {
		t.Fatal(err)
	}
	u := livetest.WaitFor(t, updates, "the s1 fill", func(u live.OrderUpdate) bool { return u.Order.ClientOrderID == "s1" && u.FillQty.Sign() > 0 })
	if !u.FillQty.Equal(money.MustParse("1")) || !u.FillPx.Equal(money.MustParse("190.00")) {
		t.Fatalf("fill = %s @ %s, want 1 @ 190.00", u.FillQty, u.FillPx)
	}
	f.Hold(true)
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "s2", Symbol: "MSFT", Side: live.Buy, Type: live.Market, Quantity: amt("2")}); err != nil {
		t.Fatal(err)
	}
	livetest.WaitFor(t, updates, "s2 accepted", func(u live.OrderUpdate) bool { return u.Order.ClientOrderID == "s2" })
	conns := f.Count("GET", "/v2/events/trades")
	f.DropStreams()
	f.FillAll() // in the gap, or just after: either the replay or the reconciliation reports it
	u = livetest.WaitFor(t, updates, "the s2 fill after the drop", func(u live.OrderUpdate) bool { return u.Order.ClientOrderID == "s2" && u.FillQty.Sign() > 0 })
	if !u.FillQty.Equal(money.MustParse("2")) || u.Order.Status != live.StatusFilled {
		t.Fatalf("gap fill = %s (%s), want 2 filled", u.FillQty, u.Order.Status)
	}
	waitStreams(t, f, 1)
	if got := f.Count("GET", "/v2/events/trades"); got <= conns {
		t.Fatalf("stream connections = %d, want a reconnect after %d", got, conns)
	}
	// The fill is reported once: a later event arrives without a second s2 fill before it.
	f.Hold(false)
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "s3", Symbol: "NVDA", Side: live.Buy, Type: live.Market, Quantity: amt("1")}); err != nil {
		t.Fatal(err)
	}
	livetest.WaitFor(t, updates, "s3 fill with no second s2 fill", func(u live.OrderUpdate) bool {
		if u.Order.ClientOrderID == "s2" && u.FillQty.Sign() > 0 {
			t.Fatalf("s2's fill was reported twice")
		}
		return u.Order.ClientOrderID == "s3" && u.FillQty.Sign() > 0
	})
}

func waitStreams(t *testing.T, f *alpacafake.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.Streams() < n {
		if time.Now().After(deadline) {
			t.Fatalf("streams = %d, want %d", f.Streams(), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestBars(t *testing.T) {
	f, b := pair(t, 5*time.Second)
	f.Trend("AAPL", 1)
	closes, err := b.Bars(context.Background(), "AAPL", 20, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(closes) != 20 {
		t.Fatalf("closes = %d, want 20", len(closes))
	}
	if last := closes[len(closes)-1]; !last.Equal(money.MustParse("190.00")) {
		t.Fatalf("last close = %s, want the ask 190.00 (oldest first)", last)
	}
	if closes[0].Cmp(closes[19]) >= 0 {
		t.Fatalf("a rising trend reads %s → %s", closes[0], closes[19])
	}
}

// TestContextCancelsInFlight: the SDK takes no context, yet cancelling the caller's ctx ends
// a request in flight (a read here: transport, nothing to reconcile).
func TestContextCancelsInFlight(t *testing.T) {
	f, b := pair(t, time.Minute)
	f.Inject(alpacafake.Fault{Method: "GET", Path: "/v2/account", Delay: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for f.Count("GET", "/v2/account") == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := b.Account(ctx); !errors.Is(err, live.ErrTransport) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want a transport error from the cancelled context", err)
	}
}

func TestInstrument(t *testing.T) {
	for class, want := range map[string]live.InstrumentType{"us_equity": live.Equity, "crypto": live.Crypto, "us_option": live.Option, "forex": ""} {
		if got := Instrument(class); got != want {
			t.Errorf("Instrument(%q) = %q, want %q", class, got, want)
		}
	}
	for sym, want := range map[string]live.InstrumentType{"AAPL": live.Equity, "BRK.B": live.Equity, "BTC/USD": live.Crypto, "SPY250620P00500000": live.Option} {
		// the classification request() uses for an order that names no instrument
		if got, err := live.ClassifyInstrument(sym, ""); err != nil || got.Type != want {
			t.Errorf("ClassifyInstrument(%q) = %q, %v; want %q", sym, got.Type, err, want)
		}
	}
}

func TestPlaceInstruments(t *testing.T) {
	f, b := pair(t, 5*time.Second)
	ctx := context.Background()
	f.SetQuote("BTC/USD", money.MustParse("64000"), money.MustParse("64000.50"))
	f.SetQuote("AAPL250117C00190000", money.MustParse("1.20"), money.MustParse("1.25"))
	btc, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "btc", Symbol: "btc/usd", Instrument: live.Crypto,
		Side: live.Buy, Type: live.Market, Quantity: amt("0.0015")})
	if err != nil {
		t.Fatalf("crypto order: %v (crypto goes out gtc, as Alpaca requires)", err)
	}
	if btc.Symbol != "BTC/USD" {
		t.Errorf("crypto order symbol: got %q, want BTC/USD", btc.Symbol)
	}
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "opt", Symbol: "AAPL250117C00190000", Instrument: live.Option,
		Side: live.Buy, Type: live.Market, Quantity: amt("3")}); err != nil {
		t.Fatalf("option order: %v", err)
	}
	ps, err := b.Positions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Symbol)
	}
	if strings.Join(got, ",") != "AAPL250117C00190000,BTC/USD" {
		t.Fatalf("positions: got %v, want the option and BTC/USD (Alpaca lists BTCUSD; the book says BTC/USD)", got)
	}
	// A reduce-only sell of the pair finds its position under the book's name.
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "btc-out", Symbol: "BTC/USD", Instrument: live.Crypto,
		Side: live.Sell, Type: live.Market, Quantity: amt("0.0015"), ReduceOnly: true}); err != nil {
		t.Fatalf("reduce-only crypto sell: %v", err)
	}
}
