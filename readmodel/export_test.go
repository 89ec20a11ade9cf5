package readmodel

import (
	"context"

	"cockpit/live"
)

// MandateCheck is the reader's kept mandate check, for tests and benchmarks.
func (r *Reader) MandateCheck(ctx context.Context) live.MandateCheck { return r.mandateCheck(ctx) }
