package gate

import (
	"context"
	"strings"
	"sync"

	"cockpit/live"
)

// cancelWorkers is how many cancels a flatten has in flight at once: their audit records
// share commits (the store's group commit), so 1,000 resting orders cost far fewer fsyncs
// than one after another, while a broker sees no burst it could mistake for abuse.
const cancelWorkers = 8

// cancelAll cancels every resting order, cancelWorkers at a time, each through Cancel (audited,
// never retried). Progress is reported as each finishes; the report lists them in the order
// the broker gave them. An order without a readable id is never cancelled (DV16).
func (g *Gate) cancelAll(ctx context.Context, b live.Broker, key string, orders []live.Order, opts FlattenOptions, rep *FlattenReport, progress func(FlattenProgress)) {
	results := make([]*Decision, len(orders))
	var mu sync.Mutex
	done := 0
	report := func(p FlattenProgress) {
		mu.Lock()
		defer mu.Unlock()
		done++
		p.Done, p.Total = done, len(orders)
		progress(p)
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(cancelWorkers, len(orders)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				o := orders[i]
				d := g.Cancel(ctx, b, key, o.ID, opts.Actor)
				results[i] = &d
				report(FlattenProgress{Phase: PhaseCancel, Item: o.ID, OK: d.BrokerErr == nil, Err: errText(d.BrokerErr, "")})
			}
		}()
	}
	for i, o := range orders {
		if strings.TrimSpace(o.ID) == "" { // DV16: no cancel with an empty id; the order stays stranded
			report(FlattenProgress{Phase: PhaseCancel, Item: unidentifiedItem(o), Err: errUnidentified})
			continue
		}
		work <- i
	}
	close(work)
	wg.Wait()
	for i, o := range orders {
		d := results[i]
		switch {
		case d == nil:
			item := unidentifiedItem(o)
			rep.Unidentified = append(rep.Unidentified, item)
			rep.Errors = append(rep.Errors, FlattenError{Phase: PhaseCancel, Item: item, Err: errUnidentified})
		case d.BrokerErr != nil:
			rep.Errors = append(rep.Errors, FlattenError{Phase: PhaseCancel, Item: o.ID, Err: d.BrokerErr.Error()})
		default:
			rep.Cancelled = append(rep.Cancelled, o.ID)
		}
	}
}
