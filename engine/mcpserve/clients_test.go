package mcpserve_test

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/internal/enginetest"
)

// TestClients: each connected client session is listed as its agent identity; a client that
// went away is not.
func TestClients(t *testing.T) {
	f := enginetest.New(t)
	srv, err := mcpserve.New(f.Engine)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var closers []func()
	for _, v := range []string{"1.2", "0.1"} {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude desktop", Version: v}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		closers = append(closers, func() { cs.Close(); ss.Wait() })
	}
	if got, want := srv.Clients(), []string{"mcp:claude_desktop@0.1", "mcp:claude_desktop@1.2"}; !slices.Equal(got, want) {
		t.Errorf("Clients() = %v, want %v", got, want)
	}
	closers[0]()
	if got, want := srv.Clients(), []string{"mcp:claude_desktop@0.1"}; !slices.Equal(got, want) {
		t.Errorf("after one left: Clients() = %v, want %v", got, want)
	}
	closers[1]()
}
