package engine

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
)

// Cassandra reads a date literal (and the date-only form of a timestamp literal) as Java's
// ISO local date: a year, a two-digit month and a two-digit day joined by '-'. The year is
// exactly four digits without a sign, more than four after a '+', four or more after a '-'
// (never -0000), at most ten in all and within ±999,999,999.
const maxISOYear = 999_999_999

// parseISODate reads the ISO date at the start of s and returns its year, month and day and
// what follows it. A day past the end of its month is refused when clamp is false (Java's
// STRICT resolver, used for dates) and becomes the month's last day when it is true (its
// SMART resolver, used for timestamps); a day above 31 or a month outside 1-12 is refused
// either way.
func parseISODate(s string, clamp bool) (year, month, day int64, rest string, ok bool) {
	i := 0
	sign := byte(0)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign = s[0]
		i++
	}
	start := i
	for i < len(s) && i-start < 11 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	digits := i - start
	switch {
	case digits > 10,
		sign == 0 && digits != 4,
		sign == '+' && digits <= 4,
		sign == '-' && digits < 4:
		return 0, 0, 0, "", false
	}
	y, err := strconv.ParseInt(s[start:i], 10, 64)
	if err != nil || y > maxISOYear || (sign == '-' && y == 0) {
		return 0, 0, 0, "", false
	}
	if sign == '-' {
		y = -y
	}
	m, okm := twoDigitField(s, i)
	d, okd := twoDigitField(s, i+3)
	if !okm || !okd || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, 0, 0, "", false
	}
	if n := monthLength(y, m); d > n {
		if !clamp {
			return 0, 0, 0, "", false
		}
		d = n
	}
	return y, m, d, s[i+6:], true
}

// twoDigitField reads "-NN" at s[i:].
func twoDigitField(s string, i int) (int64, bool) {
	if i+3 > len(s) || s[i] != '-' || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
		return 0, false
	}
	return int64(s[i+1]-'0')*10 + int64(s[i+2]-'0'), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// monthLength is the number of days of a month of the proleptic Gregorian calendar.
func monthLength(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts the days from 1970-01-01 to a date of the proleptic Gregorian
// calendar (negative before it).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	doy := (153*((m+9)%12)+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// epochMillisOverflow tells whether midnight of a day (counted from the epoch) has no 64-bit
// count of milliseconds.
func epochMillisOverflow(days int64) bool {
	return days > math.MaxInt64/86_400_000 || days < math.MinInt64/86_400_000
}

// isRawInteger tells whether s is an optional '-' followed by decimal digits.
func isRawInteger(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// dateLiteral encodes a date given as a string or an integer literal as Cassandra 5.0 does: a
// number is the encoded value itself (days with the epoch at 2^31, 0 to 2^32-1); anything else
// must be an ISO date between -5877641-06-23 and +5881580-07-11.
func dateLiteral(s string) ([]byte, error) {
	if isRawInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > math.MaxUint32 {
			return nil, invalid("Unable to make unsigned int (for date) from: '%s'", s)
		}
		return binary.BigEndian.AppendUint32(nil, uint32(v)), nil
	}
	y, m, d, rest, ok := parseISODate(s, false)
	if !ok || rest != "" {
		return nil, invalid("Unable to coerce '%s' to a formatted date (long)", s)
	}
	days := daysFromCivil(y, m, d)
	switch {
	case epochMillisOverflow(days):
		return nil, invalid("Unable to coerce '%s' to a formatted date (long)", s)
	case days < math.MinInt32:
		return nil, invalid("Input date %s is less than min supported date -5877641-06-23T00:00Z", s)
	case days > math.MaxInt32:
		return nil, invalid("Input date %s is greater than max supported date +5881580-07-11T00:00Z", s)
	}
	return binary.BigEndian.AppendUint32(nil, uint32(int32(days))+1<<31), nil
}

// nanosPerDay is the number of nanoseconds of a day: a time is less.
const nanosPerDay = 86_400_000_000_000

// timeLiteral reads a time given as a string or an integer literal as Cassandra 5.0 does: a
// number is nanoseconds since midnight; anything else is hh:mm:ss[.fffffffff] once trimmed,
// each of hh, mm and ss a decimal number (a sign allowed, as Java's Integer.parseInt allows)
// within its range, the fraction one to nine digits.
func timeLiteral(s string) (int64, error) {
	if isRawInteger(s) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v >= nanosPerDay {
			return 0, invalid("Unable to make long (for time) from: '%s'", s)
		}
		return v, nil
	}
	ns, ok := parseTimeOfDay(javaTrim(s))
	if !ok {
		return 0, invalid("(TimeType) Unable to coerce '%s' to a formatted time (long)", s)
	}
	return ns, nil
}

// javaTrim drops the leading and trailing characters up to ' ', as Java's String.trim does.
func javaTrim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

// parseTimeOfDay reads hh:mm:ss[.fffffffff] (see timeLiteral) as nanoseconds since midnight.
func parseTimeOfDay(s string) (int64, bool) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || parts[0] == "" {
		return 0, false
	}
	sec, frac, hasFrac := strings.Cut(parts[2], ".")
	var fields [3]int64
	for i, p := range []string{parts[0], parts[1], sec} {
		v, err := strconv.ParseInt(p, 10, 32)
		if err != nil || v < 0 || v > []int64{23, 59, 59}[i] {
			return 0, false
		}
		fields[i] = v
	}
	var nanos int64
	if hasFrac {
		if frac == "" || len(frac) > 9 || !isRawInteger(frac) || frac[0] == '-' {
			return 0, false
		}
		nanos, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	}
	return ((fields[0]*60+fields[1])*60+fields[2])*1e9 + nanos, true
}
