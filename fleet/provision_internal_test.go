package fleet

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestRetryAsksAgainWhenUnanswered: a JetStream request a forming cluster never answers is
// asked again after attemptTimeout, not waited on until provisioning's whole deadline (CI
// lost 60 s and TestFleetClusterLeaderLoss to one such request: "bucket cockpit_halt: context
// deadline exceeded"). An error that is not a cluster settling, or the end of the whole
// deadline, still ends the retries. A store still being made by an earlier try
// ("error creating store for stream", seen in CI on a loaded disk: TestFleetServeTLS) is
// asked again too.
func TestRetryAsksAgainWhenUnanswered(t *testing.T) {
	defer func(d time.Duration) { attemptTimeout = d }(attemptTimeout)
	attemptTimeout = 20 * time.Millisecond
	refused := errors.New("permissions violation")
	tests := []struct {
		name      string
		answers   []error // nil: the attempt is never answered
		whole     time.Duration
		wantErr   error
		wantCalls int
	}{
		{"unanswered then answered", []error{nil, errOK}, 10 * time.Second, nil, 2},
		{"twice unanswered then answered", []error{nil, nil, errOK}, 10 * time.Second, nil, 3},
		{"refused at once", []error{refused}, 10 * time.Second, refused, 1},
		{"no responders (a bucket with no leader yet) then answered", []error{nats.ErrNoResponders, errOK}, 10 * time.Second, nil, 2},
		{"store still being made then made", []error{&jetstream.APIError{Code: 500, ErrorCode: storeBusy}, errOK}, 10 * time.Second, nil, 2},
		{"never answered within the whole deadline", []error{nil, nil, nil, nil, nil, nil, nil, nil}, 300 * time.Millisecond, context.DeadlineExceeded, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.whole)
			defer cancel()
			calls := 0
			err := retry(ctx, func(actx context.Context) error {
				a := tt.answers[min(calls, len(tt.answers)-1)]
				calls++
				if a == nil {
					<-actx.Done()
					return actx.Err()
				}
				if a == errOK {
					return nil
				}
				return a
			})
			if !errors.Is(err, tt.wantErr) && !(tt.wantErr == nil && err == nil) {
				t.Fatalf("retry = %v, want %v", err, tt.wantErr)
			}
			if tt.wantCalls > 0 && calls != tt.wantCalls {
				t.Errorf("attempts = %d, want %d", calls, tt.wantCalls)
			}
		})
	}
}

var errOK = errors.New("ok")
