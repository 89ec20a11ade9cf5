package alpaca

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/alpacahq/alpaca-trade-api-go/v3/alpaca"

	"cockpit/live"
	"cockpit/live/redact"
)

// classify turns an SDK error into live's classes from what the transport saw:
//   - a 2xx answer with an error (the reply could not be read): indeterminate for a submit;
//   - 429: nothing was accepted (transport: try later); other 4xx: rejected with Alpaca's
//     message; 404 on a lookup: live.ErrOrderNotFound (the caller decides);
//   - 5xx, a timeout or a reset after the connection was made: indeterminate for a submit,
//     transport for anything else;
//   - no connection at all: transport.
func classify(rt *roundTrip, err error, submit bool) error {
	if err == nil {
		return nil
	}
	status, dialed, _ := rt.snapshot()
	msg := redact.Secrets(apiMessage(err))
	switch {
	case status == http.StatusTooManyRequests:
		return &live.BrokerError{Class: live.ErrTransport, Msg: "rate limited by Alpaca (HTTP 429); nothing was placed: " + msg, Err: err}
	case status >= 400 && status < 500:
		return &live.BrokerError{Class: live.ErrRejected, Msg: msg, Err: err}
	case submit && (dialed || status != 0):
		return &live.BrokerError{Class: live.ErrIndeterminate, Msg: msg, Err: err}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return &live.BrokerError{Class: live.ErrTransport, Msg: msg, Err: err}
	}
	return &live.BrokerError{Class: live.ErrTransport, Msg: msg, Err: err}
}

// apiMessage is Alpaca's own message and status when the SDK parsed one.
func apiMessage(err error) string {
	var ae *sdk.APIError
	if errors.As(err, &ae) {
		if ae.Code != 0 {
			return fmt.Sprintf("%s (HTTP %d, code %d)", ae.Message, ae.StatusCode, ae.Code)
		}
		return fmt.Sprintf("%s (HTTP %d)", ae.Message, ae.StatusCode)
	}
	return err.Error()
}

// notFound reports a 404 from the last request.
func notFound(rt *roundTrip) bool {
	status, _, _ := rt.snapshot()
	return status == http.StatusNotFound
}
