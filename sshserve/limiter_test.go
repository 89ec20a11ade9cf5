package sshserve

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLimiter: max failures of one key from one address within the window block that key
// there; another key, and the same key from another address, are untouched; the address is
// noisy once its keys failed max times together; aged failures are forgotten (swept once
// many are tracked).
func TestLimiter(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(3, time.Minute, func() time.Time { return now })
	for i := range 3 {
		if l.Blocked("10.0.0.1", "SHA256:bad") {
			t.Fatalf("blocked after %d failures", i)
		}
		if noisy := l.Fail("10.0.0.1", "SHA256:bad"); noisy != (i == 2) {
			t.Fatalf("failure %d: noisy = %v, want %v (only the one reaching the limit)", i+1, noisy, i == 2)
		}
	}
	for _, tc := range []struct {
		host, fp string
		want     bool
	}{{"10.0.0.1", "SHA256:bad", true}, {"10.0.0.1", "SHA256:good", false}, {"10.0.0.1", "", false}, {"10.0.0.2", "SHA256:bad", false}} {
		if got := l.Blocked(tc.host, tc.fp); got != tc.want {
			t.Errorf("Blocked(%s, %q) = %v, want %v", tc.host, tc.fp, got, tc.want)
		}
	}
	if !l.Noisy("10.0.0.1") || l.Noisy("10.0.0.2") {
		t.Errorf("noisy: 10.0.0.1 %v (want true), 10.0.0.2 %v (want false)", l.Noisy("10.0.0.1"), l.Noisy("10.0.0.2"))
	}
	l.Fail("10.0.0.3", "SHA256:a")
	l.Fail("10.0.0.3", "SHA256:b")
	if !l.Fail("10.0.0.3", "") || l.Blocked("10.0.0.3", "SHA256:a") || l.Blocked("10.0.0.3", "") {
		t.Error("three different failures: want the address noisy and no key blocked")
	}
	now = now.Add(61 * time.Second)
	if l.Blocked("10.0.0.1", "SHA256:bad") || l.Noisy("10.0.0.1") {
		t.Fatal("still blocked after the window")
	}
	for i := range maxTracked {
		l.Fail(fmt.Sprintf("192.0.2.%d", i), "SHA256:x")
	}
	now = now.Add(2 * time.Minute)
	for i := 0; l.fails["192.0.2.0"] != nil; i++ { // new failures until a sweep comes
		if i > 4*maxTracked {
			t.Fatalf("no sweep after %d more failures (%d counters held)", i, len(l.fails))
		}
		l.Fail(fmt.Sprintf("198.51.100.%d", i), "SHA256:x")
	}
	for k := range l.fails {
		if strings.HasPrefix(k, "192.0.2.") {
			t.Fatalf("counter %s kept after the sweep, want every aged one dropped", k)
		}
	}
}

// TestInflightClose: close waits for the calls under way, and no call starts after it.
func TestInflightClose(t *testing.T) {
	f := newInflight()
	if !f.enter() {
		t.Fatal("enter refused before close")
	}
	closed := make(chan struct{})
	go func() { f.close(); close(closed) }()
	for { // wait until close has marked it closed
		f.mu.Lock()
		c := f.closed
		f.mu.Unlock()
		if c {
			break
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-closed:
		t.Fatal("close returned with a call under way")
	default:
	}
	if f.enter() {
		t.Fatal("a call started after close")
	}
	f.leave()
	<-closed
}
