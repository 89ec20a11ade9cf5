package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/live/money"
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
}

// QuitChoice is what the operator chose for resting orders when quitting.
type QuitChoice int

// Quit choices.
const (
	QuitNotYet QuitChoice = iota
	QuitHalt              // halt and cancel resting orders, then quit
	QuitLeave             // quit and leave resting orders at the broker
)

// Common is what every component shares: sizes, styles, keys and the clock.
type Common struct {
	Width, Height int
	Styles        Styles
	Keys          KeyMap
	Now           func() time.Time
	Privacy       bool
}

// Model is the root model of the screen.
type Model struct {
	c         Common
	be        Backend
	opts      Options
	themeName string
	dark      bool

	snap   Snapshot
	gross  money.Amount // the snapshot's gross exposure as the gate counts it
	frozen *Snapshot    // tables shown while frozen
	gen    uint64
	ready  bool // the first snapshot arrived

	focus       int       // 0..5, see paneNames
	sel         [6]string // the selected row's id per pane
	filter      [6]string
	tailFlipped bool // @ flips whether the audit tail shows

	alerts  []Alert
	seen    map[string]time.Time // alert dedupe
	series  series
	agent   agentStatus
	modal   modal
	flat    *flattenRun
	flash   string
	flashAt time.Time

	outcomeShown map[string]bool // review ids whose post-approval outcome is on screen

	quit        QuitChoice
	lastCtrlC   time.Time
	frame       string
	dirty       bool  // state changed since the frame was drawn
	drawnAt     int64 // the clock second of the last tick-drawn frame
	seq         uint64
	lastRefresh time.Time
}

type agentStatus struct {
	turn   int
	last   string
	paused bool
}

var paneNames = [6]string{"Headroom", "Orders", "Positions", "Approvals", "Alerts", "Audit"}

// Pane indexes.
const (
	paneHeadroom = iota
	paneOrders
	panePositions
	paneApprovals
	paneAlerts
	paneAudit
)

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
	m := &Model{be: o.Backend, opts: o, themeName: o.Theme, dark: true, gen: o.Generation,
		seen: map[string]time.Time{}}
	if m.gen == 0 {
		m.gen = 1
	}
	th, err := themes.Resolve(o.Theme, true, o.Getenv)
	if err != nil {
		return nil, err
	}
	m.c = Common{Width: 120, Height: 40, Styles: NewStyles(th), Keys: keys, Now: o.Now}
	m.series = newSeries(300)
	return m, nil
}

// QuitChoice reports what the operator chose when quitting.
func (m *Model) QuitChoice() QuitChoice { return m.quit }

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.tick(), m.poll(0), tea.RequestBackgroundColor)
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
	case tea.PasteMsg:
		m.onPaste(msg)
	case TickMsg:
		if sec := m.now().Unix(); m.dirty || sec != m.drawnAt {
			m.frame, m.dirty, m.drawnAt = m.render(), false, sec
		}
		return m, m.tick()
	case SnapshotMsg:
		m.onSnapshot(msg.Snapshot)
		if !msg.OneOff {
			cmd = m.poll(m.opts.Poll)
		}
		m.dirty = true
		return m, cmd // drawn on the next tick
	case EventMsg:
		m.dirty = true
		return m, m.onEvent(msg.Event) // drawn on the next tick
	case FlattenProgressMsg:
		cmd = m.onFlattenProgress(msg.Progress)
	case FlattenDoneMsg:
		cmd = m.onFlattenDone(msg.Report)
	case ActionDoneMsg:
		cmd = m.onActionDone(msg)
	case AuditPageMsg:
		m.onAuditPage(msg)
	case CommitDoneMsg:
		m.onCommitDone(msg)
	}
	m.frame, m.dirty = m.render(), false
	return m, cmd
}

// View implements tea.Model. The frame is drawn in Update on key presses, resizes and
// actions at once, and for snapshots and engine events on the next render tick (at most
// once per tick, and when idle once a second for the clock), so a burst of events never
// costs a frame each.
func (m *Model) View() tea.View {
	if m.frame == "" {
		m.frame = m.render()
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.WindowTitle = "cockpit — " + string(m.state())
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

// state is the trading state shown: a halt seen in an event counts before the next snapshot.
func (m *Model) state() live.TradingState {
	if m.snap.State == "" {
		return "UNKNOWN"
	}
	return m.snap.State
}

// view returns the snapshot the tables show (frozen or live).
func (m *Model) view() *Snapshot {
	if m.frozen != nil {
		return m.frozen
	}
	return &m.snap
}

func (m *Model) now() time.Time { return m.c.Now() }

func (m *Model) say(format string) {
	m.flash, m.flashAt = format, m.now()
}
