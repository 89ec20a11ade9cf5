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
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/internal/enginetest"
	"cockpit/store"
)

// TestServeMCPStdio starts the real command as an MCP server on stdio, as a client's config
// `{"command": "cockpit", "args": ["serve-mcp"]}` would: it lists the tools and places one
// in-mandate order, audited under the client's identity; stdout carries only MCP frames
// (anything else breaks the client's decoding).
func TestServeMCPStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	home := t.TempDir()
	if out, errOut, code := runLive(t, home, nil, "init"); code != 0 {
		t.Fatalf("init: exit %d %s %s", code, out, errOut)
	}
	cmd := exec.Command(os.Args[0], "serve-mcp", "--home", home)
	cmd.Env = append(os.Environ(), "COCKPIT_TEST_MAIN=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1.2"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %s)", err, stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"get_quote", "place_order", "cancel_order"} {
		if !names[want] {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "place_order", Arguments: enginetest.Buy("AAPL", "100")})
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	text := res.Content[len(res.Content)-1].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &out); err != nil || res.IsError || out["status"] != "ok" {
		t.Fatalf("place_order: isError %v, %s (%v)", res.IsError, text, err)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if !cmd.ProcessState.Success() {
		t.Errorf("serve-mcp exited %v; stderr %s", cmd.ProcessState, stderr.String())
	}
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	evs, err := db.Events(ctx, store.Filter{Limit: 1000, Ascending: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Tool == "place_order" && enginetest.Terminal(e) {
			n++
			if e.ActorID != "mcp:stdio-test@1.2" || e.Outcome != "accepted" {
				t.Errorf("audited %s by %s, want accepted by mcp:stdio-test@1.2", e.Outcome, e.ActorID)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d terminal place_order records, want 1", n)
	}
}

// TestServeMCPHTTP starts the real command on loopback HTTP: `init` wrote the token (0600),
// a request without it is 401, a client with it places an order, SIGINT stops the server;
// a non-loopback address is refused without --allow-remote.
func TestServeMCPHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	home := t.TempDir()
	if out, errOut, code := runLive(t, home, nil, "init"); code != 0 || !strings.Contains(out, mcpserve.TokenFile) {
		t.Fatalf("init: exit %d %s %s", code, out, errOut)
	}
	tokPath := filepath.Join(home, mcpserve.TokenFile)
	if fi, err := os.Stat(tokPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", fi, err)
	}
	tok, err := mcpserve.EnsureToken(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runLive(t, home, nil, "serve-mcp", "--http", "0.0.0.0:0"); code != exitFailure || !strings.Contains(errOut, "--allow-remote") {
		t.Errorf("serve-mcp on 0.0.0.0: exit %d %q, want a refusal naming --allow-remote", code, errOut)
	}
	cmd := exec.Command(os.Args[0], "serve-mcp", "--home", home, "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "COCKPIT_TEST_MAIN=1")
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	var stdout syncBuffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
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
		t.Fatal("serve-mcp did not say where it listens")
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", resp.StatusCode)
	}
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "3"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerRT(tok)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "place_order", Arguments: enginetest.Buy("AAPL", "100")})
	if err != nil || res.IsError {
		t.Fatalf("place_order over HTTP: %v %+v", err, res)
	}
	cs.Close()
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve-mcp --http after SIGINT: %v", err)
	}
	if stdout.String() != "" {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
}

type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
