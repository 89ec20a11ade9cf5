// Package money is the one place that knows how exact decimals are represented.
//
// Every amount of money and every quantity in cockpit is an Amount. Behind it sit two exact
// decimals: quagmt/udecimal (a 128-bit coefficient and at most 19 fractional digits, no
// allocation) for the values that fit it, which are nearly all of them, and shopspring/decimal
// for the rest and for the operations udecimal would round (a product with more than 19
// fractional digits, division, rounding). Nothing else in the module imports either package.
//
// Amounts are bounded on the way in (Parse): at most MaxDigits significant digits and a
// magnitude between 1e-MaxScale and 1e+MaxMagnitude. The bounds keep arithmetic cheap on
// hostile input (a JSON number such as 1e999999999 would otherwise allocate gigabytes).
// An Amount may also be +Inf or -Inf, which only the breach report uses ("attempted value is
// unbounded"); Parse never produces one.
package money

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/quagmt/udecimal"
	"github.com/shopspring/decimal"
)

// Parse bounds.
const (
	MaxDigits    = 40 // significant digits accepted by Parse
	MaxMagnitude = 30 // largest accepted power of ten (1e30)
	MaxScale     = 30 // smallest accepted power of ten (1e-30)
	divPrecision = 16 // fractional digits kept by Div
)

// ErrSyntax reports text that is not a plain decimal number.
var ErrSyntax = errors.New("not a plain decimal number")

// ErrRange reports a number outside the accepted bounds.
var ErrRange = errors.New("number out of range")

// Amount is an exact decimal value; the zero value is 0.
type Amount struct {
	u   udecimal.Decimal // the value when big is nil and inf is 0
	big *decimal.Decimal // the value when it does not fit u (or came from a rounding operation)
	inf int8             // +1 or -1 for an unbounded value, 0 otherwise
}

// Zero is 0.
var Zero = Amount{}

// Inf returns +Inf when sign ≥ 0 and -Inf otherwise.
func Inf(sign int) Amount {
	if sign >= 0 {
		return Amount{inf: 1}
	}
	return Amount{inf: -1}
}

// FromInt returns n as an Amount.
func FromInt(n int64) Amount {
	u, err := udecimal.NewFromInt64(n, 0)
	if err != nil {
		return slow(decimal.NewFromInt(n))
	}
	return Amount{u: u}
}

// FromFixed returns coef × 10^-prec, held as written (prec fractional digits), as FromInt(coef)
// multiplied by 10^-prec gives it; prec above 19 takes the general path.
func FromFixed(coef int64, prec uint8) Amount {
	if coef == 0 {
		return Zero
	}
	if prec <= maxFastPrec {
		if u, err := udecimal.NewFromInt64(coef, prec); err == nil {
			return Amount{u: u}
		}
	}
	return slow(decimal.New(coef, -int32(prec)))
}

// FromFloat returns the shortest decimal that round-trips to f; it fails for NaN and ±Inf.
func FromFloat(f float64) (Amount, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Zero, fmt.Errorf("%v: %w", f, ErrRange)
	}
	return Parse(fmt.Sprintf("%v", f))
}

// MustParse is Parse for constants in code and tests; it panics on bad input.
func MustParse(s string) Amount {
	a, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

// Parse reads a plain decimal: optional sign, digits with an optional fraction, optional
// exponent. No whitespace, underscores, hex, "nan" or "inf".
func Parse(s string) (Amount, error) {
	if !plainDecimal(s) {
		return Zero, fmt.Errorf("%q: %w", s, ErrSyntax)
	}
	if a, ok := parseFast(s); ok {
		return a, nil
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return Zero, fmt.Errorf("%q: %w", s, ErrSyntax)
	}
	if err := checkBounds(d); err != nil {
		return Zero, fmt.Errorf("%q: %w", s, err)
	}
	return slow(d), nil
}

// plainDecimal matches [+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)? without allocating.
func plainDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expDigits := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			expDigits++
		}
		if expDigits == 0 || expDigits > 6 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// checkBounds rejects values with too many significant digits or an extreme magnitude.
func checkBounds(d decimal.Decimal) error {
	coef := new(big.Int).Abs(d.Coefficient())
	if coef.Sign() == 0 {
		return nil
	}
	digits := coef.String()
	trimmed := strings.TrimRight(digits, "0")
	exp := int64(d.Exponent()) + int64(len(digits)-len(trimmed))
	if len(trimmed) > MaxDigits {
		return ErrRange
	}
	magnitude := exp + int64(len(trimmed)) - 1 // power of ten of the leading digit
	if magnitude > MaxMagnitude || exp < -MaxScale {
		return ErrRange
	}
	return nil
}

// IsInf reports whether a is +Inf or -Inf.
func (a Amount) IsInf() bool { return a.inf != 0 }

// Sign returns -1, 0 or +1.
func (a Amount) Sign() int {
	if a.inf != 0 {
		return int(a.inf)
	}
	if a.big != nil {
		return a.big.Sign()
	}
	return a.u.Sign()
}

// IsZero reports whether a is 0.
func (a Amount) IsZero() bool { return a.Sign() == 0 }

// Cmp returns -1, 0 or +1 as a is less than, equal to or greater than b.
func (a Amount) Cmp(b Amount) int {
	if a.inf != 0 || b.inf != 0 {
		switch {
		case a.inf == b.inf:
			return 0
		case a.inf > b.inf:
			return 1
		default:
			return -1
		}
	}
	if a.big == nil && b.big == nil {
		return a.u.Cmp(b.u)
	}
	return a.shop().Cmp(b.shop())
}

// GreaterThan reports a > b.
func (a Amount) GreaterThan(b Amount) bool { return a.Cmp(b) > 0 }

