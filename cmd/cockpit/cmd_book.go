package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"text/tabwriter"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/session"
)

// book is what `positions` and `orders` show: the broker's answer, or, while a running
// cockpit owns the paper account, its last saved state read from the store (not marked to
// market: no prices, nothing simulated, nothing written).
type book struct {
	positions []live.Position
	orders    []live.Order
	saved     bool // read from the store's saved paper state
}

// cmdPositions prints the broker's positions (a table, or --json).
func (a *App) cmdPositions(args []string) int { return a.bookVerb("positions", args) }

// cmdOrders prints the broker's resting orders (a table, or --json).
func (a *App) cmdOrders(args []string) int { return a.bookVerb("orders", args) }

func (a *App) bookVerb(name string, args []string) int {
	p, fs := a.preamble(name)
	p.withBroker(live.PaperBroker, "broker account to read")
	asJSON := fs.Bool("json", false, "a JSON array, one element per line")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	bk, err := readBook(rt, p.key)
	if err != nil {
		return a.failf("%v", err)
	}
	if bk.saved && !*asJSON {
		fmt.Fprintf(a.Stdout, "a running cockpit owns the %s account: its last saved state, not marked to market (use its screen for live values)\n", p.key)
	}
	if name == "positions" {
		a.printPositions(bk, *asJSON)
	} else {
		a.printOrders(bk, *asJSON)
	}
	return exitOK
}

// readBook asks the broker the way `check --live` does; when a running cockpit owns the
// paper account, it reads the account's saved state from the store instead.
func readBook(rt *runtime, key string) (book, error) {
	b, release, err := rt.openBroker(key)
	if errors.Is(err, session.ErrAccountInUse) {
		return savedBook(rt, key)
	}
	if err != nil {
		return book{}, err
	}
	defer release()
	ctx := context.Background()
	pos, err := b.Positions(ctx)
	if err != nil {
		return book{}, fmt.Errorf("positions: %w", err)
	}
	ords, err := b.OpenOrders(ctx)
	if err != nil {
		return book{}, fmt.Errorf("open orders: %w", err)
	}
	sort.Slice(pos, func(i, j int) bool { return pos[i].Symbol < pos[j].Symbol })
	return book{positions: pos, orders: ords}, nil
}

// savedBook reads the paper account's saved state (read-only).
func savedBook(rt *runtime, key string) (book, error) {
	st, found, err := rt.DB.LoadPaper(context.Background(), key)
	if err != nil || !found {
		return book{saved: true}, err
	}
	bk := book{saved: true}
	for sym, p := range st.Positions {
		if p != nil && !p.Qty.IsZero() {
			bk.positions = append(bk.positions, live.Position{Symbol: sym, Qty: p.Qty, AvgPrice: p.Avg, RealizedPnL: p.Realized})
		}
	}
	sort.Slice(bk.positions, func(i, j int) bool { return bk.positions[i].Symbol < bk.positions[j].Symbol })
	for _, o := range st.Orders {
		if o != nil && o.Status.Open() {
			bk.orders = append(bk.orders, *o)
		}
	}
	sort.Slice(bk.orders, func(i, j int) bool { return bk.orders[i].ID < bk.orders[j].ID })
	return bk, nil
}

func (a *App) printPositions(bk book, asJSON bool) {
	if asJSON {
		list := a.jsonList()
		for _, p := range bk.positions {
			var qty any = live.EncodeAmount(p.Qty)
			if p.QtyUnknown { // the broker gave a value and no quantity
				qty = nil
			}
			o := jsonv.ObjectOf("symbol", p.Symbol, "qty", qty, "avg_price", live.EncodeAmount(p.AvgPrice),
				"realized_pnl", live.EncodeAmount(p.RealizedPnL), "marked", !bk.saved)
			if !bk.saved {
				o.Set("market_value", live.EncodeAmount(p.MarketValue))
				o.Set("unrealized_pnl", live.EncodeAmount(p.UnrealizedPnL))
			}
			list.add(o)
		}
		list.end()
		return
	}
	if len(bk.positions) == 0 {
		fmt.Fprintln(a.Stdout, "no open positions")
		return
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SYMBOL\tQTY\tAVG\tVALUE\tuPnL\trPnL\t")
	for _, p := range bk.positions {
		value, upnl := "-", "-"
		if !bk.saved {
			value, upnl = p.MarketValue.Round(2).String(), signed(p.UnrealizedPnL.Round(2))
		}
		qty := p.Qty.String()
		if p.QtyUnknown {
			qty = "?"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", cell(p.Symbol), qty, p.AvgPrice.Round(4), value, upnl, signed(p.RealizedPnL.Round(2)))
	}
	tw.Flush()
}

func (a *App) printOrders(bk book, asJSON bool) {
	if asJSON {
		list := a.jsonList()
		defer list.end()
		for _, o := range bk.orders {
			list.add(jsonv.ObjectOf("id", o.ID, "client_order_id", o.ClientOrderID, "symbol", o.Symbol, "side", o.Side,
				"type", string(o.Type), "qty", optAmount(o.Quantity), "notional", optAmount(o.Notional),
				"limit_price", optAmount(o.LimitPrice), "filled_qty", live.EncodeAmount(o.FilledQty), "status", string(o.Status),
				"reduce_only", o.ReduceOnly, "created_at", live.FormatTimestamp(o.CreatedAt)))
		}
		return
	}
	if len(bk.orders) == 0 {
		fmt.Fprintln(a.Stdout, "no resting orders")
		return
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSYMBOL\tSIDE\tTYPE\tSIZE\tLIMIT\tFILLED\tSTATUS\tCREATED")
	for _, o := range bk.orders {
		size := "-"
		if o.Quantity != nil {
			size = o.Quantity.String()
		} else if o.Notional != nil {
			size = "$" + o.Notional.String()
		}
		limit := "-"
		if o.LimitPrice != nil {
			limit = o.LimitPrice.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(o.ID), cell(o.Symbol), cell(o.Side), cell(string(o.Type)), size, limit,
			o.FilledQty, cell(string(o.Status)), o.CreatedAt.UTC().Format("2006-01-02 15:04:05"))
	}
	tw.Flush()
}

func optAmount(a *money.Amount) any {
	if a == nil {
		return nil
	}
	return live.EncodeAmount(*a)
}

func signed(a money.Amount) string {
	if a.Sign() > 0 {
		return "+" + a.String()
	}
	return a.String()
}
