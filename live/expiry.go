package live

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"cockpit/live/pystr"
)

// ErrBadTimestamp reports an expiry (or other ISO-8601 timestamp) that cannot be parsed.
var ErrBadTimestamp = errors.New("not an ISO-8601 timestamp")

// ParseExpiry is cockpit's one expiry parser (DV7). It trims surrounding whitespace, accepts
// a trailing "Z" or "z" or a numeric offset, and otherwise accepts what Python 3.11's
// datetime.fromisoformat accepts (extended and basic forms, week dates, date-only, any single
// separator character, fractional seconds with "." or ","). A timestamp without an offset is UTC.
// Callers treat an error as "expired".
func ParseExpiry(s string) (time.Time, error) {
	s = pystr.Strip(s)
	if strings.HasSuffix(s, "z") {
		s = s[:len(s)-1] + "Z"
	}
	t, err := parseISO(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", pystr.Repr(s), ErrBadTimestamp)
	}
	return t, nil
}

// parseISO ports the structure of CPython 3.11's datetime.fromisoformat (C implementation):
// the date part ends at a position decided by characters 4 and 5, one separator character of
// any kind follows, then the time with an optional Z or ±HH[:MM[:SS[.ffffff]]] offset.
func parseISO(s string) (time.Time, error) {
	if utf8.RuneCountInString(s) < 7 {
		return time.Time{}, ErrBadTimestamp
	}
	sep := isoSeparator(s)
	if sep < 0 || sep > len(s) {
		return time.Time{}, ErrBadTimestamp
	}
	year, month, day, ok := isoDate(s[:sep])
	if !ok {
		return time.Time{}, ErrBadTimestamp
	}
	var hms [4]int // hour, minute, second, microsecond
	offset, hasOffset := 0, false
	if len(s) > sep {
		_, size := utf8.DecodeRuneInString(s[sep:]) // any single separator character
		rest := s[sep+size:]
		var err error
		hms, offset, hasOffset, err = isoTime(rest)
		if err != nil {
			return time.Time{}, err
		}
	}
	if !validDate(year, month, day) || hms[0] > 23 || hms[1] > 59 || hms[2] > 59 {
		return time.Time{}, ErrBadTimestamp
	}
	loc := time.UTC
	if hasOffset {
		if offset <= -86400_000000 || offset >= 86400_000000 {
			return time.Time{}, ErrBadTimestamp
		}
		loc = time.FixedZone("", 0)
	}
	t := time.Date(year, time.Month(month), day, hms[0], hms[1], hms[2], hms[3]*1000, loc)
	if hasOffset {
		t = t.Add(-time.Duration(offset) * time.Microsecond)
	}
	return t.UTC(), nil
}

// isoSeparator returns the byte index where the date ends (CPython's
// _find_isoformat_datetime_separator).
func isoSeparator(s string) int {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	n := len(s)
	if n == 7 {
		return 7
	}
	if at(4) == '-' {
		if at(5) != 'W' {
			return 10 // YYYY-MM-DD
		}
		if n < 8 {
			return -1
		}
		if n > 8 && at(8) == '-' {
			if n == 9 {
				return -1
			}
			if n > 10 && isASCIIDigit(at(10)) {
				return 8
			}
			return 10 // YYYY-Www-D
		}
		return 8 // YYYY-Www
	}
	if at(4) == 'W' {
		idx := 7
		for idx < n && isASCIIDigit(s[idx]) {
			idx++
		}
		if idx < 9 {
			return idx
		}
		if idx%2 == 0 {
			return 7
		}
		return 8
	}
	return 8 // YYYYMMDD
}

func isASCIIDigit(b byte) bool { return b >= '0' && b <= '9' }

