package live

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// goExtractors are the hand-written extractors the shipped profile files replace; the
// differential tests hold each file to them.
var goExtractors = []struct {
	profile string
	tools   []string
	extract func(string, *jsonv.Object) (OrderIntent, bool)
}{
	{"robinhood", []string{"place_equity_order", "cancel_equity_order", "get_equity_quotes"}, extractRobinhood},
	{"alpaca", []string{"place_stock_order", "place_crypto_order", "place_option_order", "replace_order_by_id", "get_orders"}, extractAlpaca},
}

// sameIntent names the first difference between the Go and the data extractor's results
// ("" when equal). The data extractor also says a market or limit order's type, which the Go
// ones leave unset; a stop, stop-limit or trailing stop's type both must say alike.
func sameIntent(gin OrderIntent, gok bool, din OrderIntent, dok bool) string {
	if gok != dok {
		return fmt.Sprintf("go ok=%v (%s), data ok=%v (%s)", gok, gin.Describe(), dok, din.Describe())
	}
	if !gok {
		return ""
	}
	if gin.Type != "" && gin.Type != din.Type { // the Go extractors name a triggered order's type
		return fmt.Sprintf("go type %q, data type %q", gin.Type, din.Type)
	}
	amt := func(a *money.Amount) string {
		if a == nil {
			return "nil"
		}
		return a.String()
	}
	g := fmt.Sprintf("%q %q %s %s q=%s n=%s l=%s s=%s ta=%s tp=%s legs=%v inv=%v", gin.Symbol, gin.Side, gin.InstrumentType, gin.AssetClass,
		amt(gin.Quantity), amt(gin.NotionalUSD), amt(gin.LimitPrice), amt(gin.StopPrice), amt(gin.TrailAmount), amt(gin.TrailPercent), gin.Legs, gin.Invalid)
	d := fmt.Sprintf("%q %q %s %s q=%s n=%s l=%s s=%s ta=%s tp=%s legs=%v inv=%v", din.Symbol, din.Side, din.InstrumentType, din.AssetClass,
		amt(din.Quantity), amt(din.NotionalUSD), amt(din.LimitPrice), amt(din.StopPrice), amt(din.TrailAmount), amt(din.TrailPercent), din.Legs, din.Invalid)
	if g != d {
		return "go " + g + "\ndata " + d
	}
	return ""
}

func checkSame(t *testing.T, label string, args *jsonv.Object) {
	t.Helper()
	for _, ge := range goExtractors {
		p := shipped()[ge.profile]
		for _, tool := range ge.tools {
			gin, gok := ge.extract(tool, args)
			din, dok := p.Extract(tool, args)
			if diff := sameIntent(gin, gok, din, dok); diff != "" {
				t.Fatalf("%s: %s %s %s:\n%s", label, ge.profile, tool, jsonv.MustMarshal(args, jsonv.Compact), diff)
			}
		}
	}
}

