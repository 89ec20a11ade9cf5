package alpaca

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/redact"
)

// roundTrip is the transport of one call: it binds the request to the caller's context,
// sets the key headers itself (whatever the SDK found in the environment), and records what
// happened for classification and health.
type roundTrip struct {
	ctx         context.Context
	next        http.RoundTripper
	key, secret string

	mu      sync.Mutex
	status  int           // the last response's HTTP status; 0 = none
	dialed  bool          // a connection was obtained (the request may have been written)
	latency time.Duration // the last round trip
}

// RoundTrip implements http.RoundTripper.
func (r *roundTrip) RoundTrip(req *http.Request) (*http.Response, error) {
	// Both the client's timeout (the request's own context) and the caller's ctx end it.
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(r.ctx, cancel)
	release := func() { stop(); cancel() }
	req = req.Clone(ctx)
	req.Header.Del("Authorization")
	req.Header.Set("APCA-API-KEY-ID", r.key)
	req.Header.Set("APCA-API-SECRET-KEY", r.secret)
	start := time.Now()
	resp, err := r.next.RoundTrip(req)
	if err != nil || resp == nil {
		release()
	} else {
		resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latency = time.Since(start)
	if resp != nil {
		r.status, r.dialed = resp.StatusCode, true
	} else if err != nil && !isDialError(err) {
		r.dialed = true
	}
	return resp, err
}

// releasingBody frees the request's context once the body is closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

func (r *roundTrip) snapshot() (status int, dialed bool, latency time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.dialed, r.latency
}

// isDialError reports a failure to connect: nothing was sent.
func isDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// health is the connector's last-request view, for live.HealthReporter.
type health struct {
	mu sync.Mutex
	h  live.BrokerHealth
	// mode is fixed at construction.
	mode string
}

func (h *health) get() live.BrokerHealth {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.h
	out.Mode = h.mode
	return out
}

// record notes a finished request: connected when the broker answered at all.
func (h *health) record(rt *roundTrip, err error, now time.Time) {
	status, _, latency := rt.snapshot()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.h.Connected = status != 0
	h.h.LastLatency = latency
	h.h.Checked = now
	h.h.LastError = ""
	if err != nil {
		h.h.LastError = redact.Secrets(err.Error())
	}
}
