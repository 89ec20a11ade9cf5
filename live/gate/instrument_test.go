package gate_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

// quoteBroker is a broker with fixed quotes and an empty book; it accepts every order and
// remembers what it was sent.
type quoteBroker struct {
	quotes   map[string]live.Quote
	mu       sync.Mutex
	sent     []live.OrderRequest
	open     []live.Order
	children int // child orders the broker reports creating with each order
}

func (b *quoteBroker) Name() string { return "paper" }
func (b *quoteBroker) Quote(_ context.Context, sym string) (live.Quote, error) {
	q, ok := b.quotes[sym]
	if !ok {
		return live.Quote{}, live.Rejected("no quote for " + sym)
	}
	return q, nil
}
func (b *quoteBroker) Positions(context.Context) ([]live.Position, error) { return nil, nil }
func (b *quoteBroker) Account(context.Context) (live.Account, error)      { return live.Account{}, nil }
func (b *quoteBroker) OpenOrders(context.Context) ([]live.Order, error)   { return b.open, nil }
func (b *quoteBroker) PlaceOrder(_ context.Context, r live.OrderRequest) (live.Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent = append(b.sent, r)
	return live.Order{ID: "o" + r.ClientOrderID, ClientOrderID: r.ClientOrderID, Symbol: r.Symbol, Side: r.Side,
		Status: live.StatusAccepted, Children: b.children}, nil
}
func (b *quoteBroker) CancelOrder(context.Context, string) error { return nil }
func (b *quoteBroker) OrderByClientID(context.Context, string) (live.Order, error) {
	return live.Order{}, live.ErrOrderNotFound
}
func (b *quoteBroker) Subscribe(ctx context.Context) <-chan live.OrderUpdate {
	ch := make(chan live.OrderUpdate)
	go func() { <-ctx.Done(); close(ch) }()
	return ch
}

func quote(bid, ask, last string) live.Quote {
	return live.Quote{Bid: money.MustParse(bid), Ask: money.MustParse(ask), Last: money.MustParse(last)}
}

func newQuoteBroker() *quoteBroker {
	return &quoteBroker{quotes: map[string]live.Quote{
		"AAPL":                quote("187.20", "187.21", "187.20"),
		"BTC/USD":             quote("64000.00", "64000.50", "64000.00"),
		"AAPL250117C00150000": quote("1.20", "1.25", "1.22"),
		"AAPL250117C00160000": quote("0.40", "0.45", "0.42"),
		"GME250117C00020000":  quote("1.00", "1.10", "1.05"),
	}}
}

// instrumentGate is a gate over b with MandateDoc allowing instruments and asset classes.
// Further pairs of edits (old, new text) tighten the document.
func instrumentGate(t testing.TB, b *quoteBroker, instruments, classes string, edits ...string) *gate.Gate {
	t.Helper()
	root, clock := livetest.Root(t), livetest.NewClock(livetest.Epoch)
	doc := strings.Replace(livetest.MandateDoc, `"allowed_instruments": ["equity", "etf"]`, `"allowed_instruments": [`+instruments+`]`, 1)
	doc = strings.Replace(doc, `"asset_classes": ["us_equity", "us_etf"]`, `"asset_classes": [`+classes+`]`, 1)
	for i := 0; i+1 < len(edits); i += 2 {
		doc = strings.Replace(doc, edits[i], edits[i+1], 1)
	}
	livetest.Commit(t, root, "paper", doc, clock.Now())
	return &gate.Gate{Root: root, Now: clock.Now, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{},
		Mandates: livetest.Ledger(root), CountOpenOrders: true}
}

