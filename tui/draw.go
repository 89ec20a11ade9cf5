package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live/money"
	"cockpit/live/redact"
	"cockpit/live/termsafe"
)

// fit pads or truncates a (possibly styled) line to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if n := ansi.StringWidth(s); n > w {
		return ansi.Truncate(s, w, "…")
	} else if n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// box draws a bordered pane of exactly w×h cells with the title in the top border. Content
// lines are fitted to the inside; missing lines are blank, extra lines are cut.
func box(st Styles, title string, lines []string, w, h int, focused bool) string {
	if w < 4 || h < 2 {
		return ""
	}
	border, b := st.Pane, lipgloss.RoundedBorder()
	if st.Theme.Plain {
		b = lipgloss.NormalBorder()
	}
	if focused {
		border, b = st.Focused, lipgloss.ThickBorder()
	}
	paint := lipgloss.NewStyle().Foreground(border.GetBorderTopForeground())
	inner := w - 2
	t := ""
	if title != "" {
		t = ansi.Truncate(" "+title+" ", inner-1, "…")
	}
	top := paint.Render(b.TopLeft+b.Top) + st.Title.Render(t) +
		paint.Render(strings.Repeat(b.Top, max(0, inner-1-ansi.StringWidth(t)))+b.TopRight)
	out := make([]string, 0, h)
	out = append(out, top)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		out = append(out, paint.Render(b.Left)+fit(line, inner)+paint.Render(b.Right))
	}
	out = append(out, paint.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return strings.Join(out, "\n")
}

// column stacks blocks vertically (each already w wide).
func column(blocks ...string) string {
	var parts []string
	for _, b := range blocks {
		if b != "" {
			parts = append(parts, b)
		}
	}
	return strings.Join(parts, "\n")
}

// sideBySide joins two blocks of equal height line by line.
func sideBySide(left, right string) string {
	l, r := strings.Split(left, "\n"), strings.Split(right, "\n")
	n := max(len(l), len(r))
	out := make([]string, n)
	lw := 0
	if len(l) > 0 {
		lw = ansi.StringWidth(l[0])
	}
	for i := 0; i < n; i++ {
		a, b := "", ""
		if i < len(l) {
			a = l[i]
		}
		if i < len(r) {
			b = r[i]
		}
		out[i] = fit(a, lw) + b
	}
	return strings.Join(out, "\n")
}

// money formats an amount with thousands separators and at most dp decimals.
func fmtMoney(a money.Amount, dp int32) string {
	s := a.Round(dp).StringFixed(dp)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// short formats a large amount compactly: 8.2k, 1.5M.
func short(a money.Amount) string {
	f := a.Float64()
	abs := f
	if abs < 0 {
		abs = -abs
	}
	switch {
	case abs >= 1e6:
		return fmt.Sprintf("%.2fM", f/1e6)
	case abs >= 1e4:
		return fmt.Sprintf("%.1fk", f/1e3)
	case abs >= 1000:
		return fmt.Sprintf("%.2fk", f/1e3)
	}
	return fmtMoney(a, 2)
}

// qty formats a quantity without trailing zeros, at most 6 decimals.
func qty(a money.Amount) string { return a.Round(6).String() }

// age formats a duration as 12s, 3m, 2h5m, 4d3h.
func age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// countdown formats the time left as m:ss (or h:mm:ss).
func countdown(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// untrusted renders agent or outside text safely on one line: secrets redacted, line breaks
// and tabs as spaces, runs of spaces collapsed, every other control character, escape
// sequence and invisible character shown escaped (termsafe.Text), never interpreted; n > 0
// bounds the length.
func untrusted(s string, n int) string {
	flat := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, redact.Secrets(s))
	out := strings.Join(strings.Fields(termsafe.Text(flat)), " ")
	if r := []rune(out); n > 0 && len(r) > n {
		out = string(r[:n]) + "…"
	}
	return out
}

// maskDigits hides amounts in text (privacy mode).
func maskDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '•'
		}
		return r
	}, s)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// roundText shows a decimal with at most 2 places (limits and attempted values).
func roundText(s string) string {
	a, err := money.Parse(s)
	if err != nil {
		return s
	}
	return a.Round(2).String()
}

// wrap splits text into lines of at most w runes.
func wrap(s string, w int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		r := []rune(para)
		for len(r) > w {
			out = append(out, string(r[:w]))
			r = r[w:]
		}
		out = append(out, string(r))
	}
	return out
}

func joinStrings[T ~string](xs []T) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return strings.Join(out, ", ")
}

func padTo(lines []string, n int) []string {
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
