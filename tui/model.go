package tui

import (
	"cockpit/readmodel"

	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live/gate"
	"cockpit/themes"
)

// Options configure the screen.
type Options struct {
	Backend Backend
	Now     func() time.Time
	Theme   string            // auto | dark | light | high-contrast | no-color
	Keys    map[string]string // [tui.keys] overrides
	Getenv  func(string) string
	// Generation is the engine bus generation the screen accepts events from.
	Generation uint64
	// Tick is the render period (default 200 ms); Poll the snapshot period (default 1 s).
	Tick, Poll time.Duration
	// NoMouse turns the mouse off (--no-mouse, [tui] mouse = false): no clicks, no wheel.
	NoMouse bool
	// Remote: the screen is served over SSH; quitting disconnects it and the session goes on.
	Remote bool
}

// FPS caps how often the program flushes frames (Bubble Tea's default is 60): the screen
// changes at most once per render tick, and each flush timer wakes the idle process.
const FPS = 10

// Model is the root model of the screen: it owns the shared Common and Data, hands keys to
// the open modal or the focused pane, acts on their answers (answers.go) and composes the
// frame (layout.go).
type Model struct {
	c         *Common
	data      *Data // = c.Data
	be        Backend
	opts      Options
	themeName string
	dark      bool

	status      statusBar
	footer      footer
	panes       paneSet
	focus       int  // the focused pane's position (paneHeadroom…paneAudit)
	tailFlipped bool // @ flips whether the audit tail shows
	modal       modal
	flat        *flattenRun // the flatten the operator started, if any

	quit      readmodel.QuitChoice
	lastCtrlC time.Time
	frame     string
	dirty     bool  // state changed since the frame was drawn
	busy      bool  // an engine event or a refresh came since the last tick: tick fast
	drawnAt   int64 // the clock second of the last tick-drawn frame
	tabs      []tab // where the narrow layout drew its tabs (mouse.go)
}

// paneSet is the six panes of the main screen.
type paneSet struct {
	headroom  *headroomPane
	orders    *ordersPane
	positions *positionsPane
	approvals *approvalsPane
	alerts    *alertsPane
	audit     *auditPane
}

func newPaneSet(c *Common) paneSet {
	p := paneSet{orders: newOrdersPane(c), positions: newPositionsPane(c), approvals: newApprovalsPane(c),
		alerts: newAlertsPane(c), audit: newAuditPane(c)}
	p.headroom = &headroomPane{paneBase: paneBase{c: c, index: paneHeadroom}, orders: p.orders, positions: p.positions}
	return p
}

// all lists the panes in tab order.
func (p *paneSet) all() [6]pane {
	return [6]pane{p.headroom, p.orders, p.positions, p.approvals, p.alerts, p.audit}
}

// setFocus moves the focus to the pane at i.
func (m *Model) setFocus(i int) {
	m.focus = i
	for j, p := range m.panes.all() {
		p.base().focused = j == i
	}
}

// New builds the screen. A bad theme name or key override is an error naming it.
func New(o Options) (*Model, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Tick <= 0 {
		o.Tick = 200 * time.Millisecond
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	keys := DefaultKeyMap()
	if err := keys.Rebind(o.Keys); err != nil {
		return nil, err
	}
	m := &Model{be: o.Backend, opts: o, themeName: o.Theme, dark: true}
	th, err := themes.Resolve(o.Theme, true, o.Getenv)
	if err != nil {
		return nil, err
	}
	m.data = &Data{gen: max(o.Generation, 1), Series: newSeries(300)}
	m.c = &Common{Width: 120, Height: 40, Styles: NewStyles(th), Keys: keys, Now: o.Now, Data: m.data}
	m.data.c = m.c
	m.c.Remote = o.Remote
	if r, ok := o.Backend.(interface{ Allows(action string) bool }); ok { // an SSH key's role
		m.c.May = r.Allows
	}
	m.status, m.footer, m.panes = statusBar{m.c}, newFooter(m.c), newPaneSet(m.c)
	m.setFocus(paneHeadroom)
	return m, nil
}

// QuitChoice reports what the operator chose when quitting.
func (m *Model) QuitChoice() readmodel.QuitChoice { return m.quit }

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.tick(true), m.poll(0), tea.RequestBackgroundColor)
}

