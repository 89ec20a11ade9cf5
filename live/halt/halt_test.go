package halt

import (
	"os"
	"testing"

	"cockpit/live"
	"cockpit/live/livetest"
)

func TestHaltTripClearRead(t *testing.T) {
	root := livetest.Root(t)
	if IsHalted(root, "paper") || IsGloballyHalted(root) {
		t.Fatal("halted on an empty root")
	}
	if _, err := Trip(root, live.HaltSentinel, live.BrokerScope(" PAPER "), "cli", "stop", livetest.Epoch); err != nil {
		t.Fatal(err)
	}
	if !IsHalted(root, "paper") || IsHalted(root, "alpaca") || IsGloballyHalted(root) {
		t.Fatal("broker trip must halt only that broker")
	}
	a, err := ReadSentinel(root, live.HaltSentinel, live.BrokerScope("paper"))
	if err != nil || a == nil || a.By != "cli" || a.Reason != "stop" || a.TrippedAt != "2026-06-01T15:00:00.000000+00:00" {
		t.Fatalf("attribution = %+v, %v", a, err)
	}
	if _, err := Trip(root, live.HaltSentinel, live.GlobalScope, "tui", "panic", livetest.Epoch); err != nil {
		t.Fatal(err)
	}
	if !IsHalted(root, "alpaca") {
		t.Fatal("global trip must halt every broker")
	}
	for i, want := range []bool{true, false} { // clearing twice: the second finds nothing
		existed, err := Clear(root, live.HaltSentinel, live.GlobalScope)
		if err != nil || existed != want {
			t.Fatalf("clear %d = %v, %v; want %v", i, existed, err, want)
		}
	}
	if !IsHalted(root, "paper") {
		t.Fatal("clearing global must leave the broker sentinel")
	}
	if got := StateOf(root, "paper"); got != live.Halted {
		t.Fatalf("state = %s, want HALTED", got)
	}
}

func TestHaltFailsClosed(t *testing.T) {
	root := livetest.Root(t)
	for _, bad := range []string{"", "  ", "../evil", "a/b", `a\b`, "x\x00y"} {
		if !IsHalted(root, bad) {
			t.Errorf("IsHalted(%q) = false, want true for an invalid broker key", bad)
		}
	}
	// A stat error other than "not found" counts as halted: make the broker directory a file.
	if err := os.MkdirAll(root.LiveDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root.BrokerDir("blocked"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !IsHalted(root, "blocked") {
		t.Error("ENOTDIR on the sentinel path must count as halted")
	}
	// Junk content still halts, and reads as an empty attribution.
	if err := os.WriteFile(root.SentinelPath(live.HaltSentinel, ""), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadSentinel(root, live.HaltSentinel, live.GlobalScope)
	if err != nil || a == nil || a.Raw.Len() != 0 || !IsGloballyHalted(root) {
		t.Fatalf("junk sentinel: %+v, %v", a, err)
	}
}

func TestReduceOnlyState(t *testing.T) {
	root := livetest.Root(t)
	if _, err := Trip(root, live.ReduceOnlySentinel, live.GlobalScope, "cli", "wind down", livetest.Epoch); err != nil {
		t.Fatal(err)
	}
	if got := StateOf(root, "paper"); got != live.ReduceOnly {
		t.Fatalf("state = %s, want REDUCE_ONLY", got)
	}
	if _, err := Trip(root, live.HaltSentinel, live.BrokerScope("paper"), "cli", "stop", livetest.Epoch); err != nil {
		t.Fatal(err)
	}
	if got := StateOf(root, "paper"); got != live.Halted {
		t.Fatalf("state = %s, want HALTED (HALT wins)", got)
	}
}

func TestTripLeavesNoTempFiles(t *testing.T) {
	root := livetest.Root(t)
	for i := 0; i < 3; i++ {
		if _, err := Trip(root, live.HaltSentinel, live.GlobalScope, "cli", "x", livetest.Epoch); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(root.LiveDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "HALT" {
		t.Fatalf("live/ holds %v, want only HALT", entries)
	}
	fi, _ := os.Stat(root.LiveDir())
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("live/ mode %o, want 700", fi.Mode().Perm())
	}
}
