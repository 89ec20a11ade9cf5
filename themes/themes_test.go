package themes

import (
	"image/color"
	"testing"

	"charm.land/lipgloss/v2"
)

func TestResolve(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	tests := []struct {
		name   string
		dark   bool
		noCol  string
		want   string
		errors bool
	}{
		{"auto", true, "", "dark", false},
		{"auto", false, "", "light", false},
		{"", true, "", "dark", false},
		{"high-contrast", true, "", "high-contrast", false},
		{"dark", true, "1", "no-color", false},
		{"neon", true, "", "", true},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.name, tt.dark, env(tt.noCol))
		if (err != nil) != tt.errors || got.Name != tt.want {
			t.Errorf("Resolve(%q, dark=%v, NO_COLOR=%q) = %q, %v; want %q", tt.name, tt.dark, tt.noCol, got.Name, err, tt.want)
		}
	}
}

// TestEveryTokenSet: a preset with a nil token would silently render in the default colour.
func TestEveryTokenSet(t *testing.T) {
	for _, name := range Names {
		th, _ := ByName(name, true)
		for i, c := range []color.Color{th.Text, th.Muted, th.Border, th.Focus, th.Accent, th.Profit, th.Loss, th.Warn,
			th.Critical, th.Halt, th.OnHalt, th.Live, th.Paper, th.OnBadge} {
			if c == nil {
				t.Errorf("%s: token %d is nil", name, i)
			}
			if _, plain := c.(lipgloss.NoColor); plain != th.Plain {
				t.Errorf("%s: token %d plain=%v, theme Plain=%v", name, i, plain, th.Plain)
			}
		}
	}
}
