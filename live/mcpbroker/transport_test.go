package mcpbroker_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live/livetest"
	"cockpit/live/mcpbroker"
	"cockpit/live/mcpbroker/mcppaper"
	"cockpit/live/paper"
)

const helperEnv = "COCKPIT_MCPPAPER_HELPER"

// TestHelperProcess is not a test: re-executed by TestStdioChildProcess, it serves the paper
// broker over stdio. It refuses to serve when a variable the parent did not pass leaked in.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		return
	}
	if os.Getenv("COCKPIT_TEST_UNPASSED") != "" {
		os.Exit(3)
	}
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: livetest.NewClock(livetest.Epoch).Now})
	if err != nil {
		os.Exit(2)
	}
	srv, err := mcppaper.New(p, os.Getenv(helperEnv), mcppaper.Options{})
	if err != nil {
		os.Exit(2)
	}
	helperFault(srv)
	srv.Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0)
}

// TestStdioChildProcess starts a real child process as the server, passing it only the named
// variables, and trades a quote through it.
func TestStdioChildProcess(t *testing.T) {
	t.Setenv("COCKPIT_TEST_UNPASSED", "must not reach the child")
	env := map[string]string{helperEnv: "alpaca"}
	ep := mcpbroker.Endpoint{Command: []string{os.Args[0], "-test.run=^TestHelperProcess$"}, EnvPass: []string{helperEnv},
		Getenv: func(k string) string { return env[k] }}
	tr, err := ep.Transport()
	if err != nil {
		t.Fatal(err)
	}
	mb, err := mcpbroker.Connect(context.Background(), tr, mcpbroker.Options{Key: "alp", Profile: mcpbroker.ProfileFor("alpaca", "alp")})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer mb.Close()
	if n := len(mb.Tools()); n < 10 {
		t.Fatalf("tools: got %d, want the alpaca paper set", n)
	}
	q, err := mb.Quote(context.Background(), "MSFT")
	if err != nil || q.Last.Sign() <= 0 {
		t.Fatalf("Quote: got %+v, %v", q, err)
	}
}

// TestStreamableHTTPBearer serves the paper broker over streamable HTTP on loopback behind a
// bearer token: the right token connects; a missing variable is named; a wrong token fails
// without its value in the error.
func TestStreamableHTTPBearer(t *testing.T) {
	const token = "s3cret-bearer-value"
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: livetest.NewClock(livetest.Epoch).Now})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcppaper.New(p, "robinhood", mcppaper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	connect := func(env map[string]string) (*mcpbroker.Broker, error) {
		tr, err := mcpbroker.Endpoint{URL: ts.URL, TokenEnv: "RH_TOKEN", Getenv: func(k string) string { return env[k] }}.Transport()
		if err != nil {
			return nil, err
		}
		return mcpbroker.Connect(context.Background(), tr, mcpbroker.Options{Key: "rh", Profile: mcpbroker.ProfileFor("robinhood", "rh")})
	}
	mb, err := connect(map[string]string{"RH_TOKEN": token})
	if err != nil {
		t.Fatalf("Connect with the token: %v", err)
	}
	if _, err := mb.Quote(context.Background(), "AAPL"); err != nil {
		t.Fatalf("Quote: %v", err)
	}
	mb.Close()
	if _, err := connect(nil); err == nil || !strings.Contains(err.Error(), "RH_TOKEN") {
		t.Fatalf("no token: got %v, want an error naming RH_TOKEN", err)
	}
	_, err = connect(map[string]string{"RH_TOKEN": "wrong-token-value"})
	if err == nil || strings.Contains(err.Error(), "wrong-token-value") {
		t.Fatalf("wrong token: got %v, want an error without the token", err)
	}
}
