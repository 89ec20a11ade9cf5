package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/themes"
)

// fieldKind says how a form field is written into the mandate document.
type fieldKind int

const (
	kNumber    fieldKind = iota // a required decimal
	kInt                        // a required integer
	kList                       // comma-separated strings
	kBool                       // y or n
	kOptNumber                  // a decimal, or empty for none
	kOptInt                     // an integer, or empty for none
)

type formField struct {
	key, label, help string
	kind             fieldKind
	value            string
}

// MandateForm drafts a mandate: every cap, universe field and control with what it means,
// validated by the strict loader as you type, ending in the typed consent and the commit.
type MandateForm struct {
	Broker  string
	fields  []formField
	pos     int
	err     string
	consent bool // the consent step
	typed   lineInput
	busy    bool
	Result  *live.CommitResult
	Err     error
	// Commit is called with the document, the lifetime in days and the typed broker name.
	Commit func(doc []byte, days int, typed string) tea.Cmd
}

// NewMandateForm starts from the current mandate's values (or cockpit's paper defaults).
func NewMandateForm(broker string, cur *live.Mandate) *MandateForm {
	f := &MandateForm{Broker: broker}
	v := formDefaults
	if cur != nil {
		v = valuesOf(cur)
	}
	get := func(k string) string { return v[k] }
	f.fields = []formField{
		{"hard_caps.account_funding_usd", "Account funding (USD)", "the money the agent may put at risk; exposure above it on a buy breaches", kNumber, get("account_funding_usd")},
		{"hard_caps.max_order_notional_usd", "Max order (USD)", "the largest single order; above it an order waits for a human", kNumber, get("max_order_notional_usd")},
		{"hard_caps.max_total_exposure_usd", "Max gross exposure (USD)", "Σ|position value| after the order, longs and shorts both count", kNumber, get("max_total_exposure_usd")},
		{"hard_caps.max_leverage", "Max leverage", "gross exposure ÷ funding after the order", kNumber, get("max_leverage")},
		{"hard_caps.max_trades_per_day", "Max orders per day", "orders forwarded per UTC day, counted only on success", kInt, get("max_trades_per_day")},
		{"hard_caps.allowed_instruments", "Instruments", "equity, etf, option, crypto, forex, cfd (comma-separated)", kList, get("allowed_instruments")},
		{"universe.asset_classes", "Asset classes", "us_equity, us_etf, hk_equity, cn_equity, in_equity, crypto, forex", kList, get("asset_classes")},
		{"universe.exclude_symbols", "Excluded symbols", "never traded, whatever the agent says (comma-separated)", kList, get("exclude_symbols")},
		{"universe.min_market_cap_usd", "Min market cap (USD)", "empty = no floor; a floor with no data denies", kOptNumber, get("min_market_cap_usd")},
		{"universe.min_avg_daily_volume_usd", "Min daily volume (USD)", "empty = no floor", kOptNumber, get("min_avg_daily_volume_usd")},
		{"flatten_on_halt", "Close positions on halt", "y: a halt also closes positions; n: it cancels orders only", kBool, get("flatten_on_halt")},
		{"controls.max_order_quantity", "Max order quantity", "shares or units per order; empty = off", kOptNumber, get("max_order_quantity")},
		{"controls.price_collar_bps", "Price collar (bps)", "a limit price this far from the quote is denied; empty = off", kOptNumber, get("price_collar_bps")},
		{"controls.max_quote_age_ms", "Max quote age (ms)", "an older quote is no quote (the order is denied); empty = off", kOptInt, get("max_quote_age_ms")},
		{"controls.duplicate_window_ms", "Duplicate window (ms)", "the same order again inside it is denied; empty = off", kOptInt, get("duplicate_window_ms")},
		{"controls.max_orders_per_minute", "Max orders per minute", "more is denied, never queued; empty = off", kOptInt, get("max_orders_per_minute")},
		{"controls.approval_timeout_s", "Review deadline (s)", "an unanswered review is denied after it (default 300)", kOptInt, get("approval_timeout_s")},
		{"days", "Valid for (days)", "1–365; after it every order is denied until a new commit", kInt, "30"},
	}
	f.validate()
	return f
}

var formDefaults = map[string]string{"account_funding_usd": "100000", "max_order_notional_usd": "5000",
	"max_total_exposure_usd": "60000", "max_leverage": "1", "max_trades_per_day": "40", "allowed_instruments": "equity, etf",
	"asset_classes": "us_equity, us_etf", "exclude_symbols": "GME", "flatten_on_halt": "n", "max_quote_age_ms": "5000",
	"price_collar_bps": "50", "duplicate_window_ms": "2000", "max_orders_per_minute": "12", "approval_timeout_s": "300"}

func valuesOf(m *live.Mandate) map[string]string {
	c, u := m.HardCaps, m.Universe
	v := map[string]string{"account_funding_usd": c.AccountFundingUSD.String(), "max_order_notional_usd": c.MaxOrderNotionalUSD.String(),
		"max_total_exposure_usd": c.MaxTotalExposureUSD.String(), "max_leverage": c.MaxLeverage.String(),
		"max_trades_per_day": strconv.Itoa(c.MaxTradesPerDay), "allowed_instruments": joinStrings(c.AllowedInstruments),
		"asset_classes": joinStrings(u.AssetClasses), "exclude_symbols": strings.Join(u.ExcludeSymbols, ", "), "flatten_on_halt": "n"}
	if m.FlattenOnHalt {
		v["flatten_on_halt"] = "y"
	}
	if u.MinMarketCapUSD != nil {
		v["min_market_cap_usd"] = u.MinMarketCapUSD.String()
	}
	if u.MinAvgDailyVolumeUSD != nil {
		v["min_avg_daily_volume_usd"] = u.MinAvgDailyVolumeUSD.String()
	}
	for _, kv := range m.Controls.Fields() {
		v[kv[0]] = kv[1]
	}
	return v
}

