package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/live/livetest"
)

// benchHome is a paper root for the round-trip benchmarks: `init` (config, token), then a
// mandate committed through the CLI whose day cap leaves room for every iteration; the orders
// alternate buy and sell of one share, so the exposure stays inside its caps.
func benchHome(b *testing.B) string {
	b.Helper()
	home := b.TempDir()
	cli := func(args ...string) {
		var out, errOut strings.Builder
		a := NewApp(strings.NewReader(""), &out, &errOut)
		a.Getenv = func(k string) string {
			if k == "COCKPIT_HOME" {
				return home
			}
			return ""
		}
		if code := a.Run(args); code != exitOK {
			b.Fatalf("%v: exit %d %s %s", args, code, out.String(), errOut.String())
		}
	}
	cli("init")
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1)
	draft := filepath.Join(b.TempDir(), "mandate.json")
	if err := os.WriteFile(draft, []byte(doc), 0o600); err != nil {
		b.Fatal(err)
	}
	cli("mandate", "commit", "--broker", "paper", "--from", draft, "--yes")
	return home
}

// roundTrips places b.N in-mandate orders through the gate over cs, timing each call, and
// reports the p50 and p99 round trip.
func roundTrips(b *testing.B, cs *mcp.ClientSession) {
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		side := "buy"
		if i%2 == 1 {
			side = "sell"
		}
		args := map[string]any{"symbol": "AAPL", "side": side, "quantity": 1, "reason": "bench"}
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "place_order", Arguments: args})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatalf("order %d: %v", i, err)
		}
		var out map[string]any
		text := res.Content[len(res.Content)-1].(*mcp.TextContent).Text
		if err := json.Unmarshal([]byte(text), &out); err != nil || res.IsError || out["status"] != "ok" {
			b.Fatalf("order %d (%s): isError %v, %s", i, side, res.IsError, text)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkMCPRoundTripStdio: the go-sdk client starts the real command (`cockpit serve-mcp`,
// this test binary as main) over stdio, as a client's config would, and places gated orders.
func BenchmarkMCPRoundTripStdio(b *testing.B) {
	home := benchHome(b)
	cmd := exec.Command(os.Args[0], "serve-mcp", "--home", home)
	cmd.Env = append(os.Environ(), "COCKPIT_TEST_MAIN=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-stdio", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("connect: %v (stderr %s)", err, stderr.String())
	}
	defer cs.Close()
	roundTrips(b, cs)
}

// BenchmarkMCPRoundTripHTTP: the same over streamable HTTP on loopback with the bearer token.
func BenchmarkMCPRoundTripHTTP(b *testing.B) {
	home := benchHome(b)
	tok, err := mcpserve.EnsureToken(home)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "serve-mcp", "--home", home, "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "COCKPIT_TEST_MAIN=1")
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		pw.Close()
	}()
	url := ""
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "streamable HTTP on "); ok {
			url, _, _ = strings.Cut(after, " ")
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		b.Fatal("serve-mcp did not say where it listens")
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-http", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerRT(tok)}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	roundTrips(b, cs)
}
