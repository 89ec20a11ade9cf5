package main

import (
	"context"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"cockpit/live"
	"cockpit/live/mandatefile"
	"cockpit/session"
	"cockpit/tui"
)

// mandateNew drafts a mandate in an interactive form (every cap, universe field and control,
// with what each means) and commits it after the typed consent.
func (a *App) mandateNew(args []string) int {
	p, _ := a.preamble("mandate new")
	p.withBroker(live.PaperBroker, "broker the mandate binds")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	key := p.key
	out, ok := a.Stdout.(*os.File)
	if !ok || !term.IsTerminal(out.Fd()) {
		return a.failf("the form needs a terminal; write the mandate to a file and use `cockpit mandate commit --from FILE`")
	}
	rt, code, ok := p.open("cannot commit without the audit trail: ")
	if !ok {
		return code
	}
	defer rt.close()
	cur, _ := mandatefile.Load(rt.Root, key)
	form := tui.NewMandateForm(key, cur)
	actor := live.Operator(operatorName(), "cli")
	form.Commit = func(doc []byte, days int, typed string) tea.Cmd {
		return func() tea.Msg {
			if typed != key {
				return tui.CommitDoneMsg{Err: fmt.Errorf("typed %q, not %q", typed, key)}
			}
			res, err := session.CommitMandate(rt.Runtime, key, doc, "form", days, "", actor)
			return tui.CommitDoneMsg{Result: res, Err: err}
		}
	}
	prog, err := tui.NewFormProgram(form, rt.Config.TUI.Theme, a.Getenv)
	if err != nil {
		return a.failf("config: %v", err)
	}
	if _, err := tea.NewProgram(prog, tea.WithContext(context.Background()), tea.WithOutput(out)).Run(); err != nil {
		return a.failf("the form stopped: %v", err)
	}
	if form.Result == nil {
		fmt.Fprintln(a.Stdout, "Nothing was committed.")
		return exitFailure
	}
	fmt.Fprintf(a.Stdout, "Mandate %s active for %s until %s.\n", form.Result.MandateID, key, form.Result.ExpiresAt)
	return exitOK
}
