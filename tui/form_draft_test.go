package tui

import (
	"testing"

	"cockpit/live"
)

// TestFormStartsFromTheOneDefault: with no mandate the form's document is the domain's
// default paper mandate (the one `cockpit init` commits), byte for byte.
func TestFormStartsFromTheOneDefault(t *testing.T) {
	got, days, err := NewMandateForm("paper", nil).Document()
	if err != nil {
		t.Fatal(err)
	}
	want, err := live.DefaultPaperDraft().JSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) || days != 30 {
		t.Errorf("form document (%d days):\n got %s\nwant %s", days, got, want)
	}
}
