package pystr

import "testing"

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
