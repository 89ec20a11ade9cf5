package wasmplugin_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cockpit/engine/agents/wasmplugin"
	"cockpit/internal/enginetest"
	"cockpit/live"
)

// loadB loads a built module with a generous manifest on a paper engine fixture.
func loadB(b *testing.B, mod, man string) (*enginetest.Fixture, *wasmplugin.Agent) {
	b.Helper()
	src := module(b, mod)
	wasm, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	file := filepath.Join(dir, mod+".wasm")
	os.WriteFile(file, wasm, 0o600)
	os.WriteFile(wasmplugin.ManifestPath(file), []byte(man), 0o600)
	f := enginetest.New(b)
	f.CheckTerminal = false
	a, err := wasmplugin.Load(context.Background(), wasmplugin.Config{File: file, SHA256: wasmplugin.Digest(wasm),
		ManifestSHA256: wasmplugin.Digest([]byte(man)), Ceilings: widest, Audit: f.DB, Session: "s1", Broker: live.PaperBroker, Now: f.Clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close(context.Background()) })
	a.Grant(&f.Engine.Policy)
	return f, a
}

const benchManifest = `name = "bench"
version = "0"
symbols = ["AAPL"]
calls_per_minute = 1000000000
memory_pages = 512
tick_budget = "10s"
`

// BenchmarkHostCallRoundTrip is one guest → host → guest call of the cheapest host function
// (now): the ABI's own cost.
func BenchmarkHostCallRoundTrip(b *testing.B) {
	f, a := loadB(b, "bench", benchManifest)
	ctx := context.Background()
	turn := f.Engine.NewTurn(a.Name())
	if err := a.CallExport(ctx, turn, "spin_now", 1); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	if err := a.CallExport(ctx, turn, "spin_now", uint64(b.N)); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/1e3/float64(b.N), "µs/call")
}

// BenchmarkHostCallQuote is one quote read from the guest through the engine's chokepoint
// (policy, grant, rate limit, the tool, the audit write) and back, result copied in.
func BenchmarkHostCallQuote(b *testing.B) {
	f, a := loadB(b, "bench", benchManifest)
	ctx := context.Background()
	turn := f.Engine.NewTurn(a.Name())
	if err := a.CallExport(ctx, turn, "spin_quote", 1); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	if err := a.CallExport(ctx, turn, "spin_quote", uint64(b.N)); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/1e3/float64(b.N), "µs/call")
}

// BenchmarkTickExample is one tick of the example plugin on a live instance: its reads
// (positions, three bar series) through the chokepoint and its decision, with the paper
// clock a minute on between ticks. guest-µs/tick is the plugin's own time, host calls
// excluded (what its budget measures).
func BenchmarkTickExample(b *testing.B) {
	man, err := os.ReadFile("../../../examples/plugins/meanrev/meanrev.plugin.toml")
	if err != nil {
		b.Fatal(err)
	}
	f, a := loadB(b, "meanrev", string(man))
	f.Engine.Approver = false // a breach is denied at once rather than waiting for a human
	ctx := context.Background()
	if err := a.Turn(ctx, f.Engine.NewTurn(a.Name())); err != nil { // instantiates
		b.Fatal(err)
	}
	guest := 0.0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Clock.Advance(time.Minute)
		if err := a.Turn(ctx, f.Engine.NewTurn(a.Name())); err != nil {
			b.Fatal(err)
		}
		guest += a.LastTick()
	}
	b.ReportMetric(guest/1e3/float64(b.N), "guest-µs/tick")
}

// BenchmarkInstantiate is one instantiation of the example plugin from its compiled module
// (the Go runtime's start-up included), as after a tick that ran out of its budget.
func BenchmarkInstantiate(b *testing.B) {
	man, err := os.ReadFile("../../../examples/plugins/meanrev/meanrev.plugin.toml")
	if err != nil {
		b.Fatal(err)
	}
	_, a := loadB(b, "meanrev", string(man))
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.InstantiateOnce(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/instance")
}
