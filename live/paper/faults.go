package paper

import (
	"context"
	"fmt"
	"sync"
	"time"

	"cockpit/live"
)

// FaultKind is what an injected fault does to one call.
type FaultKind int

// Fault kinds.
const (
	NoFault       FaultKind = iota
	ErrorReply              // the broker answers with an error (a rejection for orders)
	TimeoutBefore           // the call times out before the broker sees it (indeterminate to the caller)
	TimeoutAfter            // the broker acts, then the reply is lost (indeterminate to the caller)
)

// Faults injects latency, error replies, timeouts and rejected cancels, for tests. Calls are
// numbered from 1 across every operation, in the order they arrive.
type Faults struct {
	Latency       time.Duration
	Plan          func(op string, call int) FaultKind
	RejectCancels map[string]bool // order ids whose cancel is rejected
	RejectAll     bool            // every cancel is rejected

	mu    sync.Mutex
	calls int
	log   []string
}

// EveryNth plans kind for every n-th call.
func EveryNth(n int, kind FaultKind) func(string, int) FaultKind {
	return func(_ string, call int) FaultKind {
		if n > 0 && call%n == 0 {
			return kind
		}
		return NoFault
	}
}

// Calls returns "op:kind" for every call so far, for test assertions.
func (f *Faults) Calls() []string {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

type fault struct {
	kind    FaultKind
	op      string
	latency time.Duration
}

func (f *Faults) next(op string) fault {
	if f == nil {
		return fault{op: op}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	k := NoFault
	if f.Plan != nil {
		k = f.Plan(op, f.calls)
	}
	f.log = append(f.log, fmt.Sprintf("%s:%d", op, k))
	return fault{kind: k, op: op, latency: f.Latency}
}

// before is next + pre for calls that have no "after" (reads).
func (f *Faults) before(ctx context.Context, op string) error {
	ft := f.next(op)
	if err := ft.pre(ctx); err != nil {
		return err
	}
	if ft.kind == TimeoutAfter {
		return live.Transport(fmt.Errorf("injected timeout on %s", op))
	}
	return nil
}

// pre runs the latency and the faults that strike before the broker acts.
func (ft fault) pre(ctx context.Context) error {
	if ft.latency > 0 {
		select {
		case <-ctx.Done():
			return live.Transport(ctx.Err())
		case <-time.After(ft.latency):
		}
	}
	switch ft.kind {
	case ErrorReply:
		if ft.op == "place_order" || ft.op == "cancel_order" {
			return live.Rejected("injected error reply")
		}
		return live.Transport(fmt.Errorf("injected error reply on %s", ft.op))
	case TimeoutBefore:
		return live.Indeterminate(fmt.Errorf("injected timeout before %s reached the broker", ft.op))
	}
	return nil
}

// post runs the faults that strike after the broker acted.
func (ft fault) post() error {
	if ft.kind == TimeoutAfter {
		return live.Indeterminate(fmt.Errorf("injected timeout: %s reply lost", ft.op))
	}
	return nil
}

func (f *Faults) rejectsCancel(id string) bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.RejectAll || f.RejectCancels[id]
}
