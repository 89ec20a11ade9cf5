package mcpbroker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBreaksLink: only an error that leaves the session unusable has the next call connect
// again; the server's own error reply and the caller's context ending do not.
func TestBreaksLink(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"the server's error reply", fmt.Errorf("calling %q: %w", "tools/call", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool"}), false},
		{"the call's deadline", fmt.Errorf("calling: %w", context.DeadlineExceeded), false},
		{"the caller gone", context.Canceled, false},
		{"a closed connection", fmt.Errorf("%w: calling %q", mcp.ErrConnectionClosed, "tools/call"), true},
		{"the server went away", io.EOF, true},
		{"a reply that is not JSON", errors.New("invalid character 'h' in literal true"), true},
	} {
		if got := breaksLink(tc.err); got != tc.want {
			t.Errorf("%s: breaksLink(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
