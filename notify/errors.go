package notify

import (
	"context"
	"errors"
	"net/url"
	"time"

	"cockpit/live/redact"
)

// SendError is a failed attempt: whether another attempt may pass (a network error, 429 or
// 5xx) and how long the service asked to wait first.
type SendError struct {
	Status     int    // the HTTP status or the service's error code (0: no answer)
	Msg        string // redacted, never the URL
	Permanent  bool   // a retry will not help (a 4xx other than 429, an unreadable success)
	RetryAfter time.Duration
}

func (e *SendError) Error() string { return e.Msg }

// transportError is a request that got no answer. The URL (a secret for most sinks) is cut
// from the error Go's client returns, and the rest redacted.
func transportError(err error) *SendError {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := "no answer: " + err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "no answer before the timeout"
	}
	return &SendError{Msg: redact.Secrets(msg)}
}

// retryable reports whether err may pass on another attempt, and after how long at least.
func retryable(err error) (bool, time.Duration) {
	var se *SendError
	if errors.As(err, &se) {
		return !se.Permanent, se.RetryAfter
	}
	return true, 0
}
