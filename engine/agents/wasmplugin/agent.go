package wasmplugin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"cockpit/engine"
	"cockpit/live"
)

// Audit kinds and reason codes of the plugin's lifecycle.
const (
	KindRefused  = "plugin_refused"  // the module was not loaded (not pinned, changed, over a ceiling)
	KindLoaded   = "plugin_loaded"   // the module was loaded: its hashes and the grants in force
	KindDisabled = "plugin_disabled" // the plugin gets no more ticks

	ReasonHashNotPinned    live.Reason = "plugin_hash_not_pinned"   // the module, the manifest or both
	ReasonHashMismatch     live.Reason = "plugin_hash_mismatch"     // the module changed
	ReasonManifestMismatch live.Reason = "plugin_manifest_mismatch" // the manifest changed (the module did not)
	ReasonManifestInvalid  live.Reason = "plugin_manifest_invalid"  // the pinned manifest does not parse or check
	ReasonOverCeiling      live.Reason = "plugin_over_ceiling"      // the manifest asks more than the operator allows
	ReasonTrapped          live.Reason = "plugin_trapped"
	ReasonOverBudget       live.Reason = "plugin_over_budget"
	ReasonUngrantedTool    live.Reason = "plugin_ungranted_tool"
	ReasonNoTickExported   live.Reason = "plugin_no_tick"
)

// InstantiateBudget is the time budget of an instantiation: the guest runtime's start-up
// and the plugin's init (a Go module takes about 100 ms), apart from the tick's own budget.
const InstantiateBudget = 10 * time.Second

// MaxOverruns is how many ticks may run out of their time budget before the plugin is
// disabled.
const MaxOverruns = 3

// Config loads one plugin.
type Config struct {
	File           string         // the .wasm module
	SHA256         string         // the pinned hex digest of File (from config); empty refuses to load
	Manifest       string         // the manifest ("" = FILE without .wasm + ".plugin.toml")
	ManifestSHA256 string         // the pinned hex digest of Manifest (from config); empty refuses to load
	Ceilings       Ceilings       // the operator's limits on the manifest (a zero field is its default)
	Audit          live.AuditSink // required: the load and the grants in force are recorded
	Session        string
	Broker         string
	Now            func() time.Time
	Log            *slog.Logger
}

// ManifestPath is where a module's manifest is expected when none is configured.
func ManifestPath(file string) string {
	return strings.TrimSuffix(file, ".wasm") + ".plugin.toml"
}

// Agent runs a WASM strategy plugin as an engine agent named plugin:NAME. Each engine turn
// is one tick under a fresh deadline; the instance lives across ticks until the runtime
// closes it (a deadline, a halt), and the next tick instantiates it again.
type Agent struct {
	cfg      Config
	man      Manifest
	sums     sums // the digests of the module and manifest bytes loaded
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	tickTime atomic.Int64 // the tick time in Unix nanoseconds, the plugin's only clock
	usage    window
	stderr   capped // what the guest wrote to stderr this tick (its panic message)

	turnMu sync.Mutex // one tick at a time; it guards mod
	mod    api.Module // the live instance, nil when it must be instantiated

	mu       sync.Mutex // guards the fields below, read by the screen while a tick runs
	ticks    int
	overruns int
	disabled string        // why the plugin gets no more ticks ("" while it runs)
	pages    uint32        // the instance's memory after the last tick, in 64 KiB pages
	peak     uint32        // the most pages any instance held
	lastTick time.Duration // the guest's own time in the last tick (host calls excluded)
	lastInst time.Duration // how long the last instantiation took
}

func (a *Agent) now() time.Time { return a.cfg.Now() }

func (a *Agent) log() *slog.Logger {
	if a.cfg.Log != nil {
		return a.cfg.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Name implements engine.Agent: the plugin's identity, plugin:NAME.
func (a *Agent) Name() string { return a.man.Agent() }

// Grant installs the manifest's grants as the plugin's policy layer (met with the others).
func (a *Agent) Grant(p *engine.Policies) {
	if p.Grants == nil {
		p.Grants = map[string]engine.Layer{}
	}
	p.Grants[a.Name()] = a.man.Layer()
}

// Manifest returns the plugin's manifest.
func (a *Agent) Manifest() Manifest { return a.man }

// Close releases the runtime and every instance.
func (a *Agent) Close(ctx context.Context) error { return a.rt.Close(ctx) }

// Disabled reports why the plugin gets no more ticks ("" while it runs).
func (a *Agent) Disabled() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.disabled
}

// Status is the plugin's line for the screen: its identity, grants and usage against them,
// or why it is disabled.
func (a *Agent) Status() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.disabled != "" {
		return fmt.Sprintf("%s DISABLED: %s", a.Name(), a.disabled)
	}
	line := fmt.Sprintf("%s calls %d/%d/min mem %d/%dp tick %s/%s", a.Name(), a.usage.count(a.now()), a.man.CallsPerMinute,
		a.pages, a.man.MemoryPages, a.lastTick.Round(100*time.Microsecond), a.man.Budget())
	if a.overruns > 0 {
		line += fmt.Sprintf(" overruns %d/%d", a.overruns, MaxOverruns)
	}
	return line
}

