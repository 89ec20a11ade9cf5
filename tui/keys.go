package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap is every binding of the screen. It implements help.KeyMap.
type KeyMap struct {
	Halt, Flatten, Resume, Help, Quit, Back                     key.Binding
	NextPane, PrevPane, Up, Down, Top, Bottom, PageUp, PageDown key.Binding
	Details, Filter, Command, Freeze, Privacy, Mandate, Audit   key.Binding
	AuditTail, Trades                                           key.Binding
	Approve, Deny, DenyAll, Cancel, CancelAll, Close            key.Binding
	Yes, No                                                     key.Binding
	Pane                                                        [6]key.Binding
}

// DefaultKeyMap is the key map of design §10 and field-anchors D2.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := KeyMap{
		Halt:      b("H", "HALT now", "H", "ctrl+k"),
		Flatten:   b("X", "flatten", "X"),
		Resume:    b("U", "resume", "U"),
		Help:      b("?", "help", "?", "f1"),
		Quit:      b("q", "quit", "q", "ctrl+c"),
		Back:      b("esc", "back", "esc"),
		NextPane:  b("tab", "next pane", "tab"),
		PrevPane:  b("shift+tab", "previous pane", "shift+tab"),
		Up:        b("k/↑", "up", "k", "up"),
		Down:      b("j/↓", "down", "j", "down"),
		Top:       b("g", "top", "g", "home"),
		Bottom:    b("G", "bottom", "G", "end"),
		PageUp:    b("ctrl+u", "page up", "ctrl+u", "pgup"),
		PageDown:  b("ctrl+d", "page down", "ctrl+d", "pgdown"),
		Details:   b("enter", "details", "enter"),
		Filter:    b("/", "filter", "/"),
		Command:   b(":", "command", ":"),
		Freeze:    b("f", "freeze", "f"),
		Privacy:   b("P", "privacy", "P"),
		Mandate:   b("M", "mandate", "M"),
		Audit:     b("L", "audit log", "L"),
		AuditTail: b("@", "audit tail", "@"),
		Trades:    b("T", "day's trades", "T"),
		Approve:   b("a", "approve", "a"),
		Deny:      b("d", "deny", "d"),
		DenyAll:   b("D", "deny all", "D"),
		Cancel:    b("c", "cancel order", "c"),
		CancelAll: b("C", "cancel all", "C"),
		Close:     b("x", "close position", "x"),
		Yes:       b("y", "yes", "y"),
		No:        b("n", "no", "n", "N"),
	}
	for i := range k.Pane {
		n := fmt.Sprint(i + 1)
		k.Pane[i] = b(n, paneNames[i], n)
	}
	return k
}

// bindings names the rebindable actions (config [tui.keys]).
func (k *KeyMap) bindings() map[string]*key.Binding {
	return map[string]*key.Binding{"halt": &k.Halt, "flatten": &k.Flatten, "resume": &k.Resume, "help": &k.Help,
		"quit": &k.Quit, "filter": &k.Filter, "command": &k.Command, "freeze": &k.Freeze, "privacy": &k.Privacy,
		"mandate": &k.Mandate, "audit": &k.Audit, "audit_tail": &k.AuditTail, "trades": &k.Trades, "approve": &k.Approve, "deny": &k.Deny,
		"deny_all": &k.DenyAll, "cancel": &k.Cancel, "cancel_all": &k.CancelAll, "close": &k.Close,
		"next_pane": &k.NextPane, "prev_pane": &k.PrevPane, "up": &k.Up, "down": &k.Down, "top": &k.Top, "bottom": &k.Bottom}
}

// risky actions may never be bound to enter or esc (which must never confirm anything).
var risky = map[string]bool{"halt": true, "flatten": true, "resume": true, "approve": true, "cancel": true,
	"cancel_all": true, "close": true, "quit": true}

// Rebind applies config overrides (action → comma-separated keys). Halt keeps ctrl+k
// whatever the config says, so it always has a binding; no risky action may use enter or esc.
func (k *KeyMap) Rebind(over map[string]string) error {
	bs := k.bindings()
	for _, name := range slices.Sorted(maps.Keys(over)) {
		b, ok := bs[name]
		if !ok {
			return fmt.Errorf("tui.keys.%s: unknown action (known: %s)", name, strings.Join(actionNames(bs), ", "))
		}
		var keys []string
		for _, s := range strings.Split(over[name], ",") {
			if s = strings.TrimSpace(s); s != "" {
				keys = append(keys, s)
			}
		}
		if len(keys) == 0 {
			return fmt.Errorf("tui.keys.%s = %q: no key", name, over[name])
		}
		for _, s := range keys {
			if risky[name] && (s == "enter" || s == "esc") {
				return fmt.Errorf("tui.keys.%s = %q: %s may not be bound to %s", name, over[name], name, s)
			}
		}
		if name == "halt" && !contains(keys, "ctrl+k") {
			keys = append(keys, "ctrl+k")
		}
		b.SetKeys(keys...)
		b.SetHelp(keys[0], b.Help().Desc)
	}
	return nil
}

func actionNames(bs map[string]*key.Binding) []string {
	return slices.Sorted(maps.Keys(bs))
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Filter, k.NextPane, k.Approve, k.Deny, k.Cancel, k.Freeze, k.Halt, k.Flatten, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Halt, k.Flatten, k.Resume, k.Quit, k.Back, k.Help},
		{k.NextPane, k.PrevPane, k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown},
		{k.Details, k.Filter, k.Command, k.Freeze, k.Privacy, k.Mandate, k.Audit, k.AuditTail, k.Trades},
		{k.Approve, k.Deny, k.DenyAll, k.Cancel, k.CancelAll, k.Close},
	}
}