// conformanceDir is the oracle vectors' folder (COCKPIT_CONFORMANCE_DIR overrides).
func conformanceDir() string {
	if d := os.Getenv("COCKPIT_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "conformance")
}

// TestProfileFilesMatchGoOnConformance: every kwargs object of the oracle's extractor and MCP
// gate cases gives the same intent through the shipped files as through the Go extractors.
func TestProfileFilesMatchGoOnConformance(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(conformanceDir(), "live.json"))
	if err != nil {
		t.Skipf("skipped: no conformance vectors (%v)", err)
	}
	doc, err := jsonv.Parse(raw, jsonv.Options{NonFinite: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, cat := range []string{"extractor_robinhood", "mcp_gate"} {
		cases, _ := doc.(*jsonv.Object).Value(cat).([]any)
		for _, c := range cases {
			co := c.(*jsonv.Object)
			if kw, ok := DecodeFloats(co.Value("kwargs")).(*jsonv.Object); ok {
				checkSame(t, fmt.Sprint(cat, " ", co.Value("id")), kw)
				n++
			}
		}
	}
	if n < 20 {
		t.Fatalf("compared %d conformance inputs, want the oracle's extractor and gate cases", n)
	}
}

// argKeys and argValues make the generated corpus: every key either extractor reads, and
// values of every shape they treat differently.
var (
	argKeys = []string{"symbol", "ticker", "instrument", "side", "action", "direction", "instrument_type", "asset_class",
		"type", "instrument_class", "notional_usd", "notional", "dollar_amount", "amount", "quantity", "qty", "shares",
		"units", "limit_price", "order_class", "legs", "stop_price", "trail_price", "trail_percent", "take_profit_limit_price",
		"stop_loss_stop_price", "stop_loss_limit_price", "advanced_instructions", "time_in_force"}
	argValues = []any{nil, true, false, "", " ", "aapl", " MSFT ", "BTC/USD", "AAPL250117C00150000", "buy", "SELL", " b ",
		"long", "short", "s", "hold", "Buy ", "equity", "Stock", "stocks", "ETF", "options", "crypto", "cryptocurrency",
		"market", " Limit", "limit", "stop", "simple", "mleg", "bracket", "SIMPLE ", "10", " 2.5 ", "0", "-1", "1_000",
		"nan", "inf", "1e3", jsonv.Number("3"), jsonv.Number("0.5"), jsonv.Number("0"), jsonv.Number("-2"),
		jsonv.Number("1e2"), jsonv.Float(1.5), jsonv.NewObject(), []any{}, []any{"x"}}
)

// genArgs is one random arguments object, biased towards orders that almost work.
func genArgs(r *rand.Rand) *jsonv.Object {
	o := jsonv.NewObject()
	if r.IntN(3) > 0 { // a plausible base order
		o.Set("symbol", []any{"AAPL", " aapl ", "BTC/USD", "AAPL250117C00150000"}[r.IntN(4)])
		o.Set("side", []any{"buy", "sell", " Buy"}[r.IntN(3)])
		switch r.IntN(4) {
		case 0:
			o.Set("qty", []any{"2", jsonv.Number("3")}[r.IntN(2)])
		case 1:
			o.Set("notional", "100")
		case 2:
			o.Set("quantity", "5")
			o.Set("instrument_type", "stock")
		default:
			o.Set("notional_usd", jsonv.Number("250"))
			o.Set("instrument_type", "equity")
		}
	}
	if r.IntN(2) == 0 { // a typed order, its prices present or not, usable or not
		o.Set("type", []any{"stop", "stop_limit", "trailing_stop", " Trailing_Stop ", "limit", "market"}[r.IntN(6)])
		for _, k := range []string{"stop_price", "limit_price", "trail_price", "trail_percent"} {
			if r.IntN(2) == 0 {
				o.Set(k, []any{"5", jsonv.Number("99.5"), "100", "150", "0", nil}[r.IntN(6)])
			}
		}
	}
	for i, n := 0, r.IntN(6); i < n; i++ {
		o.Set(argKeys[r.IntN(len(argKeys))], argValues[r.IntN(len(argValues))])
	}
	return o
}

// TestProfileFilesMatchGoOnCorpus: 30,000 generated arguments objects give the same intent
// through the shipped files as through the Go extractors, for every order and non-order tool.
func TestProfileFilesMatchGoOnCorpus(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 2026))
	accepted, stops := 0, 0
	for i := range 30000 {
		args := genArgs(r)
		checkSame(t, fmt.Sprint("corpus ", i), args)
		if in, ok := extractAlpaca("place_stock_order", args); ok {
			accepted++
			if in.Type.Triggered() {
				stops++
			}
		}
	}
	if accepted < 500 || stops < 50 { // the corpus must exercise accepted orders, not only refusals
		t.Fatalf("only %d generated orders (%d stops) were accepted by the Go Alpaca extractor", accepted, stops)
	}
}

