package fleet

import (
	"context"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// SetLoseAnswer sets the test seam of d: the answer of a landed write is dropped when lose
// returns true for its delta.
func SetLoseAnswer(d *Days, lose func(delta int) bool) { d.loseAnswer = lose }

// SetEchoRace makes a landed write of d answer as a lost race when echo returns true for its
// delta (the client's retry of a publish that landed).
func SetEchoRace(d *Days, echo func(delta int) bool) { d.echoRace = echo }

// AdminJetStream connects to ns in-process as a's administrator (what only the server's
// operator holds): the tests use it to do what no host may, such as purging the stream.
func AdminJetStream(ns *server.Server, a *Authority) (jetstream.JetStream, func(), error) {
	c, err := a.adminCreds()
	if err != nil {
		return nil, nil, err
	}
	tok, err := jwt.ParseDecoratedJWT(c.Data)
	if err != nil {
		return nil, nil, err
	}
	kp, err := jwt.ParseDecoratedUserNKey(c.Data)
	if err != nil {
		return nil, nil, err
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns), nats.UserJWTAndSeed(tok, seedOf(kp)))
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return js, nc.Close, nil
}

// Retained is retained, for the retention test.
var Retained = retained

// SetLeaseTimes sets how long d's leased slots may stay unused (idle) or held (hold) before
// they are given back.
func SetLeaseTimes(d *Days, idle, hold time.Duration) { d.lease.idle, d.lease.hold = idle, hold }

// ReturnIdleAt runs the return timer of broker's day pool as if it fired at now.
func ReturnIdleAt(d *Days, broker, day string, now time.Time) { d.returnIdle(dayKey(broker, day), now) }

// Pooled is how many leased slots of broker's day d holds unused.
func Pooled(d *Days, broker, day string) int {
	n, _ := d.unused(dayKey(broker, day))
	return n
}

// Taken is the slots the day key holds (orders sent and leased slots unused), as a host with
// no lease of its own reads the head.
func Taken(ctx context.Context, f *Fleet, broker, day string) (int, error) {
	d := &Days{F: f}
	kv, err := f.bucket(ctx, DayBucket)
	if err != nil {
		return 0, err
	}
	h, err := d.head(ctx, kv, dayKey(broker, day))
	return h.n, err
}

// CountAt is d.Count read at now (how old the hosts' Open entries are).
func CountAt(ctx context.Context, d *Days, broker, day string, now time.Time) (int, error) {
	return d.countAt(ctx, broker, day, now)
}
