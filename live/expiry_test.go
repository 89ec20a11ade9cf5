package live

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

// TestParseISOMatchesCPython compares the grammar port with what CPython 3.11's
// datetime.fromisoformat did on ~12,000 strings (testdata/gen_isoformat.py).
func TestParseISOMatchesCPython(t *testing.T) {
	raw, err := os.ReadFile("testdata/isoformat.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Input   string `json:"input"`
		EpochUS *int64 `json:"epoch_us"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, c := range cases {
		got, err := parseISO(c.Input)
		switch {
		case c.EpochUS == nil && err == nil:
			t.Errorf("parseISO(%q) = %v, want an error", c.Input, got)
			bad++
		case c.EpochUS != nil && err != nil:
			t.Errorf("parseISO(%q) failed, want %v", c.Input, time.UnixMicro(*c.EpochUS).UTC())
			bad++
		case c.EpochUS != nil && got.UnixMicro() != *c.EpochUS:
			t.Errorf("parseISO(%q) = %v, want %v", c.Input, got, time.UnixMicro(*c.EpochUS).UTC())
			bad++
		}
		if bad > 20 {
			t.Fatal("too many differences")
		}
	}
}

func TestParseExpiry(t *testing.T) {
	now := time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)
	cases := []struct {
		in      string
		expired bool
	}{
		{"2026-06-01T15:00:00Z", true},
		{"2026-06-01T15:00:01Z", false},
		{"2026-06-01T15:00:01z", false},  // DV7: lower-case z accepted
		{" 2026-06-02T00:00:00Z", false}, // DV7: trimmed
		{"2026-06-01T16:00:00+01:00", true},
		{"2026-06-01", true},
		{"20260602T000000Z", false},
		{"", true},
		{"not-a-date", true},
		{"2026-06-01T15:00:00.000001", false}, // naive is UTC
	}
	for _, c := range cases {
		m := &Mandate{Consent: Consent{ExpiresAt: c.in}}
		if got := m.Expired(now); got != c.expired {
			t.Errorf("Expired(%q) = %v, want %v", c.in, got, c.expired)
		}
	}
}
