// Package wasmplugin runs an untrusted strategy plugin — a WebAssembly module (WASI preview
// 1), e.g. Go built with GOOS=wasip1 GOARCH=wasm -buildmode=c-shared — as an engine agent
// named plugin:NAME, in a wazero sandbox. The plugin can only ask: every read and every order
// is a tool call through the engine's chokepoint under its identity.
//
// # Sandbox
//
// No preopened directories, no environment, no arguments, no stdin or stdout (stderr is kept,
// 4 KiB a tick, to explain a trap). WASI's clocks (clock_time_get, realtime and monotonic)
// read the tick time the host passes in, never the machine's clock (WithSysWalltime is not
// used; without our clocks wazero would answer a fixed 2022-01-01). Memory is capped by the
// runtime at the manifest's memory_pages (RuntimeConfig.WithMemoryLimitPages), itself under
// the operator's ceiling: a failed grow makes a Go guest die of "out of memory", a trap.
//
// # Exports
//
//	tick()   required; called once per engine turn
//	init()   optional; called once after each instantiation
//
// A c-shared Go module also exports _initialize, run as the start function.
//
// # Imports (module "cockpit")
//
// Pointers and lengths are i32 offsets into the guest's own memory. Functions that produce
// data keep it in a host-side result slot and return its length in bytes (or a negative
// error: -1 a pointer or length outside memory or too long, -2 the tick is being stopped);
// the guest then copies it out with result into a buffer it owns. So the host never writes
// into memory the guest did not hand it, and the guest exports no allocator.
//
//	now() i64                                  the tick time, Unix nanoseconds
//	quote(sym, sym_len) i32                    get_quote for a granted symbol
//	bars(sym, sym_len, count) i32              get_bars (closes, oldest first)
//	positions() i32                            get_positions, only granted symbols
//	open_orders() i32                          get_open_orders, only granted symbols
//	call_tool(name, name_len, args, args_len) i32   any tool by name, args a JSON object
//	result(buf, cap) i32                       copy the last result (at most cap bytes)
//	log(msg, msg_len)                          one line to cockpit.log
//
// Every result is the engine's structured result as JSON: {"status", "decision",
// "reason_code", "detail", "data", …}; a refusal is a result with status "denied" and its
// reason, never a trap.
//
// # Grants and limits
//
// The manifest (NAME.plugin.toml, see Manifest) becomes the policy layer grant:NAME, met
// with the others: its tools plus the four reads above, its symbols, its calls per minute.
// A tool it does not grant is denied at the chokepoint naming grant:NAME, audited, and the
// plugin is stopped at once and disabled. Each tick has a fresh budget (tick_budget) that
// runs while the guest runs and pauses during host calls (a tool call may wait for the gate,
// the audit write or a human's review); when it runs out the tick's context is cancelled and
// the runtime (WithCloseOnContextDone) stops and closes the instance, and the next tick
// instantiates the compiled module again (with its own budget, InstantiateBudget). A tick
// that makes more calls than calls_per_minute counts as an overrun too. Three overruns, a
// trap or an ungranted tool disable the plugin for the session: audited (plugin_disabled),
// returned to the engine (an error alert on screen), and shown by Status.
//
// Log lines are collapsed to one line, cut to 300 characters, redacted, and limited to 10
// a tick (the rest are counted).
//
// # Pins, ceilings and the load record
//
// The module and its manifest are each pinned by SHA-256 in config ([agents.plugin] sha256
// and manifest_sha256): the manifest holds the grants, so editing it beside a pinned module
// must not widen them. Each file is read once; a missing pin or a file that differs from its
// pin is refused at load, naming the pinned and the actual hash, before the manifest is
// parsed or the module compiled. The manifest is parsed from the bytes that were hashed. Its
// memory_pages and tick_budget must also stay within the operator's ceilings
// (max_memory_pages, default 1,024 pages = 64 MiB; max_tick_budget, default 1s); more is
// refused naming the field, the value and the ceiling. Every refusal is audited
// (plugin_refused) with both files' hashes and pins. A load is audited too (plugin_loaded,
// by plugin:NAME): the hashes, the grants in force and the ceilings; a load whose record
// cannot be written does not run.
package wasmplugin