// placeArgs runs place_order arguments through the gate the way the engine does.
func placeArgs(t *testing.T, g *gate.Gate, b live.Broker, args string) gate.Decision {
	t.Helper()
	v, err := jsonv.Parse([]byte(args), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, req := live.ExtractGeneric(v.(*jsonv.Object))
	return g.Submit(context.Background(), gate.Submission{Broker: b, Intent: &in, Order: req, Actor: live.Agent("test", "s1")})
}

func TestInstrumentsThroughGate(t *testing.T) {
	const all = `"equity", "etf", "option", "crypto"`
	const classes = `"us_equity", "us_etf", "crypto"`
	tests := []struct {
		name, instruments, args string
		verdict                 live.Verdict
		limit                   string // the breach's limit or the denial's reason
		notional                string // the valued notional on the decision, "" = not checked
		detail                  string // substring of the decision's message
	}{
		{"crypto fraction allowed", all, `{"symbol":"BTC/USD","side":"buy","quantity":"0.0015"}`, live.Allow, "", "96.00075", ""},
		{"crypto concatenated with its type", all, `{"symbol":"BTCUSD","side":"buy","quantity":0.0015,"instrument_type":"crypto"}`, live.Allow, "", "96.00075", ""},
		{"crypto notional allowed", all, `{"symbol":"BTC/USD","side":"buy","notional":"250.50"}`, live.Allow, "", "250.5", ""},
		{"crypto not allowed", `"equity"`, `{"symbol":"BTC/USD","side":"buy","quantity":"0.0015"}`, live.Deny, live.LimitAllowedInstruments, "", "crypto not in allowed_instruments"},
		{"crypto quoted in BTC", all, `{"symbol":"ETH/BTC","side":"buy","quantity":"1"}`, live.Deny, live.LimitOrderIntent, "", "cannot be valued in USD"},
		{"option contracts allowed", all, `{"symbol":"AAPL250117C00150000","side":"buy","quantity":3}`, live.Allow, "", "375", ""},
		{"option priced ×100 against the cap", all, `{"symbol":"AAPL250117C00150000","side":"buy","quantity":41}`, live.PauseForReauth, live.LimitOrderNotional, "5125", ""},
		{"option not allowed", `"equity", "etf"`, `{"symbol":"AAPL250117C00150000","side":"buy","quantity":3}`, live.Deny, live.LimitAllowedInstruments, "", "option not in allowed_instruments"},
		{"option in dollars", all, `{"symbol":"AAPL250117C00150000","side":"buy","notional":300}`, live.Deny, live.LimitOrderIntent, "", "quantity"},
		{"option fractional contracts", all, `{"symbol":"AAPL250117C00150000","side":"buy","quantity":1.5}`, live.Deny, live.LimitOrderIntent, "", "whole number of contracts"},
		{"malformed OCC", all, `{"symbol":"AAPL250117C0015000","side":"buy","quantity":1,"instrument_type":"option"}`, live.Deny, live.LimitOrderIntent, "", "symbol 'AAPL250117C0015000' is not an OCC option symbol"},
		{"option root excluded", all, `{"symbol":"GME250117C00020000","side":"buy","quantity":1}`, live.Deny, live.LimitExcludeSymbols, "", "GME is on the mandate exclude list"},
		{"spread allowed", all, `{"quantity":3,"legs":[{"symbol":"AAPL250117C00150000","side":"buy","ratio_qty":"1"},{"symbol":"AAPL250117C00160000","side":"sell","ratio_qty":"1"}]}`, live.Allow, "", "501", ""}, // 3×100×1.25 (ask) + 3×100×0.42 (last > bid)
		{"spread not allowed", `"equity"`, `{"quantity":3,"legs":[{"symbol":"AAPL250117C00150000","side":"buy","ratio_qty":"1"},{"symbol":"AAPL250117C00160000","side":"sell","ratio_qty":"1"}]}`, live.Deny, live.LimitAllowedInstruments, "", "option not in allowed_instruments"},
		{"spread leg without ratio", all, `{"quantity":3,"legs":[{"symbol":"AAPL250117C00150000","side":"buy"},{"symbol":"AAPL250117C00160000","side":"sell","ratio_qty":"1"}]}`, live.Deny, live.LimitOrderIntent, "", "legs[0].ratio_qty is missing"},
		{"spread leg without a quote", all, `{"quantity":1,"legs":[{"symbol":"AAPL250117C00150000","side":"buy","ratio_qty":1},{"symbol":"AAPL250117C00170000","side":"sell","ratio_qty":1}]}`, live.Deny, string(live.ReasonNoQuote), "", "legs[1]"},
		{"equity fraction as today", `"equity", "etf"`, `{"symbol":"AAPL","side":"buy","quantity":"0.5"}`, live.Allow, "", "93.605", ""},
		{"equity type on an OCC symbol", all, `{"symbol":"AAPL250117C00150000","side":"buy","quantity":1,"instrument_type":"equity"}`, live.Deny, live.LimitOrderIntent, "", "is an OCC option symbol but instrument_type is equity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newQuoteBroker()
			g := instrumentGate(t, b, tt.instruments, classes)
			d := placeArgs(t, g, b, tt.args)
			if d.Verdict != tt.verdict {
				t.Fatalf("verdict = %s (%s), want %s", d.Verdict, d.Message(), tt.verdict)
			}
			if tt.limit != "" && string(d.Reason) != tt.limit {
				t.Errorf("reason = %s, want %s", d.Reason, tt.limit)
			}
			if tt.notional != "" {
				if d.Intent == nil || d.Intent.NotionalUSD == nil || d.Intent.NotionalUSD.Cmp(money.MustParse(tt.notional)) != 0 {
					t.Errorf("notional = %v, want %s", d.Intent, tt.notional)
				}
			}
			if !strings.Contains(d.Message(), tt.detail) {
				t.Errorf("message = %q, want it to contain %q", d.Message(), tt.detail)
			}
			if forwarded := len(b.sent) == 1; forwarded != (tt.verdict == live.Allow) {
				t.Errorf("forwarded %d orders, want %v", len(b.sent), tt.verdict == live.Allow)
			}
		})
	}
}

func gateSubmission(b live.Broker) gate.Submission {
	return gate.Submission{Broker: b, Actor: live.Agent("test", "s1")}
}
