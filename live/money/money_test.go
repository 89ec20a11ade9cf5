package money

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want string
		err  error
	}{
		{"750", "750", nil},
		{"750.0", "750", nil},
		{"-0.01", "-0.01", nil},
		{".5", "0.5", nil},
		{"5.", "5", nil},
		{"1e3", "1000", nil},
		{"1E-2", "0.01", nil},
		{"1_000", "", ErrSyntax},
		{" 1", "", ErrSyntax},
		{"nan", "", ErrSyntax},
		{"inf", "", ErrSyntax},
		{"0x10", "", ErrSyntax},
		{"", "", ErrSyntax},
		{"1e31", "", ErrRange},
		{"1e-31", "", ErrRange},
		{"1e9999999", "", ErrSyntax},
		{"12345678901234567890123456789012345678901", "", ErrRange},
		{"100000000000000000000000000000", "100000000000000000000000000000", nil},
		{"1.50000000000000000000000000000000000000000000000000", "1.5", nil},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if !errors.Is(err, c.err) {
			t.Errorf("Parse(%q) error = %v, want %v", c.in, err, c.err)
			continue
		}
		if err == nil && got.String() != c.want {
			t.Errorf("Parse(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestArithmeticIsExact(t *testing.T) {
	tenth := MustParse("0.1")
	sum := Zero
	for i := 0; i < 10; i++ {
		sum = sum.Add(tenth)
	}
	if !sum.Equal(FromInt(1)) {
		t.Fatalf("ten tenths = %s, want 1", sum)
	}
	if got := MustParse("3").Mul(tenth); got.Cmp(MustParse("0.3")) != 0 {
		t.Fatalf("3×0.1 = %s", got)
	}
	if !MustParse("1.0").Equal(MustParse("1.00")) {
		t.Fatal("1.0 ≠ 1.00")
	}
}

func TestInfinity(t *testing.T) {
	inf := Inf(1)
	if !inf.GreaterThan(MustParse("1e30")) || inf.Sub(FromInt(5)).Cmp(inf) != 0 || inf.String() != "+Inf" {
		t.Fatal("+Inf misbehaves")
	}
	if got := FromInt(5).Div(Zero); got.Cmp(inf) != 0 {
		t.Fatalf("5/0 = %s", got)
	}
	if _, err := FromFloat(0.1); err != nil {
		t.Fatal(err)
	}
}

func TestSteps(t *testing.T) {
	tick := MustParse("0.01")
	if got := MustParse("189.126").RoundToStep(tick); got.String() != "189.13" {
		t.Errorf("RoundToStep = %s", got)
	}
	if got := MustParse("7.9").FloorToStep(FromInt(1)); got.String() != "7" {
		t.Errorf("FloorToStep = %s", got)
	}
}
