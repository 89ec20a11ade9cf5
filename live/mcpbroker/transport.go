package mcpbroker

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Endpoint says where a broker's MCP server is: a command to start (stdio) or a URL
// (streamable HTTP). Exactly one must be set.
type Endpoint struct {
	Command []string // argv; the process gets only the variables named in EnvPass
	EnvPass []string // environment variables passed to the command, by name
	URL     string   // streamable HTTP endpoint
	// TokenEnv names the variable holding the HTTP bearer token ("" = none).
	TokenEnv string
	Getenv   func(string) string
	Timeout  time.Duration // HTTP request timeout; 0 = 30s
	// MaxReply caps one HTTP reply's body (0 = MaxReply); a larger reply fails its call and
	// breaks the session, which the next call re-establishes. Over stdio the go-sdk caps one
	// message at the same 16 MiB.
	MaxReply int64
	// OnExit, when set, hears once how a stdio server ended: whether it exited 0, and its exit
	// status with the redacted tail of its stderr (the session logs it to cockpit.log).
	OnExit func(clean bool, diag string)
}

// MaxReply is the default cap of one reply from a broker's MCP server (the go-sdk's own cap
// of one stdio message).
const MaxReply = mcp.DefaultMaxLineLength

// Transport builds the go-sdk transport of the endpoint. A token variable that is named but
// empty is an error naming the variable (never its value).
func (e Endpoint) Transport() (mcp.Transport, error) {
	if (len(e.Command) > 0) == (e.URL != "") {
		return nil, errors.New("an MCP broker needs exactly one of command and url")
	}
	getenv := e.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if len(e.Command) > 0 {
		cmd := exec.Command(e.Command[0], e.Command[1:]...)
		cmd.Env = []string{} // explicit: nothing is inherited
		for _, name := range e.EnvPass {
			if v := getenv(name); v != "" {
				cmd.Env = append(cmd.Env, name+"="+v)
			}
		}
		return newStdio(cmd, e.OnExit), nil
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	limit := e.MaxReply
	if limit <= 0 {
		limit = MaxReply
	}
	var rt http.RoundTripper = capped{next: http.DefaultTransport, max: limit}
	if e.TokenEnv != "" {
		tok := getenv(e.TokenEnv)
		if tok == "" {
			return nil, fmt.Errorf("the MCP server's bearer token variable %s is not set", e.TokenEnv)
		}
		rt = bearer{token: tok, next: rt}
	}
	return &mcp.StreamableClientTransport{Endpoint: e.URL, HTTPClient: &http.Client{Transport: rt, Timeout: timeout},
		MaxRetries: -1, DisableStandaloneSSE: true}, nil
}

// bearer adds the Authorization header; its value never appears in errors or logs.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// String keeps the token out of any %v of the transport.
func (b bearer) String() string { return "bearer(redacted)" }

// capped fails a reply whose body grows past max bytes.
type capped struct {
	next http.RoundTripper
	max  int64
}

func (c capped) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: c.max, max: c.max}
	}
	return resp, err
}

// cappedBody is a reply body that errors once more than max bytes arrive.
type cappedBody struct {
	io.ReadCloser
	left, max int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("the MCP server's reply is over %d bytes", b.max)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, fmt.Errorf("the MCP server's reply is over %d bytes", b.max)
	}
	return n, err
}
