package themes

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
)

// Theme is a set of semantic colour tokens. Screens derive their styles from these, never
// from raw colours, so a preset or NO_COLOR changes everything at once. Every state a colour
// shows is also written in words or glyphs, so no token is the only carrier of meaning.
type Theme struct {
	Name     string
	Plain    bool        // no colour at all (NO_COLOR, the no-color preset, tests)
	Text     color.Color // body text
	Muted    color.Color // secondary text, stale or unknown values
	Border   color.Color // pane borders
	Focus    color.Color // the focused pane's border and the selection
	Accent   color.Color // titles, the active state
	Profit   color.Color // gains, healthy
	Loss     color.Color // losses
	Warn     color.Color // 70–90 % headroom, reduce-only
	Critical color.Color // ≥ 90 % headroom, denials, findings
	Halt     color.Color // the HALTED banner background
	OnHalt   color.Color // text on Halt
	Live     color.Color // the LIVE badge background
	Paper    color.Color // the PAPER badge background
	OnBadge  color.Color // text on badges
}

// Names lists the presets.
var Names = []string{"dark", "light", "high-contrast", "no-color"}

// Dark is for dark terminal backgrounds.
func Dark() Theme {
	c := lipgloss.Color
	return Theme{Name: "dark", Text: c("#d8dee9"), Muted: c("#7b8394"), Border: c("#4c566a"), Focus: c("#88c0d0"),
		Accent: c("#81a1c1"), Profit: c("#a3be8c"), Loss: c("#e06c75"), Warn: c("#ebcb8b"), Critical: c("#ff5f5f"),
		Halt: c("#c0392b"), OnHalt: c("#ffffff"), Live: c("#c0392b"), Paper: c("#3b6ea5"), OnBadge: c("#ffffff")}
}

// Light is for light terminal backgrounds.
func Light() Theme {
	c := lipgloss.Color
	return Theme{Name: "light", Text: c("#2e3440"), Muted: c("#6b7280"), Border: c("#9ca3af"), Focus: c("#1d4ed8"),
		Accent: c("#1e40af"), Profit: c("#15803d"), Loss: c("#b91c1c"), Warn: c("#a16207"), Critical: c("#b91c1c"),
		Halt: c("#b91c1c"), OnHalt: c("#ffffff"), Live: c("#b91c1c"), Paper: c("#1e3a8a"), OnBadge: c("#ffffff")}
}

// HighContrast uses the 16 basic colours at full intensity.
func HighContrast() Theme {
	c := lipgloss.Color
	return Theme{Name: "high-contrast", Text: c("15"), Muted: c("7"), Border: c("15"), Focus: c("11"), Accent: c("14"),
		Profit: c("10"), Loss: c("9"), Warn: c("11"), Critical: c("9"), Halt: c("9"), OnHalt: c("15"), Live: c("9"),
		Paper: c("12"), OnBadge: c("0")}
}

// NoColor has no colours; bold and reverse video still mark states.
func NoColor() Theme {
	n := lipgloss.NoColor{}
	return Theme{Name: "no-color", Plain: true, Text: n, Muted: n, Border: n, Focus: n, Accent: n, Profit: n, Loss: n,
		Warn: n, Critical: n, Halt: n, OnHalt: n, Live: n, Paper: n, OnBadge: n}
}

// ByName returns a preset. "auto" (or "") picks dark or light from the terminal background.
func ByName(name string, darkBackground bool) (Theme, error) {
	switch strings.ToLower(name) {
	case "", "auto":
		if darkBackground {
			return Dark(), nil
		}
		return Light(), nil
	case "dark":
		return Dark(), nil
	case "light":
		return Light(), nil
	case "high-contrast":
		return HighContrast(), nil
	case "no-color", "none":
		return NoColor(), nil
	}
	return Theme{}, fmt.Errorf("unknown theme %q (want %s)", name, strings.Join(Names, ", "))
}

// Resolve picks the theme for a screen: NO_COLOR (set to anything non-empty) wins over the
// configured name, as https://no-color.org asks.
func Resolve(name string, darkBackground bool, getenv func(string) string) (Theme, error) {
	if getenv != nil && getenv("NO_COLOR") != "" {
		return NoColor(), nil
	}
	return ByName(name, darkBackground)
}
