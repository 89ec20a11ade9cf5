// Package sandbox runs the agent's shell commands: argv without a shell, an explicit
// environment and working directory, bounded time and output, the process group killed on
// timeout or cancel — inside an OS sandbox chosen in the order Docker > Bubblewrap >
// Firejail > Landlock, each probed by really running something. A backend rebuilds nothing:
// the environment and directory are set on the process whatever wraps it.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Spec is one command to run.
type Spec struct {
	Argv      []string
	Dir       string   // the working directory (inside Workspace)
	Workspace string   // the only tree the command may write
	Env       []string // the complete environment ("K=V"); nothing is inherited
	Timeout   time.Duration
	MaxOutput int // code points kept per stream (default 50,000)
}

// Backend wraps a command in an OS sandbox.
type Backend interface {
	Name() string
	// Describe says honestly what the backend isolates.
	Describe() string
	// Probe runs a trivial command through the backend; an error means it is unusable here.
	Probe(ctx context.Context) error
	// Command builds the process for spec (its Dir and Env are set by Run).
	Command(spec Spec) (*exec.Cmd, error)
}

// Envelope is a command's result, shaped like the reference bash tool's.
type Envelope struct {
	Status    string // ok | error
	ExitCode  *int
	Stdout    string
	Stderr    string
	Error     string
	ErrorCode string // tool_timeout, sandbox_unavailable, …
}

// Run executes spec through b: a new process group, the given environment and directory,
// output decoded as UTF-8 with replacement and cut to MaxOutput code points per stream. On
// timeout or cancellation the whole group is killed with SIGKILL and the output drained for
// at most five seconds.
func Run(ctx context.Context, b Backend, spec Spec) Envelope {
	if spec.MaxOutput <= 0 {
		spec.MaxOutput = 50_000
	}
	if spec.Timeout <= 0 {
		spec.Timeout = 120 * time.Second
	}
	cmd, err := b.Command(spec)
	if err != nil {
		return Envelope{Status: "error", Error: "Could not start command: " + err.Error(), ErrorCode: "sandbox_unavailable"}
	}
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	if cmd.Dir == "" {
		cmd.Dir = spec.Dir
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	limit := spec.MaxOutput * utf8.UTFMax
	stdout, stderr := &capped{max: limit}, &capped{max: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return Envelope{Status: "error", Error: "Could not start command: " + err.Error()}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(spec.Timeout)
	defer timer.Stop()
	var waitErr error
	timedOut := false
	select {
	case waitErr = <-done:
	case <-timer.C:
		timedOut = true
	case <-ctx.Done():
		timedOut = true
	}
	if timedOut {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		env := Envelope{Status: "error", ErrorCode: "tool_timeout", Stdout: decode(stdout.Bytes(), spec.MaxOutput),
			Stderr: decode(stderr.Bytes(), spec.MaxOutput)}
		env.Error = fmt.Sprintf("Command timed out after %ds", int(spec.Timeout.Seconds()))
		if ctx.Err() != nil {
			env.ErrorCode, env.Error = "cancelled", "Command cancelled: "+ctx.Err().Error()
		}
		return env
	}
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(waitErr, &exitErr):
		code = exitErr.ExitCode()
	case waitErr != nil:
		return Envelope{Status: "error", Error: "Could not start command: " + waitErr.Error()}
	}
	status := "ok"
	if code != 0 {
		status = "error"
	}
	return Envelope{Status: status, ExitCode: &code, Stdout: decode(stdout.Bytes(), spec.MaxOutput), Stderr: decode(stderr.Bytes(), spec.MaxOutput)}
}

// capped keeps the first max bytes written and counts the rest.
type capped struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		n := min(room, len(p))
		c.buf.Write(p[:n])
		c.dropped += int64(len(p) - n)
	} else {
		c.dropped += int64(len(p))
	}
	return len(p), nil
}

func (c *capped) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf.Bytes()...)
}

var _ io.Writer = (*capped)(nil)

// decode is Python's bytes.decode("utf-8", errors="replace") — each maximal ill-formed
// subpart becomes one U+FFFD — cut to max code points.
func decode(b []byte, max int) string {
	var out strings.Builder
	n := 0
	for i := 0; i < len(b) && n < max; n++ {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			out.WriteRune(utf8.RuneError)
			i += maximalSubpart(b[i:])
			continue
		}
		out.WriteRune(r)
		i += size
	}
	return out.String()
}

// maximalSubpart is the length of the longest prefix of b that starts a well-formed UTF-8
// sequence (at least 1), per the Unicode standard's table 3-7.
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case c >= 0xe1 && c <= 0xec || c == 0xee || c == 0xef:
		need = 2
	case c == 0xed:
		need, hi = 2, 0x9f
	case c == 0xf0:
		need, lo = 3, 0x90
	case c >= 0xf1 && c <= 0xf3:
		need = 3
	case c == 0xf4:
		need, hi = 3, 0x8f
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k == 0 && (x < lo || x > hi) || k > 0 && (x < 0x80 || x > 0xbf) {
			break
		}
		n++
	}
	return n
}
