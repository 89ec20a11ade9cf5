package readmodel

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/equitymark"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// paperAccounts is the store's view of saved paper accounts (store.DB).
type paperAccounts interface {
	LoadPaper(ctx context.Context, broker string) (*paper.State, bool, error)
}

// DayMark reads broker's durable day equity mark, the one the gate's loss limits use: the
// paper account keeps it in its saved header (read through the store), any other broker in
// live/<broker>/day_equity.json. found is false when none was ever taken.
func DayMark(root live.Root, ledger live.MandateLedger, key string) (live.EquityMark, bool, error) {
	if !live.IsPaperBroker(key) {
		return equitymark.Read(root, key)
	}
	ps, ok := ledger.(paperAccounts)
	if !ok {
		return live.EquityMark{}, false, fmt.Errorf("no store to read the paper account's day mark from")
	}
	st, found, err := ps.LoadPaper(context.Background(), key)
	if err != nil {
		return live.EquityMark{}, false, fmt.Errorf("the stored paper account is unreadable: %w", err)
	}
	if !found || st.DayStart == nil {
		return live.EquityMark{}, false, nil
	}
	return live.EquityMark{Day: st.DayStart.Day, Start: st.DayStart.Equity, Peak: money.Max(st.DayStart.Peak, st.DayStart.Equity)}, true, nil
}

// lossStatus is the status view of m's loss limits: each limit and the equity below which it
// halts, from the day's mark (status reads no broker; the gate and the session read the
// equity), and whether a loss limit's HALT stands.
func lossStatus(root live.Root, ledger live.MandateLedger, key string, m *live.Mandate, now time.Time) *jsonv.Object {
	o := jsonv.ObjectOf("day", live.UTCDay(now))
	mark, found, err := DayMark(root, ledger, key)
	today := found && err == nil && mark.Day == live.UTCDay(now)
	l := live.EvaluateLoss(m.Controls, mark, money.Max(mark.Peak, mark.Start), time.Time{})
	limits := make([]any, len(l.Gauges))
	for i, g := range l.Gauges {
		lo := jsonv.ObjectOf("limit", g.Limit, "limit_value", live.EncodeAmount(g.Value), "halt_below_equity", nil)
		if today {
			lo.Set("halt_below_equity", live.EncodeAmount(g.HaltBelow.Round(2)))
		}
		limits[i] = lo
	}
	o.Set("limits", limits)
	o.Set("day_start_equity", nil)
	o.Set("day_peak_equity", nil)
	if today {
		o.Set("day_start_equity", live.EncodeAmount(mark.Start))
		o.Set("day_peak_equity", live.EncodeAmount(money.Max(mark.Peak, mark.Start)))
	}
	if err != nil {
		o.Set("error", err.Error())
	}
	a, _ := halt.ReadSentinel(root, live.HaltSentinel, live.BrokerScope(key))
	o.Set("halted_by_loss_limit", a != nil && strings.HasPrefix(a.Reason, string(live.ReasonLossLimit)+":"))
	return o
}