// digits reads exactly n ASCII digits at the start of s.
func digits(s string, n int) (int, string, bool) {
	if len(s) < n {
		return 0, s, false
	}
	v := 0
	for i := 0; i < n; i++ {
		if !isASCIIDigit(s[i]) {
			return 0, s, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, s[n:], true
}

// isoDate parses YYYY-MM-DD, YYYYMMDD, YYYY-Www[-D] and YYYYWww[D].
func isoDate(s string) (year, month, day int, ok bool) {
	total := len(s)
	year, p, ok := digits(s, 4)
	if !ok {
		return 0, 0, 0, false
	}
	usesSep := len(p) > 0 && p[0] == '-'
	if usesSep {
		p = p[1:]
	}
	if len(p) > 0 && p[0] == 'W' {
		week, q, ok := digits(p[1:], 2)
		if !ok {
			return 0, 0, 0, false
		}
		weekday := 1
		if total-len(q) < total {
			if usesSep {
				if len(q) == 0 || q[0] != '-' {
					return 0, 0, 0, false
				}
				q = q[1:]
			}
			if weekday, _, ok = digits(q, 1); !ok {
				return 0, 0, 0, false
			}
		}
		return isoWeekDate(year, week, weekday)
	}
	month, p, ok = digits(p, 2)
	if !ok {
		return 0, 0, 0, false
	}
	if usesSep {
		if len(p) == 0 || p[0] != '-' {
			return 0, 0, 0, false
		}
		p = p[1:]
	}
	day, _, ok = digits(p, 2)
	return year, month, day, ok
}

// isoWeekDate converts an ISO week date; week 53 only exists in long years.
func isoWeekDate(year, week, weekday int) (int, int, int, bool) {
	if year < 1 || week < 1 || weekday < 1 || weekday > 7 {
		return 0, 0, 0, false
	}
	if week > 52 {
		jan1 := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).Weekday()
		long := jan1 == time.Thursday || (jan1 == time.Wednesday && isLeap(year))
		if week > 53 || !long {
			return 0, 0, 0, false
		}
	}
	// Monday of week 1 is the Monday on or before 4 January.
	jan4 := time.Date(year, 1, 4, 0, 0, 0, 0, time.UTC)
	offset := (int(jan4.Weekday()) + 6) % 7
	monday := jan4.AddDate(0, 0, -offset)
	d := monday.AddDate(0, 0, (week-1)*7+weekday-1)
	return d.Year(), int(d.Month()), d.Day(), true
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func validDate(year, month, day int) bool {
	if year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 {
		return false
	}
	return day <= time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// isoTime parses HH[:MM[:SS[.f…]]] (or the basic form) with an optional Z or ±offset.
// The offset is returned in microseconds east of UTC.
func isoTime(s string) (hms [4]int, offset int, hasOffset bool, err error) {
	tz := strings.IndexAny(s, "Z+-")
	body := s
	if tz >= 0 {
		body = s[:tz]
	}
	var rest bool
	hms, rest, err = hhmmss(body)
	if err != nil {
		return hms, 0, false, err
	}
	if tz < 0 {
		if rest {
			return hms, 0, false, ErrBadTimestamp
		}
		return hms, 0, false, nil
	}
	if s[tz] == 'Z' {
		if tz+1 != len(s) {
			return hms, 0, false, ErrBadTimestamp
		}
		return hms, 0, true, nil
	}
	sign := 1
	if s[tz] == '-' {
		sign = -1
	}
	off, rest, err := hhmmss(s[tz+1:])
	if err != nil || rest {
		return hms, 0, false, ErrBadTimestamp
	}
	offset = sign * ((off[0]*3600+off[1]*60+off[2])*1_000_000 + off[3])
	return hms, offset, true, nil
}

// hhmmss parses [HH[:?MM[:?SS[.ffffff]]]]; rest reports trailing characters. Like CPython,
// a third separator or an unseparated seventh digit starts the fraction.
func hhmmss(s string) (out [4]int, rest bool, err error) {
	p := s
	hasSep := true
	for i := 0; i < 3; i++ {
		v, q, ok := digits(p, 2)
		if !ok {
			return out, false, ErrBadTimestamp
		}
		out[i] = v
		if len(q) == 0 {
			return out, false, nil
		}
		c, after := q[0], q[1:]
		if i == 0 {
			hasSep = c == ':'
		}
		if len(after) == 0 {
			return out, true, nil // one stray character after the digits
		}
		if hasSep && c == ':' {
			p = after
			continue
		}
		if c == '.' || c == ',' {
			p = after
			break
		}
		if !hasSep {
			p = q // the character is the next group's first digit
			continue
		}
		return out, false, ErrBadTimestamp
	}
	return fraction(p, out)
}

// fraction reads up to six fractional digits (more are truncated) after "." or ",".
func fraction(p string, out [4]int) ([4]int, bool, error) {
	n := len(p)
	if n > 6 {
		n = 6
	}
	v, q, ok := digits(p, n)
	if !ok {
		return out, false, ErrBadTimestamp
	}
	for i := n; i < 6; i++ {
		v *= 10
	}
	out[3] = v
	for len(q) > 0 && isASCIIDigit(q[0]) {
		q = q[1:]
	}
	return out, len(q) > 0, nil
}

// FormatTimestamp renders t as UTC ISO-8601 with microseconds and a "Z" suffix, the form
// mandate commits write (e.g. 2026-06-01T15:00:00.123456Z).
func FormatTimestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// FormatOffsetTimestamp renders t as UTC ISO-8601 with microseconds and "+00:00", the form of
// the HALT sentinel's tripped_at.
func FormatOffsetTimestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000+00:00")
}
