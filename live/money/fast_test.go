package money

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// refParse is Parse as it was before the udecimal fast path: shopspring only.
func refParse(s string) (decimal.Decimal, error) {
	if !plainDecimal(s) {
		return decimal.Zero, fmt.Errorf("%q: %w", s, ErrSyntax)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero, fmt.Errorf("%q: %w", s, ErrSyntax)
	}
	if err := checkBounds(d); err != nil {
		return decimal.Zero, fmt.Errorf("%q: %w", s, err)
	}
	return d, nil
}

// FuzzMatchesShopspring: every operation on parsed amounts gives what shopspring alone gives
// (the representation before the fast path), as text, sign and order.
func FuzzMatchesShopspring(f *testing.F) {
	for _, p := range [][2]string{
		{"750", "0.1"}, {"-0", "-0.0"}, {"0.0000000000000000001", "0.3"}, {"1e30", "-1e-30"},
		{"99999999999999999999999999999999999999", "2"}, {"1000000000000000000000000000000", "1"},
		{"18446744073709551616", "-18446744073709551615.5"}, {"5.", ".5"}, {"+12.50", "-12.5"},
		{"0.1234567890123456789", "0.1234567890123456789"}, {"3", "0.30000000000000000000001"},
		{"9223372036854775807", "9223372036854775808"}, {"123.456", "1e-2"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		a, errA := Parse(x)
		ra, rerrA := refParse(x)
		if fmt.Sprint(errA) != fmt.Sprint(rerrA) {
			t.Fatalf("Parse(%q) error %v, want %v", x, errA, rerrA)
		}
		b, errB := Parse(y)
		rb, rerrB := refParse(y)
		if fmt.Sprint(errB) != fmt.Sprint(rerrB) {
			t.Fatalf("Parse(%q) error %v, want %v", y, errB, rerrB)
		}
		if errA != nil || errB != nil {
			return
		}
		check := func(op string, got Amount, want decimal.Decimal) {
			t.Helper()
			if got.String() != want.String() || got.Sign() != want.Sign() || got.Cmp(slow(want)) != 0 {
				t.Fatalf("%s(%q, %q) = %s, want %s", op, x, y, got, want)
			}
		}
		check("parse", a, ra)
		check("add", a.Add(b), ra.Add(rb))
		check("sub", a.Sub(b), ra.Sub(rb))
		check("mul", a.Mul(b), ra.Mul(rb))
		check("neg", a.Neg(), ra.Neg())
		check("abs", a.Abs(), ra.Abs())
		check("round", a.Round(2), ra.Round(2))
		check("truncate", a.Truncate(3), ra.Truncate(3))
		if !rb.IsZero() {
			check("div", a.Div(b), ra.DivRound(rb, divPrecision))
		}
		if got, want := a.Cmp(b), ra.Cmp(rb); got != want {
			t.Fatalf("Cmp(%q, %q) = %d, want %d", x, y, got, want)
		}
		if got, want := a.IsInteger(), ra.IsInteger(); got != want {
			t.Fatalf("IsInteger(%q) = %v, want %v", x, got, want)
		}
		if got, want := a.IsZero(), ra.IsZero(); got != want {
			t.Fatalf("IsZero(%q) = %v, want %v", x, got, want)
		}
		if got, want := a.StringFixed(4), ra.StringFixed(4); got != want {
			t.Fatalf("StringFixed(%q) = %s, want %s", x, got, want)
		}
		if got, want := a.Float64(), ra.InexactFloat64(); got != want {
			t.Fatalf("Float64(%q) = %v, want %v", x, got, want)
		}
		if got, want := a.Int64(), (Amount{big: &ra}).Int64(); got != want {
			t.Fatalf("Int64(%q) = %d, want %d", x, got, want)
		}
	})
}

// TestFromFixedIsIntTimesUnit: FromFixed(c, p) is the very Amount (same coefficient and
// precision) that FromInt(c) times 10^-p gives, and that Parse gives for its text.
func TestFromFixedIsIntTimesUnit(t *testing.T) {
	coefs := []int64{1, -1, 7, -42, 100, 12345678901234, math.MaxInt64, -math.MaxInt64, math.MinInt64, 0}
	r := rand.New(rand.NewPCG(15, 9))
	for range 20_000 {
		coefs = append(coefs, r.Int64()>>r.IntN(63)*int64(1-2*r.IntN(2)))
	}
	for p := range uint8(maxFastPrec + 3) {
		unit := MustParse("1")
		if p > 0 {
			unit = MustParse("0." + strings.Repeat("0", int(p)-1) + "1")
		}
		for _, c := range coefs {
			got, want := FromFixed(c, p), FromInt(c).Mul(unit)
			if got.Cmp(want) != 0 || got.String() != want.String() {
				t.Fatalf("FromFixed(%d, %d) = %s, want %s", c, p, got, want)
			}
			if p <= maxFastPrec && !reflect.DeepEqual(got, want) {
				t.Fatalf("FromFixed(%d, %d) = %#v, want the same Amount as FromInt × unit: %#v", c, p, got, want)
			}
		}
	}
}