// LessThan reports a < b.
func (a Amount) LessThan(b Amount) bool { return a.Cmp(b) < 0 }

// Equal reports a = b numerically (1.0 equals 1.00).
func (a Amount) Equal(b Amount) bool { return a.Cmp(b) == 0 }

// Add returns a + b; an infinite operand wins (∞ + -∞ is not defined and returns +∞'s sign of a).
func (a Amount) Add(b Amount) Amount {
	if a.inf != 0 {
		return a
	}
	if b.inf != 0 {
		return b
	}
	if a.big == nil && b.big == nil {
		if r, ok := fast(a.u.Add(b.u)); ok {
			return r
		}
	}
	return slow(a.shop().Add(b.shop()))
}

// Sub returns a - b.
func (a Amount) Sub(b Amount) Amount { return a.Add(b.Neg()) }

// Mul returns a × b.
func (a Amount) Mul(b Amount) Amount {
	if a.inf != 0 || b.inf != 0 {
		s := a.Sign() * b.Sign()
		if s == 0 {
			return Zero
		}
		return Inf(s)
	}
	if a.big == nil && b.big == nil && a.u.Prec()+b.u.Prec() <= maxFastPrec {
		if r, ok := fast(a.u.Mul(b.u)); ok {
			return r
		}
	}
	return slow(a.shop().Mul(b.shop()))
}

// Div returns a ÷ b rounded to 16 fractional digits; dividing by zero returns ±Inf (or 0 for 0÷0).
func (a Amount) Div(b Amount) Amount {
	if b.IsZero() {
		if a.IsZero() {
			return Zero
		}
		return Inf(a.Sign())
	}
	if a.inf != 0 {
		return Inf(a.Sign() * b.Sign())
	}
	if b.inf != 0 {
		return Zero
	}
	return slow(a.shop().DivRound(b.shop(), divPrecision))
}

// Neg returns -a.
func (a Amount) Neg() Amount {
	if a.inf != 0 {
		return Amount{inf: -a.inf}
	}
	if a.big == nil {
		if r, ok := fast(a.u.Neg()); ok {
			return r
		}
	}
	return slow(a.shop().Neg())
}

// Abs returns |a|.
func (a Amount) Abs() Amount {
	if a.Sign() < 0 {
		return a.Neg()
	}
	return a
}

// Min returns the smaller of a and b.
func Min(a, b Amount) Amount {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

// Max returns the larger of a and b.
func Max(a, b Amount) Amount {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// Round rounds half away from zero to places fractional digits.
func (a Amount) Round(places int32) Amount {
	if a.inf != 0 {
		return a
	}
	return slow(a.shop().Round(places))
}

// Truncate drops fractional digits beyond places.
func (a Amount) Truncate(places int32) Amount {
	if a.inf != 0 {
		return a
	}
	return slow(a.shop().Truncate(places))
}

// RoundToStep rounds a to the nearest multiple of step (half away from zero); step must be positive.
func (a Amount) RoundToStep(step Amount) Amount {
	if a.inf != 0 || step.Sign() <= 0 || step.inf != 0 {
		return a
	}
	n := a.shop().Div(step.shop()).Round(0)
	return slow(n.Mul(step.shop()))
}

// FloorToStep rounds a toward zero to a multiple of step; step must be positive.
func (a Amount) FloorToStep(step Amount) Amount {
	if a.inf != 0 || step.Sign() <= 0 || step.inf != 0 {
		return a
	}
	n := a.shop().Div(step.shop()).Truncate(0)
	return slow(n.Mul(step.shop()))
}

// IsInteger reports whether a has no fractional part.
func (a Amount) IsInteger() bool {
	if a.inf != 0 {
		return false
	}
	if a.big == nil {
		return a.u.Prec() == 0 || a.u.Trunc(0).Equal(a.u)
	}
	return a.big.IsInteger()
}

// Int64 returns the integer part of a, clamped to the int64 range.
func (a Amount) Int64() int64 {
	switch {
	case a.inf > 0:
		return math.MaxInt64
	case a.inf < 0:
		return math.MinInt64
	}
	t := a.shop().Truncate(0)
	if t.GreaterThan(decimal.NewFromInt(math.MaxInt64)) {
		return math.MaxInt64
	}
	if t.LessThan(decimal.NewFromInt(math.MinInt64)) {
		return math.MinInt64
	}
	return t.IntPart()
}

// Float64 returns the nearest float64, for display and charts only.
func (a Amount) Float64() float64 {
	if a.inf != 0 {
		return math.Inf(int(a.inf))
	}
	f, _ := a.shop().Float64()
	return f
}

// String returns the shortest exact decimal text ("750", "0.01", "-3.5"); infinities print as
// "+Inf" and "-Inf".
func (a Amount) String() string {
	switch {
	case a.inf > 0:
		return "+Inf"
	case a.inf < 0:
		return "-Inf"
	}
	if a.big == nil {
		return a.u.String()
	}
	return a.big.String()
}

// StringFixed returns a with exactly places fractional digits.
func (a Amount) StringFixed(places int32) string {
	if a.inf != 0 {
		return a.String()
	}
	return a.shop().StringFixed(places)
}

// MarshalJSON writes a finite amount as a bare JSON number and ±Inf as the strings "+Inf"/"-Inf".
func (a Amount) MarshalJSON() ([]byte, error) {
	if a.inf != 0 {
		return []byte(`"` + a.String() + `"`), nil
	}
	return []byte(a.String()), nil
}

// UnmarshalJSON reads a JSON number or a quoted plain decimal.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// MarshalText writes the decimal text (for TOML and SQL).
func (a Amount) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads a plain decimal (for TOML and SQL).
func (a *Amount) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
