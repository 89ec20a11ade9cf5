package mcpserve

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/safety"
	"cockpit/internal/tokenfile"
)

// TokenFile is the bearer token's file name in the runtime root.
const TokenFile = "serve-mcp.token"

// MaxBody caps an HTTP request body (1 MiB); a larger one is refused 413.
const MaxBody = 1 << 20

// bodyTimeout bounds the reading of a request body.
const bodyTimeout = 30 * time.Second

// EnsureToken returns the bearer token in dir/serve-mcp.token, creating it (0600, 32 random
// bytes in hex) when missing. A token file readable by group or others, or too short, is refused.
func EnsureToken(dir string) (string, error) { return tokenfile.Ensure(filepath.Join(dir, TokenFile)) }

// HTTPOptions shape the streamable HTTP endpoint.
type HTTPOptions struct {
	Token        string   // required bearer token
	AllowedHosts []string // Host and Origin allow-list (safety.ParseAllowedHosts; empty: loopback names)
	Log          *slog.Logger
}

// Handler is the guarded streamable HTTP handler: the Host/Origin guard of the reference
// (400 without Host, 403 for a refused Host or Origin), then the bearer token (401), then the
// body cap (413), then MCP. SSE responses announce a retry delay; POST streams of 2025-11-25
// sessions start with a priming event and can be resumed with Last-Event-ID.
func (s *Server) Handler(o HTTPOptions) (http.Handler, error) {
	if len(o.Token) < tokenfile.MinLen {
		return nil, errors.New("mcpserve: HTTP needs a bearer token")
	}
	hosts := o.AllowedHosts
	if len(hosts) == 0 {
		hosts = safety.ParseAllowedHosts("")
	}
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{Logger: o.Log, MaxRequestBodyBytes: MaxBody, EventStore: newEventStore()})
	want := []byte("Bearer " + o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "" {
			http.Error(w, "Invalid host header", http.StatusBadRequest)
			return
		}
		if !safety.HostMatches(safety.NormalizeHost(r.Host), hosts) {
			http.Error(w, "Host not allowed", http.StatusForbidden)
			return
		}
		if vs, ok := r.Header["Origin"]; ok {
			origin := strings.Join(vs, ",")
			if !safety.OriginAllowed(&origin, hosts) {
				http.Error(w, "Origin not allowed", http.StatusForbidden)
				return
			}
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cockpit serve-mcp"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		if r.ContentLength > MaxBody {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w) // a body that trickles in does not hold the connection
			rc.SetReadDeadline(time.Now().Add(bodyTimeout))
			body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
			rc.SetReadDeadline(time.Time{})
			if err != nil {
				http.Error(w, "cannot read the request body", http.StatusBadRequest)
				return
			}
			if len(body) > MaxBody {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		s.keepNegotiated(r)
		inner.ServeHTTP(&retryWriter{ResponseWriter: w}, r)
	}), nil
}

// Listen listens on addr; an address that is not loopback is refused unless allowRemote.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--http %q: %v", addr, err)
	}
	if !allowRemote && !loopbackName(host) {
		return nil, fmt.Errorf("--http %q is not a loopback address: serve-mcp listens beyond loopback only with --allow-remote", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !allowRemote && (!ok || !tcp.IP.IsLoopback()) {
		ln.Close()
		return nil, fmt.Errorf("--http %q listens on %v, which is not loopback", addr, ln.Addr())
	}
	return ln, nil
}

func loopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP serves h on ln until ctx ends, then shuts down. A connection that sends no request
// headers in time, or sits idle between requests, is closed; past o.MaxConns open connections
// the next is refused 503 with the reason.
func ServeHTTP(ctx context.Context, ln net.Listener, h http.Handler, o ServeOptions) error {
	o = o.withDefaults()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: o.ReadHeaderTimeout, IdleTimeout: o.IdleTimeout, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(o.Log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(newCapListener(ln, o.MaxConns, o.Log)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shut)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
