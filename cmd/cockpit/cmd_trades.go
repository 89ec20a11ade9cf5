package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/store"
)

// feesNote says where fees come from: no adapter reports one today.
const feesNote = "Fees: as the broker reports them; the paper broker charges none, Alpaca's trade updates and the MCP servers' order rows carry none (0)."

// cmdTrades lists a UTC day's fills from the audit trail and the round trips they closed.
func (a *App) cmdTrades(args []string) int {
	p, fs := a.preamble("trades")
	p.withBroker("", "only this broker's fills (default: every broker's)")
	dayFlag := fs.String("day", "", "the UTC day, YYYY-MM-DD (default: today)")
	asJSON := fs.Bool("json", false, "one JSON document")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	day := a.Now().UTC()
	if *dayFlag != "" {
		d, err := time.Parse(time.DateOnly, *dayFlag)
		if err != nil {
			return a.usageErr(fs, "--day %q: want a UTC day as YYYY-MM-DD, e.g. %s", *dayFlag, day.Format(time.DateOnly))
		}
		day = d
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	dt, err := rt.DB.DayTrades(context.Background(), day, p.key)
	if err != nil {
		return a.failf("trades: %v", err)
	}
	if *asJSON {
		a.printJSON(tradesJSON(dt))
		return exitOK
	}
	a.printTrades(dt)
	return exitOK
}

// cmdPnL prints daily realised and unrealised P&L from the audit trail.
func (a *App) cmdPnL(args []string) int {
	p, fs := a.preamble("pnl")
	p.withBroker("", "only this broker's fills (default: every broker's)")
	days := fs.Int("days", 7, fmt.Sprintf("how many UTC days, today the last (1 to %d)", store.MaxPnLDays))
	asJSON := fs.Bool("json", false, "one JSON document")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *days < 1 || *days > store.MaxPnLDays {
		return a.usageErr(fs, "--days %d: want 1 to %d", *days, store.MaxPnLDays)
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	out, err := rt.DB.DailyPnL(context.Background(), a.Now(), *days, p.key)
	if err != nil {
		return a.failf("pnl: %v", err)
	}
	if *asJSON {
		a.printJSON(pnlJSON(out, p.key))
		return exitOK
	}
	a.printPnL(out, p.key)
	return exitOK
}

// scope names the brokers a view covers.
func scope(broker string) string {
	if broker == "" {
		return "every broker"
	}
	return "broker " + cell(broker)
}

func (a *App) printTrades(dt store.DayTrades) {
	w := a.Stdout
	fmt.Fprintf(w, "Trades on %s (UTC), %s: fills from the audit trail, round trips matched FIFO per broker and symbol\n",
		dt.Day.Format(time.DateOnly), scope(dt.Broker))
	if len(dt.Trades) == 0 {
		fmt.Fprintln(w, "No fills that day.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tBROKER\tSYMBOL\tSIDE\tQTY\tPRICE\tFEE\tORDER\tREALISED\tPOSITION")
	for _, t := range dt.Trades {
		px, closed, realised, pos := dt.Cells(t)
		if closed {
			realised = signed(t.Realized)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Time.Format("15:04:05"), cell(t.Broker), cell(t.Symbol),
			cell(t.Side), t.Qty, px, t.Fee, cell(live.FillOrderKey(t.OrderID, t.ClientOrderID)), realised, pos)
	}
	tw.Flush()
	if len(dt.Trips) > 0 {
		fmt.Fprintln(w, "\nRound trips (FIFO: each closing fill takes the oldest open lot first)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SYMBOL\tSIDE\tQTY\tOPENED\tOPEN\tCLOSED\tCLOSE\tFEES\tNET")
		for _, rt := range dt.Trips {
			side := "long"
			if !rt.Long {
				side = "short"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(rt.Symbol), side, rt.Qty, openedAt(rt.OpenTime, dt.Day),
				rt.OpenPrice, rt.CloseTime.Format("15:04:05"), rt.ClosePrice, rt.Fees, signed(rt.Net))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\n%d fills, %d round trips: realised %s (gross %s, fees of the round trips %s); fees paid that day %s\n",
		len(dt.Trades), len(dt.Trips), signed(dt.Realized), signed(dt.Gross), dt.Gross.Sub(dt.Realized), dt.Fees)
	if dt.NotApplied > 0 {
		fmt.Fprintf(w, "%d fills left out of the lots (a repeat, no price, or unreadable): see `cockpit audit list --type fill`\n", dt.NotApplied)
	}
	fmt.Fprintln(w, feesNote)
}

// openedAt is a lot's opening time: the clock on the day shown, the date and clock before it.
func openedAt(t, day time.Time) string {
	if store.UTCDay(t).Equal(day) {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}

func tradesJSON(dt store.DayTrades) *jsonv.Object {
	fills := make([]any, 0, len(dt.Trades))
	for _, t := range dt.Trades {
		px := any(nil)
		if t.Price.Sign() > 0 {
			px = live.EncodeAmount(t.Price)
		}
		fills = append(fills, jsonv.ObjectOf("seq", jsonv.Number(fmt.Sprint(t.Seq)), "time", live.FormatTimestamp(t.Time),
			"broker", t.Broker, "symbol", t.Symbol, "side", t.Side, "qty", live.EncodeAmount(t.Qty), "price", px,
			"fee", live.EncodeAmount(t.Fee), "order_id", t.OrderID, "client_order_id", t.ClientOrderID, "state", t.State,
			"realized", live.EncodeAmount(t.Realized), "position", live.EncodeAmount(t.Position)))
	}
	trips := make([]any, 0, len(dt.Trips))
	for _, rt := range dt.Trips {
		side := "long"
		if !rt.Long {
			side = "short"
		}
		trips = append(trips, jsonv.ObjectOf("broker", rt.Broker, "symbol", rt.Symbol, "side", side, "qty", live.EncodeAmount(rt.Qty),
			"open_seq", jsonv.Number(fmt.Sprint(rt.OpenSeq)), "open_time", live.FormatTimestamp(rt.OpenTime), "open_price", live.EncodeAmount(rt.OpenPrice),
			"close_seq", jsonv.Number(fmt.Sprint(rt.CloseSeq)), "close_time", live.FormatTimestamp(rt.CloseTime), "close_price", live.EncodeAmount(rt.ClosePrice),
			"fees", live.EncodeAmount(rt.Fees), "gross", live.EncodeAmount(rt.Gross), "net", live.EncodeAmount(rt.Net)))
	}
	return jsonv.ObjectOf("day", dt.Day.Format(time.DateOnly), "broker", optString(dt.Broker), "lots", "fifo",
		"fills", fills, "round_trips", trips, "realized", live.EncodeAmount(dt.Realized), "gross", live.EncodeAmount(dt.Gross),
		"fees", live.EncodeAmount(dt.Fees), "not_applied", jsonv.Number(fmt.Sprint(dt.NotApplied)))
}

func (a *App) printPnL(days []store.DayPnL, broker string) {
	w := a.Stdout
	fmt.Fprintf(w, "Daily P&L from the audit trail (UTC days), %s\n", scope(broker))
	fmt.Fprintln(w, "realised: round trips matched FIFO, net of fees; unrealised: positions open at the day's end, each at its symbol's last fill price")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DAY\tFILLS\tREALISED\tFEES\tUNREALISED\tOPEN AT THE DAY'S END")
	total := money.Zero
	left := 0
	for _, d := range days {
		var open []string
		for _, p := range d.Open {
			s := fmt.Sprintf("%s %s @ %s", cell(p.Symbol), p.Qty, p.Mark)
			if broker == "" {
				s = cell(p.Broker) + ":" + s
			}
			open = append(open, s)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", d.Day.Format(time.DateOnly), d.Fills, signed(d.Realized), d.Fees,
			signed(d.Unrealized), strings.Join(open, ", "))
		total, left = total.Add(d.Realized), left+d.NotApplied
	}
	tw.Flush()
	span := fmt.Sprintf("%d days", len(days))
	if len(days) == 1 {
		span = "the day"
	}
	fmt.Fprintf(w, "Realised over %s: %s\n", span, signed(total))
	if left > 0 {
		fmt.Fprintf(w, "%d fills left out of the lots (a repeat, no price, or unreadable): see `cockpit audit list --type fill`\n", left)
	}
	fmt.Fprintln(w, feesNote)
}

func pnlJSON(days []store.DayPnL, broker string) *jsonv.Object {
	list := make([]any, 0, len(days))
	for _, d := range days {
		open := make([]any, 0, len(d.Open))
		for _, p := range d.Open {
			open = append(open, jsonv.ObjectOf("broker", p.Broker, "symbol", p.Symbol, "qty", live.EncodeAmount(p.Qty),
				"mark", live.EncodeAmount(p.Mark), "mark_time", live.FormatTimestamp(p.MarkTime), "unrealized", live.EncodeAmount(p.Unrealized)))
		}
		list = append(list, jsonv.ObjectOf("day", d.Day.Format(time.DateOnly), "fills", jsonv.Number(fmt.Sprint(d.Fills)),
			"realized", live.EncodeAmount(d.Realized), "fees", live.EncodeAmount(d.Fees), "unrealized", live.EncodeAmount(d.Unrealized),
			"open", open, "not_applied", jsonv.Number(fmt.Sprint(d.NotApplied))))
	}
	return jsonv.ObjectOf("broker", optString(broker), "lots", "fifo", "mark", "last_fill_price", "days", list)
}

// optString is s, or JSON null when it is empty.
func optString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
