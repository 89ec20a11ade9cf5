package wasmplugin

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"cockpit/engine"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
)

// HostModule is the name of the module a plugin imports its host functions from.
const HostModule = "cockpit"

// Error codes the host functions return instead of a length (see doc.go).
const (
	ErrBadMemory = -1 // a pointer or length outside the guest's memory, or too long
	ErrStopped   = -2 // the plugin is being stopped (disabled, or no tick in progress)
)

// Input limits.
const (
	maxArgs   = 64 << 10 // bytes of JSON arguments
	maxName   = 64       // bytes of a tool name or a symbol
	maxLogLen = 300      // characters of one log line kept
	maxLogs   = 10       // log lines per tick; the rest are counted and dropped
)

// tick is the host's state for the tick in progress, carried in the call's context.
type tick struct {
	a       *Agent
	ctx     context.Context // the engine turn's context: tool calls run under it
	turn    *engine.Turn
	stop    context.CancelFunc // ends the tick (the runtime then closes the module)
	result  []byte             // the last result, read by result()
	calls   int
	logs    int
	dropped int
	refused string // an ungranted tool the plugin called: it is disabled
	budget  *budget
	flood   bool // more calls in this tick than the manifest grants per minute: stopped
}

type tickKey struct{}

func tickOf(ctx context.Context) *tick {
	t, _ := ctx.Value(tickKey{}).(*tick)
	if t == nil || t.refused != "" || t.flood {
		return nil
	}
	return t
}

// instantiateHost registers the cockpit host module on r.
func instantiateHost(ctx context.Context, r wazero.Runtime) error {
	b := r.NewHostModuleBuilder(HostModule)
	fn := func(name string, f api.GoModuleFunc, params, results []api.ValueType) {
		b.NewFunctionBuilder().WithGoModuleFunction(f, params, results).Export(name)
	}
	// Host calls that reach the engine stop the plugin's clock while they run.
	engineCall := func(f api.GoModuleFunc) api.GoModuleFunc {
		return func(ctx context.Context, m api.Module, stack []uint64) {
			if t, _ := ctx.Value(tickKey{}).(*tick); t != nil && t.budget != nil {
				t.budget.pause()
				defer t.budget.resume()
			}
			f(ctx, m, stack)
		}
	}
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	fn("now", hostNow, nil, []api.ValueType{i64})
	fn("quote", engineCall(hostQuote), []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("bars", engineCall(hostBars), []api.ValueType{i32, i32, i32}, []api.ValueType{i32})
	fn("positions", engineCall(hostPositions), nil, []api.ValueType{i32})
	fn("open_orders", engineCall(hostOpenOrders), nil, []api.ValueType{i32})
	fn("call_tool", engineCall(hostCallTool), []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32})
	fn("result", hostResult, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("log", hostLog, []api.ValueType{i32, i32}, nil)
	_, err := b.Instantiate(ctx)
	return err
}

// read copies n bytes of guest memory at p, or reports that they are out of range.
func read(m api.Module, p, n uint32, limit int) ([]byte, bool) {
	if int(n) > limit {
		return nil, false
	}
	b, ok := m.Memory().Read(p, n)
	if !ok {
		return nil, false
	}
	return append([]byte(nil), b...), true
}

func ret(stack []uint64, v int32) { stack[0] = api.EncodeI32(v) }

// hostNow returns the tick time the host passed, in Unix nanoseconds (0 outside a tick).
func hostNow(ctx context.Context, _ api.Module, stack []uint64) {
	t, _ := ctx.Value(tickKey{}).(*tick)
	if t == nil {
		stack[0] = 0
		return
	}
	stack[0] = api.EncodeI64(t.a.tickTime.Load())
}

func hostQuote(ctx context.Context, m api.Module, stack []uint64) {
	t := tickOf(ctx)
	sym, ok := read(m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), maxName)
	switch {
	case t == nil:
		ret(stack, ErrStopped)
	case !ok:
		ret(stack, ErrBadMemory)
	default:
		ret(stack, t.call("get_quote", map[string]any{"symbol": string(sym)}, ""))
	}
}

func hostBars(ctx context.Context, m api.Module, stack []uint64) {
	t := tickOf(ctx)
	sym, ok := read(m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), maxName)
	switch {
	case t == nil:
		ret(stack, ErrStopped)
	case !ok:
		ret(stack, ErrBadMemory)
	default:
		ret(stack, t.call("get_bars", map[string]any{"symbol": string(sym), "count": int64(api.DecodeI32(stack[2]))}, ""))
	}
}

func hostPositions(ctx context.Context, _ api.Module, stack []uint64) {
	if t := tickOf(ctx); t != nil {
		ret(stack, t.call("get_positions", nil, "positions"))
		return
	}
	ret(stack, ErrStopped)
}

