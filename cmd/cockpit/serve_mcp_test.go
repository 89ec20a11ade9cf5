package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
