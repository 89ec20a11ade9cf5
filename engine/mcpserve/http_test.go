package mcpserve_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/internal/enginetest"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

func httpServer(t *testing.T) (*httptest.Server, string, *enginetest.Fixture) {
	t.Helper()
	f := enginetest.New(t)
	srv, err := mcpserve.New(f.Engine)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := mcpserve.EnsureToken(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.Handler(mcpserve.HTTPOptions{Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, tok, f
}

// TestHTTPGuard: the host/origin guard, the bearer token and the body cap answer before MCP.
func TestHTTPGuard(t *testing.T) {
	ts, tok, _ := httpServer(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", mcpserve.MaxBody) + `"}}`
	tests := []struct {
		name    string
		host    string
		origin  string
		auth    string
		body    string
		chunked bool
		want    int
	}{
		{"no token", "", "", "", initBody, false, http.StatusUnauthorized},
		{"wrong token", "", "", "Bearer " + strings.Repeat("0", 64), initBody, false, http.StatusUnauthorized},
		{"token without Bearer", "", "", tok, initBody, false, http.StatusUnauthorized},
		{"foreign Host (DNS rebinding)", "evil.example.com", "", "Bearer " + tok, initBody, false, http.StatusForbidden},
		{"foreign Origin", "", "http://evil.example.com", "Bearer " + tok, initBody, false, http.StatusForbidden},
		{"null Origin", "", "null", "Bearer " + tok, initBody, false, http.StatusForbidden},
		{"foreign Host without token", "evil.example.com", "", "", initBody, false, http.StatusForbidden},
		{"body over 1 MiB", "", "", "Bearer " + tok, big, false, http.StatusRequestEntityTooLarge},
		{"chunked body over 1 MiB", "", "", "Bearer " + tok, big, true, http.StatusRequestEntityTooLarge},
		{"loopback Origin with token", "", "http://127.0.0.1", "Bearer " + tok, initBody, false, http.StatusOK},
		{"localhost Host with token", "localhost:1234", "", "Bearer " + tok, initBody, false, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body = strings.NewReader(tc.body)
			req, err := http.NewRequest(http.MethodPost, ts.URL, body)
			if err != nil {
				t.Fatal(err)
			}
			if tc.chunked {
				req.ContentLength = -1
				req.Body = io.NopCloser(struct{ io.Reader }{body}) // unknown length: sent chunked
				req.GetBody = nil
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPClientOrder: a go-sdk client over streamable HTTP with the token lists the tools
// and places an in-mandate order, audited under its identity.
func TestHTTPClientOrder(t *testing.T) {
	ts, tok, f := httpServer(t)
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "2"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{tok}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if tools, err := cs.ListTools(ctx, nil); err != nil || len(tools.Tools) == 0 {
		t.Fatalf("list tools: %v, %v", tools, err)
	}
	res, out := call(t, cs, "place_order", enginetest.Buy("AAPL", "100"))
	if res.IsError || out["status"] != "ok" {
		t.Fatalf("order over HTTP: %v", out)
	}
	for _, e := range f.Events() {
		if e.Tool == "place_order" && enginetest.Terminal(e) && e.ActorID != "mcp:http-client@2" {
			t.Errorf("audited actor %s, want mcp:http-client@2", e.ActorID)
		}
	}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil); err == nil {
		t.Error("a client without the token connected")
	}
}

func TestEnsureToken(t *testing.T) {
	dir := t.TempDir()
	tok, err := mcpserve.EnsureToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, mcpserve.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("token file mode %v, want 0600", got)
	}
	if len(tok) != 64 {
		t.Errorf("token length %d, want 64 hex digits", len(tok))
	}
	again, err := mcpserve.EnsureToken(dir)
	if err != nil || again != tok {
		t.Errorf("second EnsureToken = %q, %v; want the same token", again, err)
	}
	os.Chmod(filepath.Join(dir, mcpserve.TokenFile), 0o644)
	if _, err := mcpserve.EnsureToken(dir); err == nil {
		t.Error("a world-readable token file was accepted")
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	tests := []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true},
		{"[::1]:0", false, true},
		{"localhost:0", false, true},
		{"0.0.0.0:0", false, false},
		{":0", false, false},
		{"192.0.2.1:0", false, false},
		{"0.0.0.0:0", true, true},
	}
	for _, tc := range tests {
		ln, err := mcpserve.Listen(tc.addr, tc.remote)
		if ln != nil {
			ln.Close()
		}
		if (err == nil) != tc.ok {
			if tc.addr == "[::1]:0" && err != nil && !strings.Contains(err.Error(), "loopback") {
				continue // no IPv6 on this machine
			}
			t.Errorf("Listen(%q, remote %v): err %v, want ok %v", tc.addr, tc.remote, err, tc.ok)
		}
	}
}
