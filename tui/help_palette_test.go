package tui

import (
	"os"
	"strings"
	"testing"
)

// helpText is every line the help shows, scrolling with j until the end.
func helpText(m *Model) (first, all string) {
	press(m, "?")
	first = screen(m)
	all = first
	for range 60 {
		press(m, "j")
		all += screen(m)
	}
	return first, all
}

// TestHelpListsEveryKeyAndScrolls: the actions, the pane digits and y/n are in the help at
// every size; at 120×40 they fit at once, at 80×24 the rest is reached by scrolling.
func TestHelpListsEveryKeyAndScrolls(t *testing.T) {
	want := []string{"HALT now", "ctrl+k", "approve", "deny all", "cancel order", "cancel all", "close position",
		"y          yes", "no (default)", "1          Headroom", "6          ", "page down", "audit tail", "Actions", "Panes"}
	for _, sz := range []struct{ w, h int }{{120, 40}, {100, 30}, {80, 24}, {70, 20}} {
		m, _, _ := newTestModel(t, sz.w, sz.h)
		first, all := helpText(m)
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%dx%d: help lacks %q:\n%s", sz.w, sz.h, w, first)
			}
		}
		if sz.w == 120 {
			for _, w := range want {
				if !strings.Contains(first, w) {
					t.Errorf("120x40: %q is not on the first page", w)
				}
			}
			if strings.Contains(first, "j/k scroll") {
				t.Errorf("120x40: the help says it scrolls, but it fits")
			}
		}
		if sz.w == 80 && !strings.Contains(first, "j/k scroll") {
			t.Errorf("80x24: the help does not say it scrolls:\n%s", first)
		}
		if n := strings.Count(first, "\n") + 1; n > sz.h {
			t.Errorf("%dx%d: %d lines", sz.w, sz.h, n)
		}
	}
}

// TestPaletteListsAndCompletes: `:` lists the commands, narrows them as you type, tab
// completes the chosen one, and enter runs it.
func TestPaletteListsAndCompletes(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	press(m, ":")
	s := screen(m)
	for _, w := range []string{"halt broker", "resume", "flatten", "cancel all", "theme NAME", "reduce"} {
		if !strings.Contains(s, w) {
			t.Errorf("the palette lacks %q:\n%s", w, s)
		}
	}
	press(m, "f", "l")
	if s := screen(m); !strings.Contains(s, "flatten") || strings.Contains(s, "halt broker") {
		t.Errorf("after \"fl\" the palette should list flatten only:\n%s", s)
	}
	press(m, "tab")
	if got := m.modal.(*commandModal).in.Value(); got != "flatten" {
		t.Errorf("tab completed to %q, want \"flatten\"", got)
	}
	press(m, "enter")
	if _, ok := m.modal.(*flattenModal); !ok {
		t.Errorf("enter on \"flatten\" opened %T, want the flatten preview", m.modal)
	}

	m, _, _ = newTestModel(t, 120, 40)
	press(m, ":", "t", "h", "tab", "h", "tab")
	if got := m.modal.(*commandModal).in.Value(); got != "theme high-contrast" {
		t.Errorf("tab completed the theme to %q, want \"theme high-contrast\"", got)
	}
	m, _, _ = newTestModel(t, 120, 40)
	press(m, ":", "h", "a", "l", "t", " ", "b", "tab")
	if got := m.modal.(*commandModal).in.Value(); got != "halt broker " {
		t.Errorf("\"halt b\" then tab completed to %q, want \"halt broker \"", got)
	}
	m, _, _ = newTestModel(t, 120, 40)
	press(m, ":", "h", "down", "tab")
	if got := m.modal.(*commandModal).in.Value(); got != "halt broker " {
		t.Errorf("down then tab completed to %q, want \"halt broker \"", got)
	}
}

// TestPaletteListsOnlyCommandsThatExist: every command the palette offers runs.
func TestPaletteListsOnlyCommandsThatExist(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	for _, c := range paletteCommands {
		line := c.name
		switch c.arg {
		case "ID":
			line += " " + m.data.Snap.Orders[0].ID
		case "NAME":
			line += " dark"
		case "SYMBOL":
			line += " AAPL"
		}
		got := command(line, &m.panes)
		if f, ok := got.(flashMsg); got == nil || ok && strings.Contains(string(f), "unknown") {
			t.Errorf("%q: %v, want a command that runs", line, got)
		}
	}
}

// TestUnknownCommandListsThePalette: an unknown command names every command there is.
func TestUnknownCommandListsThePalette(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	got, _ := command("nope", &m.panes).(flashMsg)
	for _, c := range paletteCommands {
		if !strings.Contains(string(got), c.name) {
			t.Errorf("%q lacks %q", got, c.name)
		}
	}
}

// TestMandateFormEscAsksWhenEdited: esc with no edits closes the form; with edits it asks,
// n keeps them, y throws them away. H halts over the question (it is no text field).
func TestMandateFormEscAsksWhenEdited(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	press(m, "M", "n", "esc")
	if m.modal != nil {
		t.Fatalf("esc on an unedited form left %T open", m.modal)
	}
	press(m, "M", "n", "9", "esc")
	if _, ok := m.modal.(*formModal); !ok || !strings.Contains(screen(m), "Discard your edits?") {
		t.Fatalf("esc with edits did not ask:\n%s", screen(m))
	}
	press(m, "n")
	f, ok := m.modal.(*formModal)
	if !ok || !f.form.edited() {
		t.Fatalf("n lost the edits (modal %T)", m.modal)
	}
	press(m, "esc", "y")
	if m.modal != nil {
		t.Errorf("y did not discard: %T still open", m.modal)
	}
}

// TestReadmeHaltKeysAgree: the README says what the keys do (ctrl+k everywhere, H
// everywhere but a text field), which TestHaltAlwaysWorks checks on the screen.
func TestReadmeHaltKeysAgree(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Contains(s, "over any dialog") {
		t.Errorf("README still says H works over any dialog; in a text field it types the letter")
	}
	for _, w := range []string{"`ctrl+k` works everywhere", "`H` works everywhere except in a text field"} {
		if !strings.Contains(s, w) {
			t.Errorf("README lacks %q", w)
		}
	}
}
