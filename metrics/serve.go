package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"
)

// Server serves /metrics on one listener until Close.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// Serve listens on addr (config.Metrics checked it is loopback or allowed) and serves m at
// /metrics in the background; serve errors go to log, never to the terminal.
func Serve(addr string, m *Metrics, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("config: metrics.listen = %q: the port is in use (another cockpit, or another exporter?): pick a free port or stop the process holding it", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("config: metrics.listen = %q: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	s := &Server{ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "addr", addr, "err", err)
		}
	}()
	return s, nil
}

// Addr is the address served (the port chosen for ":0").
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops serving, waiting at most a few seconds for scrapes in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	return err
}