// Update implements tea.Model: a short dispatcher to named handlers.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		m.onBackground(msg.IsDark())
	case tea.KeyPressMsg:
		cmd = m.onKey(msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		m.onMouse(msg.(tea.MouseMsg))
	case tea.PasteMsg, AuditPageMsg:
		cmd = m.toModal(msg)
	case TickMsg:
		if sec := m.now().Unix(); m.dirty || sec != m.drawnAt {
			m.frame, m.dirty, m.drawnAt = m.render(), false, sec
		}
		fast := m.busy
		m.busy = false
		return m, m.tick(fast)
	case SnapshotMsg, engineMsg:
		m.dirty = true
		if s, ok := msg.(SnapshotMsg); !ok || s.OneOff {
			m.busy = true // events and refreshes after actions: the fast ticks until quiet
		}
		return m, m.fold(msg) // drawn on the next tick
	case FlattenProgressMsg:
		cmd = m.flat.progress(msg.Progress)
	case FlattenDoneMsg:
		cmd = m.onFlattenDone(msg.Report)
	case ActionDoneMsg:
		m.data.onActionDone(msg)
		cmd = m.refresh()
	case CommitDoneMsg:
		cmd = m.onCommitDone(msg)
	}
	m.frame, m.dirty = m.render(), false
	return m, cmd
}

// View implements tea.Model. The frame is drawn in Update on key presses, resizes and
// actions at once, and for snapshots and engine events on the next render tick (at most
// once per tick, and when idle once a second for the clock), so a burst of events never
// costs a frame each. Ticks come every Tick (200 ms) while events arrive and on the wall
// clock's half seconds when quiet (backend_cmds.go), so the idle screen wakes little.
func (m *Model) View() tea.View {
	if m.frame == "" {
		m.frame = m.render()
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	if !m.opts.NoMouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = "cockpit — " + string(m.data.State())
	return v
}

// Render draws the current frame (what View shows; exported for benchmarks and tests).
func (m *Model) Render() string { return m.render() }

func (m *Model) onBackground(dark bool) {
	m.dark = dark
	if th, err := themes.Resolve(m.themeName, dark, m.opts.Getenv); err == nil {
		m.c.Styles = NewStyles(th)
	}
}

// setTheme switches the theme live (:theme NAME).
func (m *Model) setTheme(name string) error {
	th, err := themes.Resolve(name, m.dark, m.opts.Getenv)
	if err != nil {
		return err
	}
	m.themeName, m.c.Styles = name, NewStyles(th)
	return nil
}

func (m *Model) now() time.Time { return m.c.Now() }

// fold takes a snapshot (and schedules the next poll) or an engine event (and re-reads the
// state when the event asks for it).
func (m *Model) fold(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case SnapshotMsg:
		m.data.onSnapshot(msg.Snapshot)
		if !msg.OneOff {
			return m.poll(m.opts.Poll)
		}
	case engineMsg:
		if m.data.onEngine(msg) {
			return m.refresh()
		}
	}
	return nil
}

func (m *Model) onFlattenDone(rep gate.FlattenReport) tea.Cmd {
	if !m.flat.done(rep) {
		return nil
	}
	m.data.alert(Alert{Level: flattenLevel(rep), Kind: "FLATTEN", Source: "operator", Text: rep.Summary()})
	m.data.say("flatten: " + rep.Summary())
	return m.refresh()
}

func (m *Model) onCommitDone(c CommitDoneMsg) tea.Cmd {
	cmd := m.toModal(c)
	if c.Err == nil && c.Result != nil {
		m.data.say("mandate " + c.Result.MandateID + " committed")
	}
	return cmd
}
