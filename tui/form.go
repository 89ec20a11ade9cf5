package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/themes"
)

// formField is one line of the form: a key of the mandate document, what it means, its
// text, and how that text is read into the typed draft.
type formField struct {
	key, label, help string
	initial          string                                     // the text the form starts with
	set              func(d *live.MandateDraft, v string) error // v is trimmed
	in               textField
}

// MandateForm drafts a mandate: every cap, universe field and control with what it means,
// validated by the strict loader as you type, ending in the typed consent and the commit.
type MandateForm struct {
	Broker  string
	fields  []formField
	pos     int
	err     string
	consent bool // the consent step
	discard bool // esc with edits: asking whether to throw them away
	typed   textField
	busy    bool
	Result  *mandatefile.CommitResult
	Err     error
	// Commit is called with the document, the lifetime in days and the typed broker name.
	Commit func(doc []byte, days int, typed string) tea.Cmd
}

// NewMandateForm starts from the current mandate's values (or the one default paper mandate).
func NewMandateForm(broker string, cur *live.Mandate) *MandateForm {
	d := live.DefaultPaperDraft()
	if cur != nil {
		d = live.DraftOf(cur)
	}
	f := &MandateForm{Broker: broker, fields: draftFields(d)}
	for i := range f.fields {
		f.fields[i].in = newTextField(f.fields[i].initial)
	}
	f.validate()
	return f
}

// Document renders the draft as a mandate document (hard caps, universe, flatten_on_halt,
// controls) and the lifetime in days; a field that cannot be read is an error naming it.
func (f *MandateForm) Document() ([]byte, int, error) {
	d, days, err := f.draft()
	if err != nil {
		return nil, 0, err
	}
	b, err := d.JSON()
	return b, days, err
}

// draft reads every field into a typed mandate draft, the first bad field an error.
func (f *MandateForm) draft() (live.MandateDraft, int, error) {
	var d live.MandateDraft
	days := 0
	for _, fl := range f.fields {
		v := strings.TrimSpace(fl.in.Value())
		if fl.key == "days" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 365 {
				return d, 0, fmt.Errorf("days = %q: want 1 to 365", v)
			}
			days = n
			continue
		}
		if err := fl.set(&d, v); err != nil {
			return d, 0, err
		}
	}
	return d, days, nil
}

// validate runs the strict loader on the draft.
func (f *MandateForm) validate() bool {
	f.err = ""
	doc, _, err := f.Document()
	if err == nil {
		var v any
		v, err = jsonv.Parse(doc, jsonv.Options{RejectDuplicates: true})
		if err == nil {
			_, err = live.CapsFromJSON(v.(*jsonv.Object))
		}
	}
	if err != nil {
		f.err = err.Error()
		return false
	}
	return true
}

func (f *MandateForm) done(res *mandatefile.CommitResult, err error) {
	f.busy, f.Result, f.Err = false, res, err
}

// Key handles a key; it reports whether the form is finished (committed or abandoned).
func (f *MandateForm) Key(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if f.Result != nil {
		return nil, true
	}
	if f.consent {
		return f.consentKey(k)
	}
	if f.discard {
		switch k.String() {
		case "y":
			return nil, true
		case "n", "N", "esc":
			f.discard = false
		}
		return nil, false
	}
	switch k.String() {
	case "esc":
		f.discard = f.edited()
		return nil, !f.discard
	case "up", "shift+tab":
		f.pos = max(0, f.pos-1)
	case "down", "tab":
		f.pos = min(len(f.fields)-1, f.pos+1)
	case "ctrl+s":
		if f.validate() {
			f.consent, f.typed = true, newTextField("")
		}
	case "enter":
		f.pos = min(len(f.fields)-1, f.pos+1)
	default:
		f.fields[f.pos].in.Update(k)
		f.validate()
	}
	return nil, false
}

// edited reports whether any field differs from the text it started with.
func (f *MandateForm) edited() bool {
	for _, fl := range f.fields {
		if fl.in.Value() != fl.initial {
			return true
		}
	}
	return false
}

// Paste types pasted text into the field being edited (or the consent).
func (f *MandateForm) Paste(p tea.PasteMsg) {
	switch {
	case f.Result != nil || f.busy || f.discard:
	case f.consent:
		f.typed.Update(p)
	default:
		f.fields[f.pos].in.Update(p)
		f.validate()
	}
}

