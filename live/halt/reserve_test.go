package halt_test

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

// TestTripOnAFullDisk: when no new file can be written, a global HALT is the reserve renamed
// into place, with its attribution; without a reserve, or for a broker's HALT, the trip fails
// and says so. EnsureReserve makes a new reserve once the disk has room again.
func TestTripOnAFullDisk(t *testing.T) {
	tests := []struct {
		name    string
		reserve bool
		scope   live.Scope
		wantOK  bool
	}{
		{"OK", true, live.GlobalScope, true},
		{"ErrNoReserve", false, live.GlobalScope, false},
		{"ErrBrokerScope", true, live.BrokerScope("paper"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := livetest.Root(t)
			if err := os.MkdirAll(root.BrokerDir("paper"), 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.reserve {
				if err := halt.EnsureReserve(root); err != nil {
					t.Fatal(err)
				}
			}
			restore := atomicfile.FailWrites(syscall.ENOSPC)
			path, err := halt.Trip(root, live.HaltSentinel, tt.scope, "cockpit", "audit_unavailable: disk full", time.Now())
			restore()
			a, _ := halt.ReadSentinel(root, live.HaltSentinel, tt.scope)
			if !tt.wantOK {
				if err == nil || !strings.Contains(err.Error(), "no space left") || a != nil {
					t.Fatalf("trip: %q %v, sentinel %+v; want an error saying no space left, no sentinel", path, err, a)
				}
				return
			}
			if err != nil || a == nil || a.Reason != "audit_unavailable: disk full" || a.By != "cockpit" || a.TrippedAt == "" {
				t.Fatalf("trip: %q %v, sentinel %+v; want the HALT in place with its attribution", path, err, a)
			}
			if _, err := os.Lstat(halt.ReservePath(root)); !os.IsNotExist(err) {
				t.Errorf("reserve after the trip: %v, want it renamed away", err)
			}
			if err := halt.EnsureReserve(root); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(halt.ReservePath(root)); err != nil || fi.Size() != 4096 {
				t.Errorf("new reserve: %v %v, want 4096 bytes", fi, err)
			}
		})
	}
}

// TestReserveIsNotASentinel: a reserve waiting in live/ halts nothing.
func TestReserveIsNotASentinel(t *testing.T) {
	root := livetest.Root(t)
	if err := halt.EnsureReserve(root); err != nil {
		t.Fatal(err)
	}
	if got := halt.StateOf(root, "paper"); got != live.Active {
		t.Errorf("state with a reserve: %s, want ACTIVE", got)
	}
}

// TestReserveTripCutsALongReason: an attribution longer than the reserve is cut to fit it, so
// the file keeps its allocated size and stays valid JSON.
func TestReserveTripCutsALongReason(t *testing.T) {
	root := livetest.Root(t)
	if err := halt.EnsureReserve(root); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 10000)
	restore := atomicfile.FailWrites(syscall.ENOSPC)
	_, err := halt.Trip(root, live.HaltSentinel, live.GlobalScope, "cockpit", long, time.Now())
	restore()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := halt.ReadSentinel(root, live.HaltSentinel, live.GlobalScope)
	if a == nil || a.Reason == "" || !strings.HasPrefix(long, a.Reason) {
		t.Fatalf("sentinel %+v, want a prefix of the reason", a)
	}
	if fi, err := os.Stat(root.SentinelPath(live.HaltSentinel, "")); err != nil || fi.Size() != 4096 {
		t.Errorf("HALT: %v %v, want the reserve's 4096 bytes", fi, err)
	}
}
