package safety

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"cockpit/live/pystr"
)

// KillGuardError steers the agent away from killing Python broadly (cockpit's wording of
// the reference's guidance).
const KillGuardError = "Broad Python process termination is blocked because it can terminate the cockpit's own tools. Stop a command by cancelling its tool call instead."

// asciiForRegexp maps a string one code point to one byte so Go's ASCII regexp sees what
// Python's Unicode re would: letters that fold to ASCII under IGNORECASE become those
// letters, other word characters '_', Unicode digits '0', Unicode whitespace ' ', and
// anything else a byte no pattern uses.
func asciiForRegexp(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b = append(b, byte(r))
		case pystr.IsSpace(r):
			b = append(b, ' ')
		case pystr.FoldASCII(r) < utf8.RuneSelf:
			b = append(b, byte(pystr.FoldASCII(r)))
		case unicode.Is(unicode.Nd, r):
			b = append(b, '0')
		case pystr.IsWord(r):
			b = append(b, '_')
		default:
			b = append(b, 0x01)
		}
	}
	return string(b)
}

const py = `python(?:w|\d+(?:\.\d+)*)?(?:\.exe)?\b`

var (
	reTaskkill   = regexp.MustCompile(`(?i)\btaskkill(?:\.exe)?\b[^;&\r\n]*(?:/im\s+` + py + `|get-process\s+(?:-name\s+)?` + py + `)`)
	reUnixKill   = regexp.MustCompile(`(?i)^(?:sudo\s+)?(?:pkill|killall)\b[^;&\r\n]*` + py)
	rePowerShell = regexp.MustCompile(`(?i)^(?:powershell|pwsh)(?:\.exe)?\b`)
	reStopName   = regexp.MustCompile(`(?i)\bstop-process\b[^;&\r\n]*-name\s+` + py)
	reGetStop    = regexp.MustCompile(`(?i)\bget-process\s+(?:-name\s+)?` + py + `[^;&\r\n]*\|\s*stop-process\b`)
	reHeredoc    = regexp.MustCompile(`<<\s*['"]?[A-Za-z_][A-Za-z0-9_]*`)
)

// segments splits a command at ';', CR, LF, and '&' unless a '<' or '>' touches it.
func segments(cmd string) []string {
	var out []string
	start := 0
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		split := c == ';' || c == '\r' || c == '\n'
		if c == '&' {
			prev := i > 0 && (cmd[i-1] == '<' || cmd[i-1] == '>')
			next := i+1 < len(cmd) && (cmd[i+1] == '<' || cmd[i+1] == '>')
			split = !prev && !next
		}
		if split {
			out = append(out, cmd[start:i])
			start = i + 1
		}
	}
	return append(out, cmd[start:])
}

// BroadPythonKill reports whether a command would kill Python processes by name (the
// reference's three shapes: taskkill, pkill/killall at a segment start, PowerShell
// Stop-Process), per segment after quotes become spaces and whitespace collapses.
func BroadPythonKill(cmd string) bool {
	for _, seg := range segments(cmd) {
		s := pystr.Strip(seg)
		s = strings.NewReplacer(`"`, " ", `'`, " ").Replace(s)
		s = strings.Join(strings.FieldsFunc(s, pystr.IsSpace), " ")
		a := asciiForRegexp(s)
		if reTaskkill.MatchString(a) || reUnixKill.MatchString(a) ||
			rePowerShell.MatchString(a) && (reStopName.MatchString(a) || reGetStop.MatchString(a)) {
			return true
		}
	}
	return false
}

// HeredocRejected is the reference bash tool's heredoc refusal: a multi-line command with
// "<<" and a delimiter word ("<<-" is not caught, "<<<" is).
func HeredocRejected(cmd string) bool {
	return strings.Contains(cmd, "\n") && reHeredoc.MatchString(asciiForRegexp(cmd))
}

// ErrMetachar reports shell syntax in a command that runs without a shell.
var ErrMetachar = errors.New("shell syntax is not supported")

// SplitCommand turns a command line into argv without a shell: words split on whitespace,
// '…' and "…" group, and every character a shell would interpret (; & | < > ( ) $ ` { }
// * ? [ ] ! # ~ and line breaks) is refused, so nothing suggests expansion that never happens.
func SplitCommand(cmd string) ([]string, error) {
	var argv []string
	var cur strings.Builder
	inWord := false
	quote := rune(0)
	for _, r := range cmd {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
				continue
			}
			if r == '$' || r == '`' || r == '\n' || r == '\r' || r == 0 {
				return nil, fmt.Errorf("%w: %q inside quotes", ErrMetachar, r)
			}
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\n' || r == '\r' || strings.ContainsRune(";&|<>()$`{}*?[]!#~\\", r) || r == 0:
			return nil, fmt.Errorf("%w: %q", ErrMetachar, r)
		case pystr.IsSpace(r):
			if inWord {
				argv = append(argv, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%w: unterminated quote", ErrMetachar)
	}
	if inWord {
		argv = append(argv, cur.String())
	}
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	return argv, nil
}
