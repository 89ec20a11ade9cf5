package wasmplugin_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"cockpit/engine/agents/wasmplugin"
	"cockpit/internal/enginetest"
	"cockpit/live"
)

// The plugin's clocks (WASI's clock_time_get and the host's now) read the tick time the host
// passes, never the machine's clock; its log lines are redacted and limited per tick.
func TestClockIsTheTickTimeAndLogIsRedactedAndLimited(t *testing.T) {
	src := module(t, "bench")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "bench.wasm")
	os.WriteFile(file, b, 0o600)
	man := manifest("bench", "", 256, "1s")
	os.WriteFile(wasmplugin.ManifestPath(file), []byte(man), 0o600)
	f := enginetest.New(t)
	var logBuf bytes.Buffer
	a, err := wasmplugin.Load(context.Background(), wasmplugin.Config{File: file, SHA256: wasmplugin.Digest(b),
		ManifestSHA256: wasmplugin.Digest([]byte(man)), Audit: f.DB,
		Session: "s1", Broker: live.PaperBroker, Now: f.Clock.Now, Log: slog.New(slog.NewTextHandler(&logBuf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name())); err != nil {
		t.Fatal(err)
	}
	out := logBuf.String()
	want := strconv.FormatInt(f.Clock.Now().UnixNano(), 10)
	if !strings.Contains(out, "wasi="+want+" host="+want) {
		t.Errorf("log %q: want wasi=%s host=%s (the tick time, %s)", out, want, want, f.Clock.Now())
	}
	if strings.Contains(out, "sk-abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("a credential reached the log: %q", out)
	}
	if n := strings.Count(out, "flood"); n != 8 {
		t.Errorf("flood lines logged = %d, want 8 (10 a tick, 2 used before)", n)
	}
	if !strings.Contains(out, "dropped=42") {
		t.Errorf("log %q: want the dropped lines counted (42)", out)
	}
}