// FuzzProfileFilesMatchGo: any JSON object gives the same intent both ways.
func FuzzProfileFilesMatchGo(f *testing.F) {
	for _, s := range []string{
		`{"symbol":"AAPL","side":"buy","qty":"2","type":"limit","limit_price":"10"}`,
		`{"symbol":"aapl","side":"b","instrument_type":"stock","notional_usd":250}`,
		`{"symbol":"AAPL250117C00150000","side":"buy","qty":"3","type":"limit","limit_price":"1.30"}`,
		`{"symbol":"BTC/USD","side":"sell","notional":"5","order_class":" Simple "}`,
		`{"ticker":" msft ","action":"short","asset_class":"ETF","amount":null,"qty":"1"}`,
		`{"symbol":"X","side":"buy","qty":null,"notional":"1","type":5}`,
		`{"symbol":"AAPL","side":"sell","qty":"2","type":"stop_limit","stop_price":"9","limit_price":"8.5"}`,
		`{"symbol":"AAPL","side":"sell","qty":"2","type":"trailing_stop","trail_percent":"100"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true, MaxDepth: 32})
		if err != nil {
			return
		}
		if o, ok := doc.(*jsonv.Object); ok {
			checkSame(t, "fuzz", o)
		}
	})
}

// TestProfileFilesBuildLikeGo: the files' build tables give the Go builders' tool and
// arguments (in order) for typed orders of every shape, stops included (Alpaca sends their
// stop_price, trail_price or trail_percent; Robinhood refuses them), and the same refusal
// without a size.
func TestProfileFilesBuildLikeGo(t *testing.T) {
	q, n, l := money.MustParse("3"), money.MustParse("250.5"), money.MustParse("10.25")
	reqs := []OrderRequest{
		{Symbol: "AAPL", Side: Buy, Quantity: &q},
		{Symbol: "AAPL", Side: Sell, Notional: &n, Type: Market},
		{Symbol: "AAPL", Side: Buy, Quantity: &q, Notional: &n, Type: Limit, LimitPrice: &l, ClientOrderID: "c-1"},
		{Symbol: "BTC/USD", Side: Buy, Notional: &n, ClientOrderID: "c-2"},
		{Symbol: "AAPL", Side: Buy},
		{Symbol: "AAPL", Side: Sell, Quantity: &q, Type: Stop, StopPrice: &l, ClientOrderID: "c-3"},
		{Symbol: "AAPL", Side: Sell, Quantity: &q, Type: StopLimit, StopPrice: &l, LimitPrice: &n},
		{Symbol: "AAPL", Side: Sell, Quantity: &q, Type: TrailingStop, TrailAmount: &l},
		{Symbol: "BTC/USD", Side: Sell, Quantity: &q, Type: TrailingStop, TrailPercent: &l},
		{Symbol: "AAPL", Side: Buy, Quantity: &q, Type: Stop},
	}
	for _, tt := range []struct {
		name  string
		build func(OrderRequest) (string, *jsonv.Object, error)
	}{{"robinhood", buildRobinhoodOrder}, {"alpaca", buildAlpacaOrder}} {
		for i, req := range reqs {
			gt, ga, gerr := tt.build(req)
			dt, da, derr := shipped()[tt.name].BuildOrder(req)
			if (gerr == nil) != (derr == nil) || gt != dt {
				t.Fatalf("%s req %d: got %s %v, want %s %v", tt.name, i, dt, derr, gt, gerr)
			}
			if gerr == nil && string(jsonv.MustMarshal(da, jsonv.Compact)) != string(jsonv.MustMarshal(ga, jsonv.Compact)) {
				t.Fatalf("%s req %d: got %s, want %s", tt.name, i, jsonv.MustMarshal(da, jsonv.Compact), jsonv.MustMarshal(ga, jsonv.Compact))
			}
		}
	}
}

// TestProfileFilesReadLikeGo: the quote tool of each symbol shape, the reply errors and the
// tool maps are the Go profiles'.
func TestProfileFilesReadLikeGo(t *testing.T) {
	a := shipped()["alpaca"]
	for _, sym := range []string{"AAPL", "btc/usd", "AAPL250117C00150000", ""} {
		if got, want := a.QuoteToolOf(sym), alpacaQuoteTool(sym); got != want && !(want == "" && got == a.QuoteTool) {
			t.Errorf("quote tool of %q = %s, want %s", sym, got, want)
		}
	}
	for _, reply := range []string{`{"id":"1"}`, `{"error":"no"}`, `{"error":{"message":"m","timeout":true}}`,
		`{"error":{"detail":"d"}}`, `{"error":false}`, `{"error":null}`, `{"error":{"timeout":1}}`} {
		v, _ := jsonv.ParseString(reply, jsonv.Options{})
		o := v.(*jsonv.Object)
		if got, want := fmt.Sprint(a.ReplyError(o)), fmt.Sprint(alpacaReplyError(o)); got != want {
			t.Errorf("reply %s: got %s, want %s", reply, got, want)
		}
	}
	for name, want := range map[string]map[string]ToolClass{"robinhood": curatedTools["robinhood"], "alpaca": alpacaMCPTools} {
		if got := shipped()[name].Tools; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s tools = %v, want %v", name, got, want)
		}
	}
}