// Document renders the draft as a mandate document (hard caps, universe, flatten_on_halt,
// controls) and the lifetime in days; a field that cannot be written is an error naming it.
func (f *MandateForm) Document() ([]byte, int, error) {
	caps, uni, ctl := jsonv.NewObject(), jsonv.NewObject(), jsonv.NewObject()
	doc := jsonv.ObjectOf("hard_caps", caps, "universe", uni)
	days := 0
	for _, fl := range f.fields {
		section, name, _ := strings.Cut(fl.key, ".")
		target := map[string]*jsonv.Object{"hard_caps": caps, "universe": uni, "controls": ctl}[section]
		v := strings.TrimSpace(fl.value)
		var val any
		switch fl.kind {
		case kNumber, kInt, kOptNumber, kOptInt:
			if v == "" {
				if fl.kind == kNumber || fl.kind == kInt {
					return nil, 0, fmt.Errorf("%s: required", fl.key)
				}
				if section == "universe" {
					val = nil // an explicit null: no floor
				} else {
					continue
				}
			} else {
				if _, err := strconv.ParseFloat(v, 64); err != nil || strings.ContainsAny(v, "eE_xXnN") {
					return nil, 0, fmt.Errorf("%s = %q: want a plain number", fl.key, v)
				}
				val = jsonv.Number(v)
			}
		case kList:
			items := []any{}
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					items = append(items, s)
				}
			}
			val = items
		case kBool:
			switch strings.ToLower(v) {
			case "y", "yes", "true":
				val = true
			case "n", "no", "false", "":
				val = false
			default:
				return nil, 0, fmt.Errorf("%s = %q: want y or n", fl.key, v)
			}
		}
		switch {
		case fl.key == "days":
			d, err := strconv.Atoi(v)
			if err != nil || d < 1 || d > 365 {
				return nil, 0, fmt.Errorf("days = %q: want 1 to 365", v)
			}
			days = d
		case target == nil:
			doc.Set(fl.key, val)
		default:
			target.Set(name, val)
		}
	}
	if ctl.Len() > 0 {
		doc.Set("controls", ctl)
	}
	b, err := jsonv.Marshal(doc, jsonv.Compact)
	return b, days, err
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

func (f *MandateForm) done(res *live.CommitResult, err error) {
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
	switch k.String() {
	case "esc":
		return nil, true
	case "up", "shift+tab":
		f.pos = max(0, f.pos-1)
	case "down", "tab":
		f.pos = min(len(f.fields)-1, f.pos+1)
	case "ctrl+s":
		if f.validate() {
			f.consent, f.typed = true, lineInput{}
		}
	case "enter":
		f.pos = min(len(f.fields)-1, f.pos+1)
	default:
		in := lineInput{value: f.fields[f.pos].value}
		in.key(k)
		f.fields[f.pos].value = in.value
		f.validate()
	}
	return nil, false
}

func (f *MandateForm) consentKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if f.busy {
		return nil, false
	}
	done, cancelled := f.typed.key(k)
	switch {
	case cancelled:
		f.consent = false
	case done:
		if strings.TrimSpace(f.typed.value) != f.Broker {
			f.err = fmt.Sprintf("typed %q, not %q: nothing was committed", f.typed.value, f.Broker)
			f.typed = lineInput{}
			return nil, false
		}
		doc, days, err := f.Document()
		if err != nil || f.Commit == nil {
			f.err = fmt.Sprint(err)
			return nil, false
		}
		f.busy = true
		return f.Commit(doc, days, f.typed.value), false
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
		mark, val := "  ", fl.value
		if i == f.pos && !f.consent {
			mark, val = "▶ ", st.Selected.Render(fl.value+"█")
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
		lines = append(lines, "", fmt.Sprintf("Type the broker name (%s) and press enter to commit: %s", f.Broker, f.typed.view(true)),
			"esc back to the form")
	default:
		lines = append(lines, "", "↑/↓ tab move · type to edit · ctrl+s review and commit · esc cancel")
	}
	for i := range lines {
		lines[i] = ansi.Truncate(lines[i], w, "…")
	}
	return strings.Join(lines, "\n")
}

// formModal shows the form over the screen.
type formModal struct{ form *MandateForm }

func (f *formModal) typing() bool { return true }

func (f *formModal) view(m *Model, w, h int) string {
	mw := min(100, w-2)
	return m.c.Styles.Modal.Width(mw).Render(f.form.View(m.c.Styles, mw-4, h-2))
}

func (f *formModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if f.form.Commit == nil {
		be := m.be
		f.form.Commit = func(doc []byte, days int, typed string) tea.Cmd {
			return func() tea.Msg {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				res, err := be.CommitMandate(ctx, doc, days, typed)
				return CommitDoneMsg{Result: res, Err: err}
			}
		}
	}
	cmd, finished := f.form.Key(k)
	if finished {
		m.modal = nil
		return m.refresh()
	}
	return cmd
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
