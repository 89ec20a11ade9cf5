package mcpserve

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SSERetry is the reconnection delay every SSE response announces in a `retry` field.
const SSERetry = 2 * time.Second

// primingVersion is the protocol version that added priming events to POST streams (SEP-1699).
const primingVersion = "2025-11-25"

// retryBlock is an SSE block with only a retry field: every SSE parser takes the delay from it
// and dispatches no event, so clients of any protocol version can read it.
var retryBlock = fmt.Sprintf("retry: %d\n\n", SSERetry.Milliseconds())

// retryWriter writes retryBlock ahead of an SSE response's body.
type retryWriter struct {
	http.ResponseWriter
	started bool
}

func (w *retryWriter) WriteHeader(code int) {
	if w.started {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.started = true
	w.ResponseWriter.WriteHeader(code)
	if mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type")); code == http.StatusOK && mt == "text/event-stream" {
		io.WriteString(w.ResponseWriter, retryBlock)
	}
}

func (w *retryWriter) Write(p []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Flush flushes the underlying writer (SSE events must not wait in a buffer); a flush that
// sends the headers sends the retry block with them.
func (w *retryWriter) Flush() {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *retryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// keepNegotiated serves a request of a session that negotiated protocol 2025-11-25 or later
// as 2025-11-25 when its Mcp-Protocol-Version header names an older version or none: the
// version negotiated at initialization holds for the session's streams (their priming events
// and resumption), not a request's stray header. Other requests are left as they are.
func (s *Server) keepNegotiated(r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" || r.Header.Get("Mcp-Protocol-Version") >= primingVersion {
		return
	}
	for ss := range s.mcp.Sessions() {
		if ss.ID() != id {
			continue
		}
		if p := ss.InitializeParams(); p != nil && p.ProtocolVersion >= primingVersion {
			r.Header.Set("Mcp-Protocol-Version", primingVersion)
		}
		return
	}
}

// newEventStore keeps each session's recent stream events in memory (the SDK's default cap,
// 10 MiB across sessions) so that a client can resume a stream with Last-Event-ID.
func newEventStore() mcp.EventStore { return mcp.NewMemoryEventStore(nil) }
