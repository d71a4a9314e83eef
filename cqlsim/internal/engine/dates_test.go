package engine

import (
	"encoding/binary"
	"testing"
)

// TestDateLiteral checks date literals against what Cassandra 5.0.9 stores, prints and refuses.
func TestDateLiteral(t *testing.T) {
	for _, c := range []struct{ lit, text, err string }{
		{lit: "-0001-01-01", text: "-0001-01-01"},
		{lit: "+10000-01-01", text: "+10000-01-01"},
		{lit: "0000-01-01", text: "0000-01-01"},
		{lit: "+0010000-01-01", text: "+10000-01-01"},
		{lit: "-5877641-06-23", text: "-5877641-06-23"},
		{lit: "+5881580-07-11", text: "+5881580-07-11"},
		{lit: "-2024-02-29", text: "-2024-02-29"},
		{lit: "2147483648", text: "1970-01-01"},
		{lit: "4294967295", text: "+5881580-07-11"},
		{lit: "-5877641-06-22", err: "Input date -5877641-06-22 is less than min supported date -5877641-06-23T00:00Z"},
		{lit: "+99999999-01-01", err: "Input date +99999999-01-01 is greater than max supported date +5881580-07-11T00:00Z"},
		{lit: "+999999999-01-01", err: "Unable to coerce '+999999999-01-01' to a formatted date (long)"},
		{lit: "10000-01-01", err: "Unable to coerce '10000-01-01' to a formatted date (long)"},
		{lit: "+2024-01-01", err: "Unable to coerce '+2024-01-01' to a formatted date (long)"},
		{lit: "-0000-01-01", err: "Unable to coerce '-0000-01-01' to a formatted date (long)"},
		{lit: "-0001-02-29", err: "Unable to coerce '-0001-02-29' to a formatted date (long)"},
		{lit: "-1", err: "Unable to make unsigned int (for date) from: '-1'"},
		{lit: "4294967296", err: "Unable to make unsigned int (for date) from: '4294967296'"},
	} {
		b, err := dateLiteral(c.lit)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.lit, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.lit, err)
			continue
		}
		if got := javaDate(int64(binary.BigEndian.Uint32(b)) - 1<<31); got != c.text {
			t.Errorf("%q reads back as %q, want %q", c.lit, got, c.text)
		}
	}
}

// TestTimestampLiteral checks timestamp literals with signed years and days past the end of
// their month against Cassandra 5.0.9's CAST(ts AS text).
func TestTimestampLiteral(t *testing.T) {
	for _, c := range []struct{ lit, text, err string }{
		{lit: "-0001-01-01", text: "0002-01-01T00:00:00.000Z"},
		{lit: "+10000-01-01Z", text: "+10000-01-01T00:00:00.000Z"},
		{lit: "+10000-01-01+01:00", text: "9999-12-31T23:00:00.000Z"},
		{lit: "0000-01-01", text: "0001-01-01T00:00:00.000Z"},
		{lit: "2023-02-30", text: "2023-02-28T00:00:00.000Z"},
		{lit: "2024-04-31 10:00", text: "2024-04-30T10:00:00.000Z"},
		{lit: "+292278994-08-17", text: "+292278994-08-17T00:00:00.000Z"},
		{lit: "+292278994-08-18", err: "java.lang.ArithmeticException: long overflow"},
		{lit: "0000-01-01 10:00", err: "Unable to parse a date/time from '0000-01-01 10:00'"},
		{lit: "-0001-01-01 10:00", err: "Unable to parse a date/time from '-0001-01-01 10:00'"},
		{lit: "+2024-01-01", err: "Unable to parse a date/time from '+2024-01-01'"},
		{lit: "2024-02-32", err: "Unable to parse a date/time from '2024-02-32'"},
		{lit: "2024-01-01  10:00", err: "Unable to parse a date/time from '2024-01-01  10:00'"},
		{lit: "2024-01-01T10:00:00.1234567890", err: "Unable to parse a date/time from '2024-01-01T10:00:00.1234567890'"},
		{lit: "2024-01-01T10:00:00.123456789", text: "2024-01-01T10:00:00.123Z"},
		{lit: "10000-1-1 1:1", text: "+10000-01-01T01:01:00.000Z"},
		{lit: "2024-12-31 24:00", text: "2025-01-01T00:00:00.000Z"},
		{lit: "2024-01-01 10:00:00. +01:00:30", text: "2024-01-01T08:59:30.000Z"},
		{lit: "2024-01-01 10:00 GMT+01:00", text: "2024-01-01T09:00:00.000Z"},
		{lit: "+10000-01-01+0100", text: "9999-12-31T23:00:00.000Z"},
		{lit: "2024-02-30+01", text: "2024-02-28T23:00:00.000Z"},
		{lit: "300000000-01-01 10:00", err: "java.lang.ArithmeticException: long overflow"},
		{lit: "2024-01-01 24:00:01", err: "Unable to parse a date/time from '2024-01-01 24:00:01'"},
		{lit: "2024-01-01 10:00+01:00:30", err: "Unable to parse a date/time from '2024-01-01 10:00+01:00:30'"},
		{lit: "2024-01-01 10:00+1801", err: "Unable to parse a date/time from '2024-01-01 10:00+1801'"},
		{lit: "-0001-01-01 Z", err: "Unable to parse a date/time from '-0001-01-01 Z'"},
	} {
		ms, err := parseTimestamp(c.lit)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.lit, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.lit, err)
			continue
		}
		if got := javaTimestamp(ms); got != c.text {
			t.Errorf("%q reads back as %q, want %q", c.lit, got, c.text)
		}
	}
}