func (f *MandateForm) consentKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if f.busy {
		return nil, false
	}
	done, cancelled := fieldKey(&f.typed, k)
	switch {
	case cancelled:
		f.consent = false
	case done:
		if typed := f.typed.Value(); strings.TrimSpace(typed) != f.Broker {
			f.err = fmt.Sprintf("typed %q, not %q: nothing was committed", typed, f.Broker)
			f.typed = newTextField("")
			return nil, false
		}
		doc, days, err := f.Document()
		if err != nil || f.Commit == nil {
			f.err = fmt.Sprint(err)
			return nil, false
		}
		f.busy = true
		return f.Commit(doc, days, f.typed.Value()), false
	}
	return nil, false
}

// View renders the form in w×h cells.
func (f *MandateForm) View(st Styles, w, h int) string {
	var lines []string
	lines = append(lines, st.Title.Render("New mandate for "+f.Broker), "")
	if f.Result != nil {
		return strings.Join(append(lines, fmt.Sprintf("Committed %s, valid until %s.", f.Result.MandateID, f.Result.ExpiresAt),
			"", "any key closes"), "\n")
	}
	top := max(0, f.pos-(h-14))
	for i := top; i < len(f.fields) && len(lines) < h-9; i++ {
		fl := f.fields[i]
		mark, val := "  ", fl.in.Value()
		if i == f.pos && !f.consent {
			mark, val = "▶ ", st.Selected.Render(fl.in.View(true))
		}
		lines = append(lines, fit(fmt.Sprintf("%s%-26s %s", mark, fl.label, val), w))
	}
	help := f.fields[f.pos].help
	lines = append(lines, "", st.Muted.Render(fit("  "+f.fields[f.pos].key+": "+help, w)))
	if f.err != "" {
		lines = append(lines, st.Critical.Render(fit("  ✖ "+f.err, w)))
	} else {
		lines = append(lines, st.Profit.Render("  ✓ valid"))
	}
	switch {
	case f.busy:
		lines = append(lines, "", "committing…")
	case f.Err != nil:
		lines = append(lines, "", st.Critical.Render("commit failed: "+f.Err.Error()))
	case f.consent:
		lines = append(lines, "", fmt.Sprintf("Type the broker name (%s) and press enter to commit: %s", f.Broker, f.typed.View(true)),
			"esc back to the form")
	case f.discard:
		lines = append(lines, "", st.Warn.Render("Discard your edits?")+"  y discard · n/esc keep editing (default)")
	default:
		lines = append(lines, "", "↑/↓ tab move · type to edit · ctrl+s review and commit · esc cancel")
	}
	for i := range lines {
		lines[i] = ansi.Truncate(lines[i], w, "…")
	}
	return strings.Join(lines, "\n")
}

// formModal shows the form over the screen; the root gives the form its Commit.
type formModal struct {
	c    *Common
	form *MandateForm
}

func (f *formModal) Typing() bool { return !f.form.discard }

func (f *formModal) View(w, h int) string {
	mw := min(100, w-2)
	return f.c.Styles.Modal.Width(mw).Render(f.form.View(f.c.Styles, mw-4, h-2))
}

// Update edits the form; the commit's result comes back as a CommitDoneMsg. A finished form
// closes and asks for a fresh snapshot.
func (f *formModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	switch msg := msg.(type) {
	case CommitDoneMsg:
		f.form.done(msg.Result, msg.Err)
	case tea.PasteMsg:
		f.form.Paste(msg)
	case tea.KeyPressMsg:
		cmd, finished := f.form.Key(msg)
		if finished {
			return closeWith(refreshMsg{}), nil
		}
		return nil, cmd
	}
	return nil, nil
}

// FormProgram runs a MandateForm on its own (`cockpit mandate new`).
type FormProgram struct {
	Form *MandateForm
	st   Styles
	w, h int
}

// NewFormProgram wraps a form in a program with the named theme.
func NewFormProgram(f *MandateForm, theme string, getenv func(string) string) (*FormProgram, error) {
	th, err := themes.Resolve(theme, true, getenv)
	if err != nil {
		return nil, err
	}
	return &FormProgram{Form: f, st: NewStyles(th), w: 100, h: 30}, nil
}

// Init implements tea.Model.
func (p *FormProgram) Init() tea.Cmd { return nil }

// Update implements tea.Model.
func (p *FormProgram) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.w, p.h = msg.Width, msg.Height
	case CommitDoneMsg:
		p.Form.done(msg.Result, msg.Err)
	case tea.PasteMsg:
		p.Form.Paste(msg)
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return p, tea.Quit
		}
		cmd, finished := p.Form.Key(msg)
		if finished {
			return p, tea.Quit
		}
		return p, cmd
	}
	return p, nil
}

// View implements tea.Model.
func (p *FormProgram) View() tea.View {
	v := tea.NewView(p.Form.View(p.st, p.w, p.h))
	v.AltScreen = true
	return v
}
