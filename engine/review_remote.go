package engine

import (
	"crypto/sha256"
	"encoding/hex"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
)

// reviewOrder is the order a human is shown and the digest their grant binds: for a broker
// server's own order tool (a profile submission) it is the gate's intent plus the tool and
// the agent's exact arguments, which are what is forwarded. ok is false when there is no
// intent to show (the gate could not read one).
func reviewOrder(broker string, sub gate.Submission, d gate.Decision) (live.OrderIntent, *jsonv.Object, string, bool) {
	var in live.OrderIntent
	switch {
	case d.Intent != nil:
		in = *d.Intent
	case sub.Intent != nil:
		in = *sub.Intent
	default:
		return in, nil, "", false
	}
	if sub.Profile == nil {
		o, digest := canonicalOrder(broker, in, sub.Order)
		return in, o, digest, true
	}
	o, _ := canonicalOrder(broker, in, live.OrderRequest{Quantity: in.Quantity, Notional: in.NotionalUSD, LimitPrice: in.LimitPrice,
		StopPrice: in.StopPrice, TrailAmount: in.TrailAmount, TrailPercent: in.TrailPercent})
	o.Set("tool", sub.Tool)
	o.Set("args", jsonv.Clone(sub.Args))
	b, _ := jsonv.Canonical(o)
	sum := sha256.Sum256(b)
	return in, o, hex.EncodeToString(sum[:]), true
}