func hostOpenOrders(ctx context.Context, _ api.Module, stack []uint64) {
	if t := tickOf(ctx); t != nil {
		ret(stack, t.call("get_open_orders", nil, "orders"))
		return
	}
	ret(stack, ErrStopped)
}

func hostCallTool(ctx context.Context, m api.Module, stack []uint64) {
	t := tickOf(ctx)
	name, ok1 := read(m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), maxName)
	args, ok2 := read(m, api.DecodeU32(stack[2]), api.DecodeU32(stack[3]), maxArgs)
	switch {
	case t == nil:
		ret(stack, ErrStopped)
	case !ok1 || !ok2:
		ret(stack, ErrBadMemory)
	default:
		ret(stack, t.callRaw(string(name), args))
	}
}

// hostResult copies the last result into the guest's buffer (at most cap bytes) and
// returns how many bytes it wrote.
func hostResult(ctx context.Context, m api.Module, stack []uint64) {
	t, _ := ctx.Value(tickKey{}).(*tick)
	p, n := api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	if t == nil {
		ret(stack, ErrStopped)
		return
	}
	out := t.result
	if uint32(len(out)) > n {
		out = out[:n]
	}
	if !m.Memory().Write(p, out) {
		ret(stack, ErrBadMemory)
		return
	}
	ret(stack, int32(len(out)))
}

// hostLog writes one line to cockpit.log: redacted, cut to maxLogLen, at most maxLogs a tick.
func hostLog(ctx context.Context, m api.Module, stack []uint64) {
	t := tickOf(ctx)
	b, ok := read(m, api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), maxArgs)
	if t == nil || !ok {
		return
	}
	if t.logs >= maxLogs {
		t.dropped++
		return
	}
	t.logs++
	line := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "?")), " ")
	if r := []rune(line); len(r) > maxLogLen {
		line = string(r[:maxLogLen]) + "…"
	}
	t.a.log().Info("plugin log", "agent", t.a.Name(), "turn", t.turn.N, "text", redact.Secrets(line))
}

// call runs a host read through the engine's chokepoint; keep filters a list in the data
// to the plugin's granted symbols.
func (t *tick) call(tool string, args map[string]any, keep string) int32 {
	if !t.count() {
		return ErrStopped
	}
	r := t.turn.Call(t.ctx, tool, args)
	if keep != "" && r.OK() {
		r.Data = t.a.onlyGranted(r.Data, keep)
	}
	return t.set(r)
}

// callRaw runs call_tool: every call goes through the chokepoint under the plugin's
// identity, so an ungranted tool is denied and audited there, naming the grant; then the
// plugin is stopped and disabled.
func (t *tick) callRaw(tool string, args []byte) int32 {
	if !t.count() {
		return ErrStopped
	}
	r := t.turn.CallRaw(t.ctx, tool, args)
	if !t.a.man.Granted(tool) {
		t.refused = tool
		t.stop()
	}
	if r.OK() && (tool == "get_positions" || tool == "get_open_orders") {
		key := map[string]string{"get_positions": "positions", "get_open_orders": "orders"}[tool]
		r.Data = t.a.onlyGranted(r.Data, key)
	}
	return t.set(r)
}

// count admits one more call in this tick; a tick that makes more calls than the manifest
// grants per minute is a runaway: it is stopped and counts as an overrun.
func (t *tick) count() bool {
	if t.calls >= int(t.a.man.CallsPerMinute) {
		t.flood = true
		t.stop()
		return false
	}
	t.calls++
	t.a.usage.add(t.a.now())
	return true
}

func (t *tick) set(r engine.Result) int32 {
	b, err := jsonv.Marshal(r.JSON(), jsonv.Compact)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"status":"error","decision":"deny","detail":%q}`, err.Error()))
	}
	t.result = b
	return int32(len(b))
}

// onlyGranted keeps the entries of data[key] whose symbol the manifest grants.
func (a *Agent) onlyGranted(data any, key string) any {
	o, ok := data.(*jsonv.Object)
	if !ok {
		return data
	}
	v, _ := o.Get(key)
	arr, _ := v.([]any)
	kept := []any{}
	for _, x := range arr {
		if xo, ok := x.(*jsonv.Object); ok {
			s, _ := xo.Get("symbol")
			if sym, _ := s.(string); a.man.GrantSymbol(sym) {
				kept = append(kept, x)
			}
		}
	}
	out := jsonv.NewObject()
	for _, mem := range o.Members() {
		out.Set(mem.Key, mem.Value)
	}
	out.Set(key, kept)
	return out
}
