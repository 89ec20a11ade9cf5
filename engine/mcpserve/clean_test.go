package mcpserve

import (
	"strings"
	"testing"
)

// TestCleanClientInfo: a client's name and version reach the audit and the screen as one
// printable token: the separators of mcp:<name>@<version> and white space become '_',
// control characters (a terminal escape) are dropped, and at most 64 characters are kept.
func TestCleanClientInfo(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"claude-desktop", "claude-desktop"},
		{"", "unknown"},
		{"evil@1.0:admin", "evil_1.0_admin"},
		{"my agent\tv2\n", "my_agent_v2_"},
		{"red\x1b[31mtext\x07", "red[31mtext"},
		{"\x00\x1b", "unknown"},
		{strings.Repeat("é", 70), strings.Repeat("é", 64)},
	} {
		if got := clean(tc.in); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
