package mcpbroker

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live/redact"
)

// StderrTail is how much of a stdio server's stderr is kept: its last words.
const StderrTail = 4 << 10

// stderrShown is how much of the tail an error or status line quotes.
const stderrShown = 1 << 10

// stdioGrace is how long a stdio server (and then its process group) has to go at each step
// of a close: after its stdin closes, after SIGTERM.
const stdioGrace = 2 * time.Second

// stdioTransport starts a broker's MCP server as a command in a process group of its own and
// keeps the tail of its stderr. Closing the connection ends the whole group, so a server
// started through a launcher (npx and its node) leaves nothing running.
type stdioTransport struct {
	cmd    *exec.Cmd
	onExit func(bool, string)

	stderr tail
	mu     sync.Mutex
	exit   string // how the process ended ("exit status 3"); "" while it runs
}

func newStdio(cmd *exec.Cmd, onExit func(bool, string)) *stdioTransport {
	t := &stdioTransport{cmd: cmd, onExit: onExit}
	t.stderr.max = StderrTail
	cmd.Stderr = &t.stderr
	cmd.WaitDelay = stdioGrace // a child still holding stderr does not hold up Wait
	inGroup(cmd)
	return t
}

// Connect starts the command.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := (&mcp.CommandTransport{Command: t.cmd, TerminateDuration: stdioGrace}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stdioConn{Connection: c, t: t}, nil
}

// Diagnostics says how the server ended and quotes the end of its stderr, redacted, on one
// line; "" when there is nothing to say.
func (t *stdioTransport) Diagnostics() string {
	t.mu.Lock()
	exit := t.exit
	t.mu.Unlock()
	var parts []string
	if exit != "" {
		parts = append(parts, "the server ended: "+exit)
	}
	if s := lastWords(t.stderr.String(), stderrShown); s != "" {
		parts = append(parts, "its stderr ends: "+s)
	}
	return strings.Join(parts, "; ")
}

// ended records how the process ended and tells onExit, once.
func (t *stdioTransport) ended() {
	exit, clean := "not known (it did not exit in time and was killed)", false
	if ps := t.cmd.ProcessState; ps != nil {
		exit, clean = ps.String(), ps.Success()
	}
	t.mu.Lock()
	t.exit = exit
	t.mu.Unlock()
	if t.onExit != nil {
		t.onExit(clean, t.Diagnostics())
	}
}

// stdioConn is the server's connection; closing it ends the server's process group.
type stdioConn struct {
	mcp.Connection
	t    *stdioTransport
	once sync.Once
}

// Close closes stdin, waits for the server as the go-sdk does (then SIGTERM, then SIGKILL),
// and ends whatever is left of its process group.
func (c *stdioConn) Close() error {
	err := c.Connection.Close()
	c.once.Do(func() {
		if p := c.t.cmd.Process; p != nil {
			endGroup(p.Pid, stdioGrace)
		}
		c.t.ended()
	})
	return err
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// lastWords is the end of s, at most max bytes of whole lines, redacted, its lines joined by
// " | " and every other control character dropped: it may reach the log, status and the screen.
func lastWords(s string, max int) string {
	s = redact.Secrets(s)
	var lines []string
	size := 0
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || r == unicode.ReplacementChar {
				return -1
			}
			return r
		}, l))
		if l != "" {
			lines = append(lines, l)
		}
	}
	first := len(lines)
	for first > 0 && size+len(lines[first-1]) <= max {
		first--
		size += len(lines[first]) + 3
	}
	if first == len(lines) && first > 0 { // one line longer than max: its end
		l := lines[first-1]
		return "…" + l[len(l)-max:]
	}
	return strings.Join(lines[first:], " | ")
}
