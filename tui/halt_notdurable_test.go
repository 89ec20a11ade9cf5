package tui

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"cockpit/live"
	"cockpit/live/halt"
)

// TestHaltNotDurableShowsHalted: a HALT whose file is in place but whose fsync failed is
// shown as the halt it is, with a critical alert about the disk, never as "halt FAILED"
// (the screen said it failed while the file stopped every order).
func TestHaltNotDurableShowsHalted(t *testing.T) {
	m, _, _ := newTestModel(t, 160, 45)
	err := fmt.Errorf("write the HALT file: trip HALT: write live/HALT: %w: %w", halt.ErrNotDurable, syscall.EIO)
	m.Update(ActionDoneMsg{What: ActHalt, Err: err})
	got := screen(m)
	if strings.Contains(got, "FAILED") {
		t.Errorf("screen says the halt failed:\n%s", got)
	}
	for _, want := range []string{"HALTED everything", "not known to be on disk"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q:\n%s", want, got)
		}
	}
	if m.data.Snap.State != live.Halted {
		t.Errorf("state: got %s, want %s", m.data.Snap.State, live.Halted)
	}
	m2, _, _ := newTestModel(t, 160, 45)
	m2.Update(ActionDoneMsg{What: ActHalt, Err: errors.New("permission denied")})
	if got := screen(m2); !strings.Contains(got, "FAILED") {
		t.Errorf("a halt that wrote nothing is not shown as failed:\n%s", got)
	}
}
