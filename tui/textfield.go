package tui

import (
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// textField is a one-line text field: bubbles/textinput edits it (cursor keys, word
// deletes, bracketed paste), and it is drawn with a block cursor. enter and esc belong to
// whoever holds the field.
type textField struct{ ti textinput.Model }

func newTextField(value string) textField {
	ti := textinput.New()
	ti.Prompt = ""
	ti.CharLimit = 200
	ti.SetVirtualCursor(false)        // no blink timer; View draws the cursor
	ti.KeyMap.Paste.SetEnabled(false) // no clipboard reads: the terminal's paste arrives as tea.PasteMsg
	ti.KeyMap.AcceptSuggestion.SetEnabled(false)
	ti.KeyMap.NextSuggestion.SetEnabled(false)
	ti.KeyMap.PrevSuggestion.SetEnabled(false)
	ti.KeyMap.DeleteAfterCursor.SetEnabled(false) // ctrl+k halts, even here
	ti.SetValue(value)
	ti.Focus()
	return textField{ti: ti}
}

// Value is the text.
func (f *textField) Value() string { return f.ti.Value() }

// Update edits the field with a key press or a paste.
func (f *textField) Update(msg tea.Msg) { f.ti, _ = f.ti.Update(msg) }

// View draws the text, with the cursor when the field is active.
func (f *textField) View(active bool) string {
	v := f.ti.Value()
	if !active {
		return v
	}
	r, p := []rune(v), f.ti.Position()
	if p >= len(r) {
		return v + "█"
	}
	return string(r[:p]) + lipgloss.NewStyle().Reverse(true).Render(string(r[p])) + string(r[p+1:])
}

// fieldKey handles enter and esc for a field; other keys and pastes edit it.
func fieldKey(f *textField, msg tea.Msg) (done, cancelled bool) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "enter":
			return true, false
		case "esc":
			return false, true
		}
	}
	f.Update(msg)
	return false, false
}
