package termsafe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// owned is issue 27's repro: set the window title, clear the screen, move up, erase the line.
const owned = "\x1b]0;OWNED\a\x1b[2J\x1b[1A\x1b[2K"

// osc52 writes "Hello" to the clipboard.
const osc52 = "\x1b]52;c;SGVsbG8=\a"

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"AAPL", "AAPL"},
		{"", ""},
		{`a\x1bb`, `a\x1bb`}, // a literal backslash is kept
		{owned, `\x1b]0;OWNED\x07\x1b[2J\x1b[1A\x1b[2K`},
		{osc52, `\x1b]52;c;SGVsbG8=\x07`},
		{"a\nb\rc\td", `a\nb\rc\td`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b2J", `c1 \x9b2J`},             // CSI as a UTF-8 C1 control
		{"raw \x9b2J", `raw \x9b2J`},             // CSI as a lone byte (not UTF-8)
		{"bad \xe2\x80", `bad \xe2\x80`},         // a truncated sequence, byte by byte
		{"G\u200bME", `G\u200bME`},               // zero-width space
		{"abc\u202edcba", `abc\u202edcba`},       // right-to-left override
		{"nb\u00a0sp", `nb\xa0sp`},               // a space that is not ' '
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`}, // line and paragraph separators
		{"tag\U000E0041", `tag\U000e0041`},       // tag character
		{"ＧＭＥ €5 é 株 🙂", "ＧＭＥ €5 é 株 🙂"},         // printable Unicode is kept
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
		if got, want := Safe(c.in), c.in == c.want; got != want {
			t.Errorf("Safe(%q) = %v, want %v", c.in, got, want)
		}
	}
}

func TestLinesKeepsLineFeedsAndTabs(t *testing.T) {
	in := "line one\tok\nline two " + owned + "\r\n"
	want := `line one` + "\t" + `ok` + "\n" + `line two \x1b]0;OWNED\x07\x1b[2J\x1b[1A\x1b[2K\r` + "\n"
	if got := Lines(in); got != want {
		t.Errorf("Lines(%q) = %q, want %q", in, got, want)
	}
}

// TestTextNeverLeavesAControl: whatever the input, the output holds no byte or character a
// terminal acts on, and escaping again changes nothing.
func TestTextNeverLeavesAControl(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	all.WriteString("\xff\xfe\x9b\xc2")
	for _, s := range []string{all.String(), owned + osc52, "\U0010ffff\U000e007f"} {
		out := Text(s)
		if bad := firstUnsafe(out); bad >= 0 {
			t.Errorf("Text left %q at byte %d", out[bad:min(bad+4, len(out))], bad)
		}
		if again := Text(out); again != out {
			t.Errorf("Text is not idempotent: %q → %q", out, again)
		}
		if !Safe(out) {
			t.Errorf("Safe(Text(s)) = false")
		}
	}
}

// firstUnsafe is the byte offset of the first control, non-UTF-8 byte or C1 control in s, or -1.
func firstUnsafe(s string) int {
	for i, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd") {
			return i
		}
	}
	return -1
}

func TestJSON(t *testing.T) {
	raw, err := json.Marshal(map[string]string{"symbol": owned + "\u009b\x7f\u200b\U000E0041", "ok": "ÄÖ 株"})
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(raw)
	want := `{"ok":"ÄÖ 株","symbol":"\u001b]0;OWNED\u0007\u001b[2J\u001b[1A\u001b[2K\u009b\u007f\u200b\udb40\udc41"}`
	if string(got) != want {
		t.Errorf("JSON(%s) =\n%s, want\n%s", raw, got, want)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["symbol"] != owned+"\u009b\x7f\u200b\U000E0041" {
		t.Errorf("JSON changed the value: %q, %v", back["symbol"], err)
	}
	if bad := firstUnsafe(string(got)); bad >= 0 {
		t.Errorf("JSON left a control at byte %d: %s", bad, got)
	}
	indented := []byte("{\n\t\"a\": \"b\"\n}")
	if got := JSON(indented); &got[0] != &indented[0] {
		t.Errorf("JSON copied a document with nothing to escape: %s", got)
	}
	if got := JSON([]byte("\"\xff\"")); string(got) != `"\ufffd"` {
		t.Errorf("JSON of a byte that is not UTF-8 = %s, want \"\\ufffd\"", got)
	}
}

func BenchmarkText(b *testing.B) {
	for _, c := range []struct{ name, s string }{{"clean", "buy $100 AAPL (equity)"}, {"escaped", "buy $100 " + owned + " (equity)"}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Text(c.s)
			}
		})
	}
}

// FuzzText: Text's output never holds a control, is idempotent and Safe; Lines' output holds
// no control but line feeds and tabs; JSON of a JSON string decodes to the same string.
func FuzzText(f *testing.F) {
	for _, s := range []string{owned, osc52, "AAPL", "G\u200bME", "\xff\x9b", "a\nb\tc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if bad := firstUnsafe(out); bad >= 0 || !Safe(out) || Text(out) != out {
			t.Fatalf("Text(%q) = %q", s, out)
		}
		if bad := firstUnsafe(strings.NewReplacer("\n", "", "\t", "").Replace(Lines(s))); bad >= 0 {
			t.Fatalf("Lines(%q) = %q", s, Lines(s))
		}
		raw, _ := json.Marshal(s)
		var want, back string
		json.Unmarshal(raw, &want)
		if err := json.Unmarshal(JSON(raw), &back); err != nil || back != want {
			t.Fatalf("JSON(%s) = %s decodes to %q (%v)", raw, JSON(raw), back, err)
		}
	})
}
