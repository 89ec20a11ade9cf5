package mcpbroker

import (
	"errors"
	"fmt"
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
}

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
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	rt := http.DefaultTransport
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
