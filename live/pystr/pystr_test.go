package pystr

import (
	"strings"
	"testing"
)

func TestIsSpaceIsPythons29(t *testing.T) {
	n := 0
	for r := rune(0); r <= 0x10ffff; r++ {
		if IsSpace(r) {
			n++
		}
	}
	if n != 29 {
		t.Fatalf("%d whitespace code points, want Python's 29", n)
	}
}

func TestCase(t *testing.T) {
	for _, c := range []struct {
		f        func(string) string
		in, want string
	}{
		{Upper, " aapl ", " AAPL "},
		{Upper, "straße", "STRASSE"},
		{Upper, "ﬁ", "FI"},
		{Lower, "TAX_İD", "tax_i\u0307d"},
		{Strip, "\u3000 x\u00a0", "x"},
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("%q → %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWordBoundaryIsUnicode(t *testing.T) {
	if WordBoundary("中api", 3) {
		t.Error("CJK letters are word characters: no boundary inside 中api")
	}
	if !WordBoundary("é api", 3) {
		t.Error("boundary expected after a space")
	}
	if WordBoundary("e\u0301x", 1) == false {
		t.Error("a combining mark is not a word character")
	}
}

func TestRepr(t *testing.T) {
	for in, want := range map[string]string{"a": "'a'", "it's": `"it's"`, "a\nb": `'a\nb'`, "\x00": `'\x00'`, `q"'`: `'q"\''`} {
		if got := Repr(in); got != want {
			t.Errorf("Repr(%q) = %s, want %s", in, got, want)
		}
	}
}

// checkUpperASCII fails t unless Upper(s) is strings.ToUpper(s): for ASCII text Python's
// str.upper() and Go's agree, and Upper's one-pass shortcut must not change that.
func checkUpperASCII(t *testing.T, s string) {
	t.Helper()
	if got, want := Upper(s), strings.ToUpper(s); got != want {
		t.Fatalf("Upper(%q) = %q, want %q", s, got, want)
	}
}

// TestUpperASCIIIsToUpper: every ASCII string of up to three bytes.
func TestUpperASCIIIsToUpper(t *testing.T) {
	checkUpperASCII(t, "")
	for a := range 128 {
		checkUpperASCII(t, string([]byte{byte(a)}))
		for b := range 128 {
			checkUpperASCII(t, string([]byte{byte(a), byte(b)}))
			for c := range 128 {
				checkUpperASCII(t, string([]byte{byte(a), byte(b), byte(c)}))
			}
		}
	}
}

// FuzzUpperASCIIIsToUpper is TestUpperASCIIIsToUpper on any input, its bytes folded to ASCII.
func FuzzUpperASCIIIsToUpper(f *testing.F) {
	for _, s := range []string{"", "AAPL", "aapl", "BRK.b", " gme ", "\x1cA\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		for i := range b {
			b[i] &= 0x7f
		}
		checkUpperASCII(t, string(b))
	})
}

// TestUpperStripEqualIsUpperOfStrip: the allocation-free comparison agrees with building
// Upper(Strip(s)), for ASCII and non-ASCII strings, padded with every kind of space.
func TestUpperStripEqualIsUpperOfStrip(t *testing.T) {
	words := []string{"", "aapl", "AAPL", "AaPl", " aapl ", "\t\x1caapl\x1f\v", "aapl\u00a0", "straße", "STRASSE", "ß", "SS", "a b", "A B", "brk.b", "BRK.B", "\u3000msft", "MSFT"}
	for _, s := range words {
		for _, want := range words {
			if got, exp := UpperStripEqual(s, want), Upper(Strip(s)) == want; got != exp {
				t.Errorf("UpperStripEqual(%q, %q) = %v, want %v", s, want, got, exp)
			}
		}
	}
}
