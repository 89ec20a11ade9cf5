package wasmplugin_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cockpit/engine"
	"cockpit/engine/agents/wasmplugin"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/jsonv"
)

// noCaller is a broker server whose plain tools are never called (only a gated one is offered).
type noCaller struct{}

func (noCaller) CallTool(context.Context, string, *jsonv.Object) (any, error) {
	return nil, errors.New("not called")
}

// grantFixture grants a plugin cancel_order, place_order and a broker server's gated
// place_option_order (Alpaca's multi-leg order tool) on symbols only, and rests one
// limit order for each of resting (placed by the strategy agent), returning their ids.
func grantFixture(t *testing.T, symbols string, resting ...string) (*enginetest.Fixture, *engine.Turn, map[string]string) {
	t.Helper()
	man, err := wasmplugin.ParseManifest([]byte("name = \"g\"\nversion = \"1\"\ntools = [\"cancel_order\", \"place_order\", \"place_option_order\"]\nsymbols = [" + symbols + "]\ncalls_per_minute = 100\nmemory_pages = 64\ntick_budget = \"100ms\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := enginetest.New(t)
	if f.Engine.Policy.Grants == nil {
		f.Engine.Policy.Grants = map[string]engine.Layer{}
	}
	f.Engine.Policy.Grants[man.Agent()] = man.Layer()
	engine.RemoteTools(f.Engine.Tools, noCaller{}, live.AlpacaMCP(), []engine.RemoteTool{{Name: "place_option_order", Class: live.ClassWrite}})
	ids := map[string]string{}
	for _, sym := range resting {
		r := f.Call("place_order", map[string]any{"symbol": sym, "side": "buy", "quantity": "1", "type": "limit", "limit_price": "1"})
		o, _ := r.Data.(*jsonv.Object)
		id, _ := o.Value("order_id").(string)
		if !r.OK() || id == "" {
			t.Fatalf("resting %s order: got %s %s %s, data %v", sym, r.Status, r.Code, r.Detail, r.Data)
		}
		ids[sym] = id
	}
	return f, f.Engine.NewTurn(man.Agent()), ids
}

// TestPluginCancelChecksOrderSymbol is a regression test: a plugin granted cancel_order and
// only MSFT could cancel an AAPL order, since cancel_order names only an order id. The order is
// now looked up among the open orders and its symbol checked; an order not found is denied.
func TestPluginCancelChecksOrderSymbol(t *testing.T) {
	_, turn, ids := grantFixture(t, `"MSFT"`, "AAPL", "MSFT")
	tests := []struct {
		name, id, want string // want: "" = allowed, else a text the denial names
	}{
		{"other symbol", ids["AAPL"], "AAPL"},
		{"unknown order", "no-such-order", "no-such-order"},
		{"empty id", "", "not among the open orders"},
		{"granted symbol", ids["MSFT"], ""},
	}
	for _, tt := range tests {
		r := turn.Call(context.Background(), "cancel_order", map[string]any{"order_id": tt.id})
		if tt.want == "" {
			if !r.OK() {
				t.Errorf("%s: got %s %s %s, want cancelled", tt.name, r.Status, r.Code, r.Detail)
			}
			continue
		}
		if r.OK() || r.Code != engine.ReasonSymbolNotGranted || !strings.Contains(r.Detail, tt.want) {
			t.Errorf("%s: got %s %s %q, want %s naming %q", tt.name, r.Status, r.Code, r.Detail, engine.ReasonSymbolNotGranted, tt.want)
		}
	}
}

// TestPluginLegsCheckSymbols is a regression test: an order carrying legs and no top-level
// symbol (Alpaca's place_option_order) skipped the symbol grant. Every leg's symbol, and an option's underlying root, must
// now be granted.
func TestPluginLegsCheckSymbols(t *testing.T) {
	leg := func(sym string) *jsonv.Object {
		return jsonv.ObjectOf("symbol", sym, "side", "buy", "ratio_qty", jsonv.Number("1"))
	}
	tests := []struct {
		name    string
		symbols string
		legs    any
		denied  string // "" = passes the symbol grant (the gate decides the rest)
	}{
		{"ungranted option root", `"MSFT"`, []any{leg("AAPL260116C00200000")}, "AAPL260116C00200000"},
		{"contract granted, root not", `"MSFT", "AAPL260116C00200000"`, []any{leg("AAPL260116C00200000")}, "underlying AAPL"},
		{"one of two legs ungranted", `"MSFT", "MSFT260116C00400000"`, []any{leg("MSFT260116C00400000"), leg("AAPL260116C00200000")}, "legs[1]"},
		{"leg without symbol", `"MSFT"`, []any{jsonv.ObjectOf("side", "buy", "ratio_qty", jsonv.Number("1"))}, "legs[0]"},
		{"legs not a list", `"MSFT"`, "MSFT", "not a list"},
		{"all granted", `"MSFT", "MSFT260116C00400000", "MSFT260116P00300000"`, []any{leg("MSFT260116C00400000"), leg("MSFT260116P00300000")}, ""},
	}
	for _, tt := range tests {
		_, turn, _ := grantFixture(t, tt.symbols)
		r := turn.Call(context.Background(), "place_option_order", map[string]any{"legs": tt.legs, "qty": "1", "order_class": "mleg", "type": "limit", "limit_price": "1"})
		if tt.denied == "" {
			if r.Code == engine.ReasonSymbolNotGranted {
				t.Errorf("%s: got %s %q, want past the symbol grant", tt.name, r.Code, r.Detail)
			}
			continue
		}
		if r.OK() || r.Code != engine.ReasonSymbolNotGranted || !strings.Contains(r.Detail, tt.denied) {
			t.Errorf("%s: got %s %s %q, want %s naming %q", tt.name, r.Status, r.Code, r.Detail, engine.ReasonSymbolNotGranted, tt.denied)
		}
	}
}
