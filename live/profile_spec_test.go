package live

import (
	"strings"
	"testing"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

const specHead = "name = \"t\"\n[tools]\nq = \"read\"\nbuy = \"write\"\nnote = \"write\"\n[reads]\nquote = \"q\"\n[orders]\nplace = \"buy\"\n"

// TestParseProfileErrors: every mistake is refused with the key it is at.
func TestParseProfileErrors(t *testing.T) {
	ex := "[extract.buy]\ninstrument = { value = \"equity\" }\nsymbol = { from = [\"s\"] }\nside = { from = [\"d\"] }\nquantity = { from = [\"q\"] }\n"
	tests := []struct{ name, text, want string }{
		{"ok", specHead + ex, ""},
		{"unknown top key", "colour = 1\n" + specHead + ex, "unknown key colour"},
		{"unknown field key", specHead + strings.Replace(ex, "from = [\"s\"]", "from = [\"s\"], frm = 1", 1), "unknown key extract.buy.symbol.frm"},
		{"bad class", strings.Replace(specHead, "note = \"write\"", "note = \"maybe\"", 1) + ex, `tools.note = "maybe": want read or write`},
		{"extractor for a read tool", specHead + ex + "[extract.q]\ninstrument = { value = \"equity\" }\nsymbol = { from = [\"s\"] }\nside = { from = [\"d\"] }\nquantity = { from = [\"q\"] }\n", "extract.q: the tool is not WRITE"},
		{"place without extractor", specHead, `orders.place = "buy": the order tool has no [extract.buy]`},
		{"quote not read", strings.Replace(specHead, "quote = \"q\"", "quote = \"buy\"", 1) + ex, `reads.quote = "buy": want a tool [tools] names read`},
		{"unknown transform", specHead + strings.Replace(ex, "from = [\"s\"]", "from = [\"s\"], transforms = [\"title\"]", 1), `extract.buy.symbol: transform "title": want one of`},
		{"amount transform on a string", specHead + strings.Replace(ex, "from = [\"s\"]", "from = [\"s\"], transforms = [\"div100\"]", 1), `transform "div100" does not apply`},
		{"bad side value", specHead + strings.Replace(ex, "from = [\"d\"]", "from = [\"d\"], map = { x = \"long\" }", 1), `extract.buy.side: map.x = "long"`},
		{"bad instrument", specHead + strings.Replace(ex, "value = \"equity\"", "value = \"bond\"", 1), `instrument: value = "bond"`},
		{"no size", specHead + strings.Replace(ex, "quantity = { from = [\"q\"] }\n", "", 1), "at least one size"},
		{"unknown placeholder", specHead + ex + "reject = [{ path = \"v\", not_in = [\"${venue}\"] }]\n", "${venue} is neither ${broker} nor listed in vars"},
		{"bad name", strings.Replace(specHead, "name = \"t\"", "name = \"T T\"", 1) + ex, `name = "T T"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProfile([]byte(tt.text))
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestDataExtractorFields: the format fills every intent field an order tool can carry:
// typed orders with their stop and trail prices, legs, transforms, reject conditions and
// ${broker}; a WRITE tool without an extractor yields nothing.
func TestDataExtractorFields(t *testing.T) {
	text := specHead + `[extract.buy]
instrument = { from = ["kind"], map = { "" = "equity", stk = "equity", opt = "option" } }
symbol = { from = ["pair", "s"], pick = "first_usable", transforms = ["strip", "upper", "pair_slash"] }
side = { from = ["d"], transforms = ["lower"], map = { buy = "buy", sell = "sell" } }
type = { from = ["t"], map = { mkt = "market", lmt = "limit", stp = "stop", stl = "stop_limit", trail = "trailing_stop" } }
quantity = { from = ["q"] }
notional = { from = ["cents"], transforms = ["div100"], null_absent = true }
limit_price = { from = ["lp"] }
stop_price = { from = ["sp"] }
trail_amount = { from = ["ta"] }
trail_percent = { from = ["tp"] }
legs = "legs"
reject = [{ path = "venue", not_in = ["${broker}"] }, { path = "hidden", set = true }, { path = "class", transforms = ["lower"], in = ["oco"] }]
`
	p, err := ParseProfile([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	p, err = p.Bind("okx", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, args, want string }{
		{"market", `{"venue":"okx","s":" btc-usdt ","d":"BUY","t":"mkt","q":"2"}`, "buy 2 units BTC/USDT (equity) market"},
		{"cents", `{"venue":"okx","s":"AAPL","d":"sell","cents":12345,"hidden":null}`, "sell $123.45 AAPL (equity) "},
		{"limit", `{"venue":"okx","s":"AAPL","d":"buy","t":"lmt","q":1,"lp":"10"}`, "buy 1 units AAPL (equity) limit l=10"},
		{"stop", `{"venue":"okx","s":"AAPL","d":"buy","t":"stp","q":1,"sp":"11"}`, "buy 1 units AAPL (equity) stop s=11"},
		{"stop limit", `{"venue":"okx","s":"AAPL","d":"buy","t":"stl","q":1,"sp":"11","lp":"12"}`, "buy 1 units AAPL (equity) stop_limit l=12 s=11"},
		{"trailing", `{"venue":"okx","s":"AAPL","d":"sell","t":"trail","q":1,"tp":"2.5"}`, "sell 1 units AAPL (equity) trailing_stop tp=2.5"},
		{"stop without its price", `{"venue":"okx","s":"AAPL","d":"buy","t":"stp","q":1}`, "none"},
		{"market with a limit", `{"venue":"okx","s":"AAPL","d":"buy","t":"mkt","q":1,"lp":"10"}`, "none"},
		{"trailing at 100 percent", `{"venue":"okx","s":"AAPL","d":"sell","t":"trail","q":1,"tp":"100"}`, "none"},
		{"trailing with both trails", `{"venue":"okx","s":"AAPL","d":"sell","t":"trail","q":1,"tp":"1","ta":"1"}`, "none"},
		{"other venue", `{"venue":"binance","s":"AAPL","d":"buy","q":1}`, "none"},
		{"hidden set", `{"venue":"okx","s":"AAPL","d":"buy","q":1,"hidden":true}`, "none"},
		{"oco class", `{"venue":"okx","s":"AAPL","d":"buy","q":1,"class":"OCO"}`, "none"},
		{"unmapped instrument", `{"venue":"okx","kind":"fut","s":"AAPL","d":"buy","q":1}`, "none"},
		{"legs", `{"venue":"okx","kind":"opt","q":2,"legs":[{"symbol":"AAPL250117C00150000","side":"buy","ratio_qty":1},{"symbol":"AAPL250117C00160000","side":"sell","ratio_qty":1}]}`, "buy 2 units AAPL250117C00150000+AAPL250117C00160000 (option)  legs=2"},
		{"bad legs", `{"venue":"okx","kind":"opt","q":2,"legs":[{"symbol":"X","side":"buy"}]}`, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := jsonv.ParseString(tt.args, jsonv.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := "none"
			if in, ok := p.Extract("buy", v.(*jsonv.Object)); ok {
				got = in.Describe() + " " + string(in.Type)
				if in.LimitPrice != nil {
					got += " l=" + in.LimitPrice.String()
				}
				if in.StopPrice != nil {
					got += " s=" + in.StopPrice.String()
				}
				if in.TrailAmount != nil {
					got += " ta=" + in.TrailAmount.String()
				}
				if in.TrailPercent != nil {
					got += " tp=" + in.TrailPercent.String()
				}
				if len(in.Legs) > 0 {
					got += " legs=" + string(rune('0'+len(in.Legs)))
				}
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, ok := p.Extract("note", jsonv.ObjectOf("venue", "okx", "s", "AAPL", "d", "buy", "q", "1")); ok || p.HasExtractor("note") || !p.HasExtractor("buy") {
		t.Fatal("a WRITE tool without an extractor yielded an intent or claims an extractor")
	}
}

// TestBuildRefusesWhatItCannotSend: a [build] table sends a typed order whole or not at all —
// an order type it has no argument for, a price it has no argument for (a stop without its
// stop_price would be a market order) and a stop without its prices are refused, naming what
// is missing; what it can send goes out with its trigger.
func TestBuildRefusesWhatItCannotSend(t *testing.T) {
	ex := "[extract.buy]\ninstrument = { value = \"equity\" }\nsymbol = { from = [\"s\"] }\nside = { from = [\"d\"] }\nquantity = { from = [\"q\"] }\n"
	plain := "[build]\ntool = \"buy\"\nargs = [{ arg = \"s\", from = \"symbol\" }, { arg = \"d\", from = \"side\" }, { arg = \"q\", from = \"quantity\" }]\n"
	typed := "[build]\ntool = \"buy\"\nargs = [{ arg = \"s\", from = \"symbol\" }, { arg = \"q\", from = \"quantity\" }, { arg = \"t\", from = \"type\" }, { arg = \"lp\", from = \"limit_price\" }, { arg = \"sp\", from = \"stop_price\" }]\n"
	q, px := money.MustParse("2"), money.MustParse("9.5")
	tests := []struct {
		name, build string
		req         OrderRequest
		want        string // the arguments sent, or the refusal's words
	}{
		{"market without a type argument", plain, OrderRequest{Symbol: "AAPL", Side: Sell, Quantity: &q}, `{"s":"AAPL","d":"sell","q":"2"}`},
		{"limit without a type argument", plain, OrderRequest{Symbol: "AAPL", Side: Sell, Quantity: &q, Type: Limit, LimitPrice: &px}, "sends no order type, so a limit order is refused"},
		{"stop", typed, OrderRequest{Symbol: "AAPL", Side: Sell, Quantity: &q, Type: Stop, StopPrice: &px}, `{"s":"AAPL","q":"2","t":"stop","sp":"9.5"}`},
		{"stop without its price", typed, OrderRequest{Symbol: "AAPL", Side: Sell, Quantity: &q, Type: Stop}, "a stop order needs stop_price"},
		{"trailing stop without a trail argument", typed, OrderRequest{Symbol: "AAPL", Side: Sell, Quantity: &q, Type: TrailingStop, TrailPercent: &px}, "sends no trail_percent, so a trailing_stop order is refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProfile([]byte(specHead + ex + tt.build))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if _, args, err := p.BuildOrder(tt.req); err != nil {
				got = err.Error()
			} else {
				got = string(jsonv.MustMarshal(args, jsonv.Compact))
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
	if _, _, err := shipped()["robinhood"].BuildOrder(OrderRequest{Symbol: "AAPL", Side: Sell, Quantity: &q, Type: Stop, StopPrice: &px}); err == nil ||
		!strings.Contains(err.Error(), "sends no stop_price, so a stop order is refused") {
		t.Fatalf("robinhood stop: %v, want refused for its missing stop_price", err)
	}
}
