package engine

import (
	"math/big"
	"strconv"
	"strings"
)

// Cassandra 5.0 reads a timestamp literal (other than a number of milliseconds) in one of
// three shapes, each with its own rules:
//
//   - an ISO date alone (see parseISODate: a sign and long years allowed, year 0 too),
//     optionally followed by "Z" or an offset +hh:mm[:ss];
//   - a date of a year of the era (1 or more: four digits, or '+' and more) followed by
//     another zone: an offset +hh or +hhmm, or a space and a zone (see spacedZone);
//   - a date and a time of day, every field a run of digits of any width: year (1 to
//     999,999,999, no sign), month, day, ' ' or 'T', hour, minute, optionally :second and
//     then optionally '.' and up to nine digits, then optionally "Z", an offset +hh, +hhmm or
//     +hh:mm, or a space and a zone.
//
// A day past the end of its month is its month's last day; 24:00 is midnight of the next
// day. Zone names other than Z, UTC, GMT and UT (with an optional +hh:mm) are not known.
// A local time is UTC (the zone of the reference Cassandra node).

// parseTimestamp reads a timestamp literal as milliseconds since the epoch.
func parseTimestamp(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	bad := invalid("Unable to parse a date/time from '%s'", s)
	if y, m, d, rest, ok := parseISODate(s, true); ok {
		if off, ok := isoOffset(rest); ok {
			return stampMillis(y, m, d, 0, off)
		}
		if y >= 1 && s[0] != '-' {
			off, ok := directOffset(rest, false)
			if !ok && rest != "" && rest[0] == ' ' {
				off, ok = spacedZone(rest[1:])
			}
			if ok {
				return stampMillis(y, m, d, 0, off)
			}
		}
	}
	if ms, off, ok := parseDateTime(s); ok {
		return ms.add(off)
	}
	return 0, bad
}

// localStamp is a date and a time of day of a timestamp literal, before its zone.
type localStamp struct {
	y, m, d int64
	ms      int64 // milliseconds into the day (up to a whole day for 24:00)
}

func (l localStamp) add(off int64) (int64, error) {
	return stampMillis(l.y, l.m, l.d, l.ms, off)
}

// stampMillis is the epoch milliseconds of ms into a day at an offset of off seconds, or
// Cassandra's server error when they overflow 64 bits.
func stampMillis(y, m, d, ms, off int64) (int64, error) {
	v := new(big.Int).Mul(big.NewInt(daysFromCivil(y, m, d)), big.NewInt(86_400_000))
	v.Add(v, big.NewInt(ms-off*1000))
	if !v.IsInt64() {
		return 0, &Error{Code: CodeServerError, Message: "java.lang.ArithmeticException: long overflow"}
	}
	return v.Int64(), nil
}

// digitRun reads the decimal digits at the start of s (at least one, at most 18).
func digitRun(s string) (v int64, rest string, ok bool) {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	if n == 0 || n > 18 {
		return 0, s, false
	}
	v, _ = strconv.ParseInt(s[:n], 10, 64)
	return v, s[n:], true
}

// parseDateTime reads the third shape of parseTimestamp's: a date, a time of day and an
// optional zone; it returns the local time and the zone's offset in seconds.
func parseDateTime(s string) (localStamp, int64, bool) {
	var l localStamp
	var f [5]int64
	rest := s
	for i, sep := range []string{"-", "-", " T", ":", ""} {
		v, r, ok := digitRun(rest)
		if !ok {
			return l, 0, false
		}
		f[i] = v
		rest = r
		if sep != "" {
			if rest == "" || !strings.ContainsRune(sep, rune(rest[0])) {
				return l, 0, false
			}
			rest = rest[1:]
		}
	}
	var sec, nanos int64
	hasSec := false
	if rest != "" && rest[0] == ':' {
		v, r, ok := digitRun(rest[1:])
		if !ok {
			return l, 0, false
		}
		sec, rest, hasSec = v, r, true
	}
	if hasSec && rest != "" && rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		frac := rest[1:n]
		if len(frac) > 9 {
			return l, 0, false
		}
		if frac != "" {
			nanos, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		}
		rest = rest[n:]
	}
	y, m, d, h, mi := f[0], f[1], f[2], f[3], f[4]
	if y < 1 || y > maxISOYear || m < 1 || m > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || sec > 59 {
		return l, 0, false
	}
	if h == 24 && (mi != 0 || sec != 0 || nanos != 0) {
		return l, 0, false
	}
	d = min(d, monthLength(y, m))
	var off int64
	switch {
	case rest == "" || rest == "Z":
	case rest[0] == ' ':
		o, ok := spacedZone(rest[1:])
		if !ok {
			return l, 0, false
		}
		off = o
	default:
		o, ok := directOffset(rest, true)
		if !ok {
			return l, 0, false
		}
		off = o
	}
	l = localStamp{y: y, m: m, d: d, ms: ((h*60+mi)*60+sec)*1000 + nanos/1e6}
	return l, off, true
}

// isoOffset reads the zone of an ISO date-only timestamp: none (UTC), "Z", "+hh:mm" or
// "+hh:mm:ss". It returns the offset in seconds east of UTC.
func isoOffset(s string) (int64, bool) {
	if s == "" || s == "Z" {
		return 0, true
	}
	if len(s) != 6 && len(s) != 9 {
		return 0, false
	}
	return offsetOf(s)
}

// directOffset reads an offset written right after a date or a time: +hh or +hhmm, and
// +hh:mm when withColon.
func directOffset(s string, withColon bool) (int64, bool) {
	if len(s) == 3 || (len(s) == 5 && isDigit(s[3])) || (withColon && len(s) == 6) {
		return offsetOf(s)
	}
	return 0, false
}

// spacedZone reads a zone written after a space: Z, UTC, GMT or UT (optionally followed by
// +hh:mm), or an offset +hh, +hhmm, +hh:mm or +hh:mm:ss.
func spacedZone(s string) (int64, bool) {
	if s == "Z" {
		return 0, true
	}
	for _, name := range []string{"UTC", "GMT", "UT"} {
		if rest, ok := strings.CutPrefix(s, name); ok {
			if rest == "" {
				return 0, true
			}
			if len(rest) == 6 {
				return offsetOf(rest)
			}
			return 0, false
		}
	}
	switch len(s) {
	case 3, 5, 6, 9:
		return offsetOf(s)
	}
	return 0, false
}

// offsetOf reads +hh, +hhmm, +hh:mm or +hh:mm:ss (or with '-') as seconds east of UTC, at
// most 18 hours either way.
func offsetOf(s string) (int64, bool) {
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	var parts []string
	switch len(s) {
	case 3:
		parts = []string{s[1:3]}
	case 5:
		parts = []string{s[1:3], s[3:5]}
	case 6:
		if s[3] != ':' {
			return 0, false
		}
		parts = []string{s[1:3], s[4:6]}
	case 9:
		if s[3] != ':' || s[6] != ':' {
			return 0, false
		}
		parts = []string{s[1:3], s[4:6], s[7:9]}
	default:
		return 0, false
	}
	var secs int64
	for i, p := range []int64{3600, 60, 1} {
		if i >= len(parts) {
			break
		}
		q := parts[i]
		if !isDigit(q[0]) || !isDigit(q[1]) {
			return 0, false
		}
		v := int64(q[0]-'0')*10 + int64(q[1]-'0')
		if v > []int64{18, 59, 59}[i] {
			return 0, false
		}
		secs += v * p
	}
	if secs > 18*3600 {
		return 0, false
	}
	if s[0] == '-' {
		secs = -secs
	}
	return secs, true
}
