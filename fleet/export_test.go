package fleet

import (
	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// SetLoseAnswer sets the test seam of d: the answer of a landed write is dropped when lose
// returns true for its delta.
func SetLoseAnswer(d *Days, lose func(delta int) bool) { d.loseAnswer = lose }

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
