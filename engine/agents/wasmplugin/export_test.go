package wasmplugin

import (
	"context"

	"cockpit/engine"
)

// CallExport calls one of the module's exports inside a tick of turn t, with no budget (for
// benchmarks of the host calls).
func (a *Agent) CallExport(ctx context.Context, t *engine.Turn, name string, params ...uint64) error {
	a.turnMu.Lock()
	defer a.turnMu.Unlock()
	tk := &tick{a: a, ctx: ctx, turn: t, stop: func() {}}
	c := context.WithValue(ctx, tickKey{}, tk)
	if _, err := a.ensure(c); err != nil {
		return err
	}
	_, err := a.mod.ExportedFunction(name).Call(c, params...)
	return err
}

// InstantiateOnce instantiates the compiled module in a fresh sandbox and closes it.
func (a *Agent) InstantiateOnce(ctx context.Context) error {
	mod, err := a.rt.InstantiateModule(ctx, a.compiled, a.moduleConfig())
	if err != nil {
		return err
	}
	return mod.Close(ctx)
}

// LastTick is the guest's own time in the last tick.
func (a *Agent) LastTick() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return float64(a.lastTick.Nanoseconds())
}
