package fleet

import (
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

// TestMirrorIgnoresStaleValue: the bucket poll read a halt before the watch applied the
// newer resume, and applies it after: the mirror must not trip the HALT again (it did, under
// the race detector, in TestFleetServerStopsMidSession: h2 stayed halted after h1's resume).
func TestMirrorIgnoresStaleValue(t *testing.T) {
	a, err := NewAuthority()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]*Identity{}
	var peers []Peer
	for _, h := range []string{"h1", "h2"} {
		c, err := a.Issue(h)
		if err != nil {
			t.Fatal(err)
		}
		if ids[h], err = ParseIdentity(c.Data); err != nil {
			t.Fatal(err)
		}
		p, err := a.SignPeer(h, c.Key, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		peers = append(peers, p)
	}
	ns, err := Serve(ServeOptions{Port: -1, StoreDir: t.TempDir(), Auth: a, Peers: peers})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	f, err := Connect(Options{URL: ns.ClientURL(), Identity: ids["h2"]})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	root := livetest.Root(t)
	m := &Mirror{F: f, Root: root}
	key := HaltKey(live.GlobalScope)

	signed := func(v HaltValue) HaltValue {
		v.Host, v.Instance = "h1", "fi_h1_000000000000"
		v.Sig = ids["h1"].sign(v.input(key))
		return v
	}
	at := time.Now()
	halted := signed(HaltValue{Halted: true, By: "alice", Reason: "stop", At: at})
	resumed := signed(HaltValue{Halted: false, By: "alice", Reason: "go", At: at.Add(time.Minute)})
	m.applyWatched(live.GlobalScope, halted)
	if !halt.IsGloballyHalted(root) {
		t.Fatal("h1's halt was not mirrored")
	}
	gen := m.watchedOf(key) // the poll reads the halt here…
	m.applyWatched(live.GlobalScope, resumed)
	if halt.IsGloballyHalted(root) {
		t.Fatal("h1's resume was not mirrored")
	}
	m.applyPolled(live.GlobalScope, halted, gen) // …and applies it after the watch's resume
	if halt.IsGloballyHalted(root) {
		t.Fatal("a stale read of the bucket tripped the HALT again after the newer resume")
	}
	m.applyPolled(live.GlobalScope, halted, m.watchedOf(key)) // a fresh read of a halt still applies
	if !halt.IsGloballyHalted(root) {
		t.Fatal("a poll's current read of a halt was not applied")
	}
}
