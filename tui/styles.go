package tui

import (
	"charm.land/lipgloss/v2"

	"cockpit/themes"
)

// Styles are the lipgloss styles derived from a theme, built once per theme change.
type Styles struct {
	Theme     themes.Theme
	Text      lipgloss.Style
	Muted     lipgloss.Style
	Title     lipgloss.Style
	Pane      lipgloss.Style // border of an unfocused pane
	Focused   lipgloss.Style // border of the focused pane
	Selected  lipgloss.Style // the selected row
	Header    lipgloss.Style // table headers
	Profit    lipgloss.Style
	Loss      lipgloss.Style
	Warn      lipgloss.Style
	Critical  lipgloss.Style
	HaltBar   lipgloss.Style // the whole status bar while halted
	LiveBadge lipgloss.Style
	Paper     lipgloss.Style
	Active    lipgloss.Style // the ACTIVE state badge
	Reduce    lipgloss.Style // the REDUCE_ONLY state badge
	Halted    lipgloss.Style // the HALTED state badge
	Modal     lipgloss.Style
	Key       lipgloss.Style // a key in help text
}

// NewStyles derives the styles of a theme.
func NewStyles(t themes.Theme) Styles {
	s := lipgloss.NewStyle
	border := lipgloss.RoundedBorder()
	if t.Plain {
		border = lipgloss.NormalBorder()
	}
	st := Styles{
		Theme:     t,
		Text:      s().Foreground(t.Text),
		Muted:     s().Foreground(t.Muted),
		Title:     s().Foreground(t.Accent).Bold(true),
		Pane:      s().Border(border).BorderForeground(t.Border),
		Focused:   s().Border(lipgloss.ThickBorder()).BorderForeground(t.Focus),
		Selected:  s().Reverse(true),
		Header:    s().Foreground(t.Muted).Bold(true),
		Profit:    s().Foreground(t.Profit),
		Loss:      s().Foreground(t.Loss),
		Warn:      s().Foreground(t.Warn).Bold(true),
		Critical:  s().Foreground(t.Critical).Bold(true),
		HaltBar:   s().Background(t.Halt).Foreground(t.OnHalt).Bold(true),
		LiveBadge: s().Background(t.Live).Foreground(t.OnBadge).Bold(true),
		Paper:     s().Background(t.Paper).Foreground(t.OnBadge).Bold(true),
		Active:    s().Foreground(t.Profit).Bold(true),
		Reduce:    s().Foreground(t.Warn).Bold(true).Reverse(true),
		Halted:    s().Background(t.Halt).Foreground(t.OnHalt).Bold(true).Reverse(t.Plain),
		Modal:     s().Border(lipgloss.DoubleBorder()).BorderForeground(t.Focus).Padding(0, 1),
		Key:       s().Foreground(t.Accent).Bold(true),
	}
	return st
}
