package sshserve

import (
	"fmt"
	"testing"
	"time"
)

// TestLimiter: max failures within the window block an address, others are untouched, and
// aged failures are forgotten (swept once many addresses are tracked).
func TestLimiter(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(3, time.Minute, func() time.Time { return now })
	for i := range 3 {
		if l.Blocked("10.0.0.1") {
			t.Fatalf("blocked after %d failures", i)
		}
		l.Fail("10.0.0.1")
	}
	if !l.Blocked("10.0.0.1") || l.Blocked("10.0.0.2") {
		t.Fatalf("blocked: 10.0.0.1 %v (want true), 10.0.0.2 %v (want false)", l.Blocked("10.0.0.1"), l.Blocked("10.0.0.2"))
	}
	now = now.Add(61 * time.Second)
	if l.Blocked("10.0.0.1") {
		t.Fatal("still blocked after the window")
	}
	for i := range maxTracked + 1 {
		l.Fail(fmt.Sprintf("192.0.2.%d", i))
	}
	now = now.Add(2 * time.Minute)
	l.Fail("198.51.100.1")
	if got := len(l.fails); got != 1 {
		t.Fatalf("tracking %d addresses after the sweep, want 1", got)
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
