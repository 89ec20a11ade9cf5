package live

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cockpit/live/money"
)

// OptionContract is a parsed OCC (OSI) option symbol such as AAPL250117C00150000.
type OptionContract struct {
	Root   string       // the underlying's option root ("AAPL")
	Expiry time.Time    // expiration date, UTC midnight
	Right  byte         // 'C' call or 'P' put
	Strike money.Amount // strike price in dollars (the symbol's 8 digits ÷ 1000)
}

// ParseOCC parses an OCC option symbol strictly: a root of 1–6 upper-case letters or digits
// starting with a letter (in the 21-character OSI form the root is padded with spaces to
// six), a real calendar date YYMMDD, C or P, and the strike × 1000 as exactly 8 digits,
// greater than zero. Anything else is an error naming the part that is wrong.
func ParseOCC(sym string) (OptionContract, error) {
	const tail = 6 + 1 + 8
	if len(sym) <= tail {
		return OptionContract{}, fmt.Errorf("%d characters, want a root and %d more (YYMMDD, C/P, 8-digit strike)", len(sym), tail)
	}
	rootPart, rest := sym[:len(sym)-tail], sym[len(sym)-tail:]
	root := rootPart
	if len(sym) == 6+tail {
		root = strings.TrimRight(rootPart, " ")
	}
	if !optionRoot(root) {
		return OptionContract{}, fmt.Errorf("root %q is not 1-6 letters or digits starting with a letter", rootPart)
	}
	date, right, strike := rest[:6], rest[6], rest[7:]
	if !allDigits(date) {
		return OptionContract{}, fmt.Errorf("expiry %q is not YYMMDD", date)
	}
	exp, err := time.Parse("060102", date)
	if err != nil {
		return OptionContract{}, fmt.Errorf("expiry %q is not a calendar date", date)
	}
	if right != 'C' && right != 'P' {
		return OptionContract{}, fmt.Errorf("right %q is not C or P", string(right))
	}
	if !allDigits(strike) {
		return OptionContract{}, fmt.Errorf("strike %q is not 8 digits", strike)
	}
	milli, _ := strconv.ParseInt(strike, 10, 64) // 8 digits always fit
	if milli <= 0 {
		return OptionContract{}, errors.New("strike is zero")
	}
	return OptionContract{Root: root, Expiry: exp, Right: right, Strike: money.FromInt(milli).Div(money.FromInt(1000))}, nil
}

func optionRoot(s string) bool {
	if len(s) == 0 || len(s) > 6 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