// TestTimeLiteral checks time literals against what Cassandra 5.0.9 stores and refuses.
func TestTimeLiteral(t *testing.T) {
	for _, c := range []struct {
		lit  string
		ns   int64
		fail string
	}{
		{lit: "1000", ns: 1000},
		{lit: "86399999999999", ns: 86399999999999},
		{lit: " 1:2:3.5 ", ns: 3723500000000},
		{lit: "+1:00:00", ns: 3600e9},
		{lit: "-1", fail: "Unable to make long (for time) from: '-1'"},
		{lit: "86400000000000", fail: "Unable to make long (for time) from: '86400000000000'"},
		{lit: "10:00", fail: "(TimeType) Unable to coerce '10:00' to a formatted time (long)"},
		{lit: "10:00:00.", fail: "(TimeType) Unable to coerce '10:00:00.' to a formatted time (long)"},
		{lit: "-1:00:00", fail: "(TimeType) Unable to coerce '-1:00:00' to a formatted time (long)"},
		{lit: "10:00:00.1234567890", fail: "(TimeType) Unable to coerce '10:00:00.1234567890' to a formatted time (long)"},
	} {
		ns, err := timeLiteral(c.lit)
		switch {
		case c.fail != "" && (err == nil || err.Error() != c.fail):
			t.Errorf("%q: error %v, want %q", c.lit, err, c.fail)
		case c.fail == "" && (err != nil || ns != c.ns):
			t.Errorf("%q: %d, %v; want %d", c.lit, ns, err, c.ns)
		}
	}
}

// TestBoundTimeAndDate checks bound time and date values as Cassandra 5.0.9 takes them: any
// eight bytes for a time, rendered as its TimeSerializer.toString does, compared by their bytes;
// no empty value for either type.
func TestBoundTimeAndDate(t *testing.T) {
	enc := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	for _, c := range []struct {
		v    int64
		text string
	}{
		{0, "00:00:00.000000000"},
		{86399999999999, "23:59:59.999999999"},
		{25 * 3600e9, "01:00:00.000000000"},
		{-1, "00:00:00.00000000-1"},
		{1<<63 - 1, "23:47:16.854775807"},
		{-1 << 63, "0-23:0-47:0-16.00-85400-77500-808"},
		{-(49*3600e9 + 61e9 + 1234), "0-1:0-1:0-1.00000-100-234"},
	} {
		if err := validateValue(tTime, enc(c.v)); err != nil {
			t.Errorf("time %d refused: %v", c.v, err)
		}
		if got := javaTime(c.v); got != c.text {
			t.Errorf("javaTime(%d) = %q, want %q", c.v, got, c.text)
		}
	}
	if c := compareValues(tTime, enc(-1), enc(86399999999999)); c <= 0 {
		t.Errorf("a negative time sorts before 23:59:59.999999999 (%d); Cassandra orders times by their bytes", c)
	}
	for _, c := range []struct {
		ty  *ctype
		b   []byte
		err string
	}{
		{tTime, []byte{}, "Expected 8 byte long for time (0)"},
		{tDate, []byte{}, "Expected 4 byte long for date (0)"},
		{tDate, []byte{1, 2}, "Expected 4 byte long for date (2)"},
	} {
		err := validateValue(c.ty, c.b)
		if err == nil || err.Error() != c.err {
			t.Errorf("%s %x: error %v, want %q", c.ty.plainString(), c.b, err, c.err)
		}
	}
}
