package money

import (
	"math"
	"math/big"

	"github.com/quagmt/udecimal"
	"github.com/shopspring/decimal"
)

// maxFastPrec is udecimal's largest number of fractional digits; a result that would need more
// is computed by shopspring instead, where it stays exact.
const maxFastPrec = 19

// parseFast reads the common case of Parse without allocating: no exponent, at most 19
// fractional digits and 31 integer digits (so at most 1e30 and 38 digits in all, which fits
// 128 bits and Parse's bounds). ok is false when s needs the general path.
func parseFast(s string) (Amount, bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && s[i] == '0' {
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
	if i != len(s) || intDigits > MaxMagnitude+1 || fracDigits > maxFastPrec || intDigits+fracDigits > 38 {
		return Zero, false
	}
	u, err := udecimal.Parse(s)
	if err != nil {
		return Zero, false
	}
	return fast(u)
}

// fast wraps a udecimal result; ok is false when it left the 128-bit range (udecimal then
// holds a big.Int, and the operation is redone in shopspring). Zero is kept as the zero value,
// so "-0" prints as "0" as shopspring prints it.
func fast(u udecimal.Decimal) (Amount, bool) {
	if _, _, _, _, ok := u.ToHiLo(); !ok {
		return Zero, false
	}
	if u.IsZero() {
		return Zero, true
	}
	return Amount{u: u}, true
}

// slow wraps a shopspring value.
func slow(d decimal.Decimal) Amount { return Amount{big: &d} }

// shop returns a finite amount as a shopspring value.
func (a Amount) shop() decimal.Decimal {
	if a.big != nil {
		return *a.big
	}
	neg, hi, lo, prec, _ := a.u.ToHiLo()
	var d decimal.Decimal
	if hi == 0 && lo <= math.MaxInt64 {
		d = decimal.New(int64(lo), -int32(prec))
	} else {
		coef := new(big.Int).SetUint64(hi)
		coef.Lsh(coef, 64).Or(coef, new(big.Int).SetUint64(lo))
		d = decimal.NewFromBigInt(coef, -int32(prec))
	}
	if neg {
		d = d.Neg()
	}
	return d
}