// Turn implements engine.Agent: one tick of the plugin under a fresh deadline.
func (a *Agent) Turn(ctx context.Context, t *engine.Turn) error {
	a.turnMu.Lock()
	defer a.turnMu.Unlock()
	if a.Disabled() != "" {
		return nil
	}
	a.tickTime.Store(a.now().UnixNano())
	tk := &tick{a: a, ctx: ctx, turn: t}
	a.stderr.reset()
	base := context.WithValue(ctx, tickKey{}, tk)
	var inst time.Duration
	var err error
	if a.mod == nil || a.mod.IsClosed() {
		// Instantiation (the guest runtime's start-up and its init) has its own budget.
		instCtx, cancel := context.WithCancel(base)
		tk.stop, tk.budget = cancel, newBudget(InstantiateBudget, cancel)
		inst, err = a.ensure(instCtx)
		tk.budget.end()
		cancel()
	}
	tickCtx, cancel := context.WithCancel(base)
	defer cancel()
	if err == nil {
		tk.stop, tk.budget = cancel, newBudget(a.man.Budget(), cancel)
		_, err = a.mod.ExportedFunction("tick").Call(tickCtx)
		tk.budget.end()
	}
	took := tk.budget.used()
	a.mu.Lock()
	a.ticks++
	a.lastTick = took
	if inst > 0 {
		a.lastInst = inst
	}
	if a.mod != nil && a.mod.Memory() != nil {
		a.pages = a.mod.Memory().Size() / 65536
		a.peak = max(a.peak, a.pages)
	}
	a.mu.Unlock()
	if tk.dropped > 0 {
		a.log().Warn("plugin log lines dropped", "agent", a.Name(), "turn", t.N, "dropped", tk.dropped)
	}
	return a.settle(ctx, tk, err)
}

// ensure instantiates the module when no live instance is left, and runs its optional init.
// It reports how long the instantiation took (0 when the instance was reused).
func (a *Agent) ensure(ctx context.Context) (time.Duration, error) {
	if a.mod != nil && !a.mod.IsClosed() {
		return 0, nil
	}
	start := time.Now()
	mod, err := a.rt.InstantiateModule(ctx, a.compiled, a.moduleConfig())
	took := time.Since(start)
	if err != nil {
		return took, err
	}
	a.log().Info("plugin instantiated", "agent", a.Name(), "took", took)
	a.mod = mod
	if init := mod.ExportedFunction("init"); init != nil {
		_, err = init.Call(ctx)
	}
	return took, err
}

// moduleConfig is the sandbox of one instance: no preopened directories, no environment,
// no arguments, no stdio, and clocks that read the tick time.
func (a *Agent) moduleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize").
		WithWalltime(a.walltime, 1).WithNanotime(a.nanotime, 1).WithStderr(&a.stderr)
}

// PeakPages is the most memory, in 64 KiB pages, any instance of the plugin held.
func (a *Agent) PeakPages() uint32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.peak
}

// Instantiated reports how long the last instantiation of the module took.
func (a *Agent) Instantiated() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastInst
}

// walltime is WASI's realtime clock for the plugin: the tick time, never the host's clock.
func (a *Agent) walltime() (int64, int32) {
	ns := a.tickTime.Load()
	return ns / 1e9, int32(ns % 1e9)
}

// nanotime is WASI's monotonic clock for the plugin: the tick time as well (it does not
// advance within a tick). It is never 0: the Go runtime refuses to start on a zero clock.
func (a *Agent) nanotime() int64 { return max(a.tickTime.Load(), 1) }

// settle reads how a tick ended: an ungranted tool, a trap or three overruns disable the
// plugin (audited, and returned so the engine shows it); a halt or shutdown is not the
// plugin's fault.
func (a *Agent) settle(ctx context.Context, tk *tick, err error) error {
	if a.mod != nil && a.mod.IsClosed() {
		a.mod = nil
	}
	switch {
	case tk.refused != "":
		return a.disable(ctx, ReasonUngrantedTool, fmt.Sprintf("called %s, which its manifest does not grant", tk.refused))
	case err == nil:
		return nil
	case ctx.Err() != nil:
		a.closeInstance(ctx)
		return nil // the turn was stopped (halt, shutdown): the instance is rebuilt next tick
	case tk.budget.spent.Load() || tk.flood:
		a.closeInstance(ctx)
		a.mu.Lock()
		a.overruns++
		n := a.overruns
		a.mu.Unlock()
		what := fmt.Sprintf("ran out of its %s tick budget", a.man.Budget())
		if tk.flood {
			what = fmt.Sprintf("made more than its %d calls per minute in one tick", a.man.CallsPerMinute)
		}
		if n >= MaxOverruns {
			return a.disable(ctx, ReasonOverBudget, fmt.Sprintf("%s (%d times)", what, n))
		}
		return fmt.Errorf("plugin %s %s (%d of %d before it is disabled)", a.Name(), what, n, MaxOverruns)
	}
	why := "trapped: " + firstLine(err.Error())
	if said := a.stderr.String(); said != "" {
		why += " (it wrote: " + firstLine(said) + ")"
	}
	return a.disable(ctx, ReasonTrapped, why)
}

func (a *Agent) closeInstance(ctx context.Context) {
	if a.mod != nil {
		a.mod.Close(context.WithoutCancel(ctx))
		a.mod = nil
	}
}

// disable stops the plugin for good: no more ticks; the refusal is audited and returned.
func (a *Agent) disable(ctx context.Context, code live.Reason, why string) error {
	a.mu.Lock()
	a.disabled = why
	a.mu.Unlock()
	a.closeInstance(ctx)
	msg := fmt.Sprintf("plugin %s disabled: %s", a.Name(), why)
	a.audit(ctx, KindDisabled, code, msg)
	a.log().Error("plugin disabled", "agent", a.Name(), "reason", string(code), "why", why)
	return errors.New(msg)
}
