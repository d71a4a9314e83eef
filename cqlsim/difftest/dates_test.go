package difftest

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// dateSteps writes date and timestamp literals with signed years, years of more than four
// digits, days past the end of their month and out-of-range values, and reads them back as
// values, as text (CAST) and as JSON.
func dateSteps() []Step {
	steps := []Step{
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TABLE {ks}.d (k int PRIMARY KEY, d date, ts timestamp, t time)"},
		{Query: "CREATE TABLE {ks}.c (k int PRIMARY KEY, ld list<date>, st set<timestamp>, tu tuple<int, date>)"},
	}
	dates := []struct {
		lit string
		bad bool
	}{
		{"-0001-01-01", false}, {"+10000-01-01", false}, {"0000-01-01", false}, {"-10000-12-31", false},
		{"-5877641-06-23", false}, {"+5881580-07-11", false}, {"+0010000-01-01", false}, {"-00001-03-01", false},
		{"-2024-02-29", false}, {"-0004-02-29", false}, {"2147483648", false}, {"4294967295", false}, {"0", false},
		{"-5877641-06-22", true}, {"+5881580-07-12", true}, {"+99999999-01-01", true}, {"-99999999-01-01", true},
		{"+999999999-01-01", true}, {"+1000000000-01-01", true}, {"-9999999999-01-01", true},
		{"+12345678901-01-01", true}, {"10000-01-01", true}, {"12345-01-01", true}, {"+2024-01-01", true},
		{"+0001-01-01", true}, {"+999-01-01", true}, {"999-01-01", true}, {"-999-01-01", true}, {"-0000-01-01", true},
		{"-2023-02-29", true}, {"-0001-02-29", true}, {"2023-02-29", true}, {"2024-04-31", true}, {"2024-13-01", true},
		{"2024-00-01", true}, {"2024-01-00", true}, {"2024-1-1", true}, {"-0001-01-01Z", true}, {" 2024-01-01", true},
		{"2024-01-01 ", true}, {"+-0001-01-01", true}, {"-1", true}, {"4294967296", true}, {"99999999999999999999", true},
	}
	for i, d := range dates {
		steps = append(steps, Step{Query: fmt.Sprintf("INSERT INTO {ks}.d (k, d) VALUES (%d, '%s')", 100+i, d.lit), WantErr: d.bad})
	}
	steps = append(steps,
		Step{Query: "INSERT INTO {ks}.d (k, d) VALUES (1, -1)", WantErr: true},
		Step{Query: "INSERT INTO {ks}.d (k, d) VALUES (1, 4294967296)", WantErr: true},
		Step{Query: "INSERT INTO {ks}.d (k, d) VALUES (2, 4294967295)"},
		Step{Query: `INSERT INTO {ks}.d JSON '{"k": 3, "d": "-0001-01-01", "ts": "+10000-01-01"}'`},
		Step{Query: `INSERT INTO {ks}.d JSON '{"k": 4, "d": "+10000-01-01"}'`},
	)
	stamps := []struct {
		lit string
		bad bool
	}{
		{"-0001-01-01", false}, {"+10000-01-01", false}, {"0000-01-01", false}, {"-00001-01-01", false},
		{"+99999999-01-01", false}, {"+292278994-08-17", false}, {"-292275055-05-17", false}, {"2023-02-29", false},
		{"2023-02-30", false}, {"2024-04-31 10:00", false}, {"2023-02-29 10:00:00.5+0000", false},
		{"2023-02-29Z", false}, {"-0001-01-01Z", false}, {"+10000-01-01Z", false}, {"-10000-01-01Z", false},
		{"-0001-01-01+00:00", false}, {"+10000-01-01+01:00", false}, {"0000-01-01Z", false}, {"2024-02-30+0000", false},
		{"-0001-01-01 10:00:00", true}, {"+10000-01-01T10:00:00.123Z", true}, {"10000-01-01", true},
		{"+2024-01-01", true}, {"-10000-01-01 00:00+0100", true}, {"-292275055-05-16", true},
		{"-0000-01-01", true}, {"999-01-01", true}, {"+0999-01-01", true}, {"-9999999999-01-01", true},
		{"2024-02-32", true}, {"2024-13-01", true}, {"2024-00-01", true}, {"2024-01-00", true}, {"2024-1-01", true},
		{"2024-02-29T25:00", true}, {"-0001-01-01+0000", true}, {"0000-01-01 10:00", true}, {"0000-01-01+0000", true},
		{"-0001-01-01 10:00Z", true}, {"10000-01-01+0100", true}, {"-0001-01-01 UTC", true},
		{"+10000-01-01 10:00", true}, {"2024-01-01  10:00", true}, {"2024-01-01 10:00:00.1234567891", true},
		{"2024-01-01T10:00:00.123456789", false}, {"2024-01-01 10:00:00.5Z", false},
	}
	for i, s := range stamps {
		steps = append(steps, Step{Query: fmt.Sprintf("INSERT INTO {ks}.d (k, ts) VALUES (%d, '%s')", 200+i, s.lit), WantErr: s.bad})
	}
	// timestamps with a time of day or a zone: Cassandra's parser takes fields of any width
	lenient := []struct {
		lit string
		bad bool
	}{
		{" 2024-01-01 10:00", true}, {"+0001-01-01+0100", true}, {"+0010000-01-01+0100", false},
		{"+10000-01-01 +01", false}, {"+10000-01-01 +0100", false}, {"+10000-01-01 UTC", false},
		{"+10000-01-01 Z", false}, {"+10000-01-01+01", false}, {"+10000-01-01+0100", false},
		{"+10000-01-01+01:00", false}, {"+10000-01-01GMT", true}, {"+10000-1-01+0100", true},
		{"+2024-01-01 10:00", true}, {"-0001-01-01 Z", true}, {"-0001-01-01+01", true}, {"0-01-01 10:00", true},
		{"0000000001-01-01 10:00", false}, {"00002024-01-01 10:00", false}, {"0001-01-01 10:00", false},
		{"0001-01-01+0100", false}, {"1-01-01 10:00", false}, {"1-01-01+0100", true}, {"10000-01-01", true},
		{"10000-01-01 10:00Z", false}, {"10000-01-01+0100", true}, {"10000-01-01T10:00:00.000+0000", false},
		{"10000-01-01Z", true}, {"10000-1-1 1:1", false}, {"12-01-01 10:00", false}, {"123-01-01 10:00", false},
		{"12345-01-01+0100", true}, {"12345-02-29 10:00", false}, {"123456789-01-01 10:00", false},
		{"1234567890-01-01 10:00", true}, {"2023-02-29 10:00+0100", false}, {"2024-0000000001-01 10:00", false},
		{"2024-001-01 10:00", false}, {"2024-01-001 10:00", false}, {"2024-01-01  10:00", true},
		{"2024-01-01 +0100", false}, {"2024-01-01 +01:00", false}, {"2024-01-01 +01:00:30", false},
		{"2024-01-01 -01", false}, {"2024-01-01 -10:00", false}, {"2024-01-01 0000000010:00", false},
		{"2024-01-01 10", true}, {"2024-01-01 100:00", true}, {"2024-01-01 10:0", false},
		{"2024-01-01 10:00 ", true}, {"2024-01-01 10:00 +01 ", true}, {"2024-01-01 10:00 +0100", false},
		{"2024-01-01 10:00 +01:0", true}, {"2024-01-01 10:00 +1800", false}, {"2024-01-01 10:00 +18:00:01", true},
		{"2024-01-01 10:00 -01", false}, {"2024-01-01 10:00 -18:00", false}, {"2024-01-01 10:00 GMT", false},
		{"2024-01-01 10:00 GMT+01", true}, {"2024-01-01 10:00 GMT+01:00", false}, {"2024-01-01 10:00 GMT+1", true},
		{"2024-01-01 10:00 GMT-0130", true}, {"2024-01-01 10:00 UT", false}, {"2024-01-01 10:00 UT+01:00", false},
		{"2024-01-01 10:00 UTC", false}, {"2024-01-01 10:00 UTC+01:00", false}, {"2024-01-01 10:00 UTC+1", true},
		{"2024-01-01 10:00 Z", false}, {"2024-01-01 10:00 Z ", true}, {"2024-01-01 10:00+", true},
		{"2024-01-01 10:00+01", false}, {"2024-01-01 10:00+0160", true}, {"2024-01-01 10:00+01:", true},
		{"2024-01-01 10:00+01:00 ", true}, {"2024-01-01 10:00+1800", false}, {"2024-01-01 10:00+18:01", true},
		{"2024-01-01 10:00+1900", true}, {"2024-01-01 10:00-0130", false}, {"2024-01-01 10:00.5", true},
		{"2024-01-01 10:000", false}, {"2024-01-01 10:00:0", false}, {"2024-01-01 10:00:00 +01", false},
		{"2024-01-01 10:00:00 +01:00", false}, {"2024-01-01 10:00:00 +01:00:30", false},
		{"2024-01-01 10:00:00 GMT", false}, {"2024-01-01 10:00:00 Z", false}, {"2024-01-01 10:00:00 utc", true},
		{"2024-01-01 10:00:00+01", false}, {"2024-01-01 10:00:00+010", true}, {"2024-01-01 10:00:00+0100", false},
		{"2024-01-01 10:00:00+01:0", true}, {"2024-01-01 10:00:00+01:00", false},
		{"2024-01-01 10:00:00+01:00:30", true}, {"2024-01-01 10:00:00+1", true}, {"2024-01-01 10:00:00.", false},
		{"2024-01-01 10:00:00.000000001", false}, {"2024-01-01 10:00:00.000z", true},
		{"2024-01-01 10:00:00.1", false}, {"2024-01-01 10:00:00.123 +01:00", false},
		{"2024-01-01 10:00:00.12345", false}, {"2024-01-01 10:00:00.123456789+0100", false},
		{"2024-01-01 10:00:00.1234567890", true}, {"2024-01-01 10:00:00.1234567891", true},
		{"2024-01-01 10:00:00.5 UTC", false}, {"2024-01-01 10:00:00.5Z", false}, {"2024-01-01 10:00:00.Z", false},
		{"2024-01-01 10:00:0000000001", false}, {"2024-01-01 10:00:00:00", true}, {"2024-01-01 10:00:00GMT", true},
		{"2024-01-01 10:00:00UTC", true}, {"2024-01-01 10:00:00Z", false}, {"2024-01-01 10:00:60", true},
		{"2024-01-01 10:00UTC", true}, {"2024-01-01 10:00z", true}, {"2024-01-01 10:60", true},
		{"2024-01-01 1:00", false}, {"2024-01-01 1:2:3.4", false}, {"2024-01-01 24:00", false},
		{"2024-01-01 24:00:00", false}, {"2024-01-01 24:00:00.000", false}, {"2024-01-01 24:00:01", true},
		{"2024-01-01 24:30", true}, {"2024-01-01 25:00", true}, {"2024-01-01 GMT+01:00", false},
		{"2024-01-01 UT", false}, {"2024-01-01 UTC", false}, {"2024-01-01 Z", false}, {"2024-01-01+01", false},
		{"2024-01-01+01:00:30", false}, {"2024-01-01+01:00:60", true}, {"2024-01-01+1800", false},
		{"2024-01-01+1801", true}, {"2024-01-01GMT", true}, {"2024-01-01T 10:00", true},
		{"2024-01-01T10:00+01:00:30", true}, {"2024-01-01T10:00:00", false},
		{"2024-01-01T10:00:00.123+01:00", false}, {"2024-01-01T10:00:00.1234567890", true},
		{"2024-01-01T10:00:00Z", false}, {"2024-01-01T10:00Z", false}, {"2024-01-01t10:00", true},
		{"2024-01-1 10:00", false}, {"2024-02-29 10:00", false}, {"2024-02-30 10:00Z", false},
		{"2024-02-30 UTC", false}, {"2024-02-30+01", false}, {"2024-02-31 10:00", false},
		{"2024-02-32 10:00", true}, {"2024-1-01 10:00", false}, {"2024-1-01+0100", true}, {"2024-1-1", true},
		{"2024-1-1Z", true}, {"2024-12-31 24:00", false}, {"2024-13-01 10:00", true},
		{"292278994-08-17 07:12", false}, {"292278994-08-17 07:13", true}, {"300000000-01-01 10:00", true},
		{"99999-01-01 10:00", false}, {"999999999-01-01 10:00", true},
	}
	for i, s := range lenient {
		steps = append(steps, Step{Query: fmt.Sprintf("INSERT INTO {ks}.d (k, ts) VALUES (%d, '%s')", 800+i, s.lit), WantErr: s.bad})
	}
	times := []struct {
		lit string
		bad bool
	}{
		{"1000", false}, {"86399999999999", false}, {"0", false}, {"1:2:3", false}, {" 10:00:00", false},
		{"10:00:00 ", false}, {"+1:00:00", false}, {"10:00:00.5", false}, {"23:59:59.999999999", false},
		{"-1", true}, {"86400000000000", true}, {"99999999999999999999", true}, {"10:00", true}, {"25:00:00", true},
		{"10:60:00", true}, {"10:00:60", true}, {"10:00:00.1234567890", true}, {"-1:00:00", true},
		{"10:00:00.", true}, {"10:00:x", true}, {"10:00:00.-5", true}, {"10:00:", true}, {"x", true},
	}
	for i, tm := range times {
		steps = append(steps, Step{Query: fmt.Sprintf("INSERT INTO {ks}.d (k, t) VALUES (%d, '%s')", 400+i, tm.lit), WantErr: tm.bad})
	}
	steps = append(steps,
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (450, 86399999999999)"},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (451, 86400000000000)", WantErr: true},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (452, -1)", WantErr: true},
	)
	// JSON values of dates, times and timestamps: strings, and numbers only for a timestamp
	jsonGood := map[string]bool{`"ts": 1700000000000`: true, `"ts": "1700000000000"`: true, `"t": "1000"`: true, `"d": "4294967295"`: true}
	for i, doc := range []string{
		`"ts": 1700000000000`, `"ts": -5`, `"ts": 1.5`, `"ts": 99999999999999999999`, `"ts": true`, `"ts": "1700000000000"`,
		`"ts": "x"`, `"ts": "+292278994-08-18"`, `"t": 1000`, `"t": 1.5`, `"t": "1000"`, `"t": "-1"`, `"t": "10:00"`,
		`"d": true`, `"d": [1, "a", null]`, `"d": 99999999999999999999`, `"d": 1e3`, `"d": {"a": 1}`, `"d": 0`,
		`"d": 2147483647`, `"d": -2147483649`, `"d": "x"`, `"d": "-1"`, `"d": "4294967295"`, `"d": "-5877641-06-22"`,
	} {
		steps = append(steps, Step{Query: fmt.Sprintf(`INSERT INTO {ks}.d JSON '{"k": %d, %s}'`, 500+i, doc), WantErr: !jsonGood[doc]})
	}
	for i, doc := range []string{
		`"ld": ["x"]`, `"ld": [5]`, `"st": [5]`, `"st": ["x"]`, `"st": [5000000000]`, `"tu": [1, "x"]`, `"tu": [1, 5]`,
		`"ld": ["+10000-01-01"], "st": ["-0001-01-01"], "tu": [1, "-0001-01-01"]`,
	} {
		steps = append(steps, Step{Query: fmt.Sprintf(`INSERT INTO {ks}.c JSON '{"k": %d, %s}'`, 600+i, doc), WantErr: strings.Contains(doc, `"x"`) || strings.Contains(doc, "[5]") || strings.Contains(doc, "1, 5")})
	}
	steps = append(steps,
		Step{Query: `INSERT INTO {ks}.d (k, d) VALUES (700, fromJson('5'))`, WantErr: true},
		Step{Query: `INSERT INTO {ks}.d (k, t) VALUES (701, fromJson('"x"'))`, WantErr: true},
		Step{Query: `INSERT INTO {ks}.d (k, d) VALUES (702, fromJson('"-0002-01-01"'))`},
		Step{Query: `INSERT INTO {ks}.c (k, ld) VALUES (703, fromJson('[5]'))`, WantErr: true},
		Step{Query: "SELECT JSON * FROM {ks}.c", Sorted: true},
		Step{Query: "INSERT INTO {ks}.d (k, ts) VALUES (300, '+292278994-08-18')", WantErr: true},
		Step{Query: "SELECT k, d, ts, CAST(d AS text), CAST(ts AS text), toJson(d), toJson(ts), CAST(d AS timestamp), CAST(ts AS date) FROM {ks}.d", Sorted: true},
		Step{Query: "SELECT JSON k, d, ts, t FROM {ks}.d", Sorted: true},
		Step{Query: "SELECT k, t, CAST(t AS text) FROM {ks}.d WHERE t > 0 ALLOW FILTERING", Sorted: true},
	)
	// bound dates and times: no empty value, and a time outside the day is stored as it is
	steps = append(steps,
		Step{Query: "INSERT INTO {ks}.d (k, d) VALUES (900, ?)", Args: []any{boundBytes{}}, WantErr: true},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (901, ?)", Args: []any{boundBytes{}}, WantErr: true},
		Step{Query: "INSERT INTO {ks}.d (k, d) VALUES (902, ?)", Args: []any{boundBytes{0, 0, 0}}, WantErr: true},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (903, ?)", Args: []any{25 * time.Hour}},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (904, ?)", Args: []any{time.Duration(-1)}},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (905, ?)", Args: []any{time.Duration(math.MaxInt64)}},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (906, ?)", Args: []any{time.Duration(math.MinInt64)}},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (907, ?)", Args: []any{-(49*time.Hour + 61*time.Second + 1234)}},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (908, blobAsTime(0xffffffffffffffff))"},
		Step{Query: "INSERT INTO {ks}.d (k, t) VALUES (909, blobAsTime(0x))", WantErr: true},
		Step{Query: "INSERT INTO {ks}.d (k, d) VALUES (910, blobAsDate(0x))", WantErr: true},
		Step{Query: "SELECT k, t, CAST(t AS text), toJson(t) FROM {ks}.d WHERE k IN (903, 904, 905, 906, 907, 908)"},
		Step{Query: "SELECT JSON k, t FROM {ks}.d WHERE k IN (903, 904, 905, 906, 907, 908)"},
		Step{Query: "SELECT k, t FROM {ks}.d WHERE t < 0 ALLOW FILTERING", Sorted: true},
		Step{Query: "SELECT k, t FROM {ks}.d WHERE t > 86399999999999 ALLOW FILTERING", Sorted: true},
		Step{Query: "SELECT min(t), max(t) FROM {ks}.d"},
		Step{Query: "CREATE TABLE {ks}.tc (k int, t time, PRIMARY KEY (k, t))"},
		Step{Query: "INSERT INTO {ks}.tc (k, t) VALUES (1, ?)", Args: []any{time.Duration(-1)}},
		Step{Query: "INSERT INTO {ks}.tc (k, t) VALUES (1, ?)", Args: []any{25 * time.Hour}},
		Step{Query: "INSERT INTO {ks}.tc (k, t) VALUES (1, '10:00:00')"},
		Step{Query: "SELECT t FROM {ks}.tc WHERE k = 1"},
		Step{Query: "SELECT t FROM {ks}.tc WHERE k = 1 AND t > '12:00:00'"},
		Step{Query: "SELECT t FROM {ks}.tc WHERE k = 1 ORDER BY t DESC"},
	)
	return steps
}

// boundBytes is a bound value sent as the bytes it holds, whatever the column's type.
type boundBytes []byte

// MarshalCQL returns the bytes as they are.
func (b boundBytes) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return b, nil }

// TestDates compares date and timestamp literals at the edges of their ranges, and how
// their values are written back, between cqlsim and a real Cassandra node.
func TestDates(t *testing.T) {
	hosts := referenceHosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	steps := dateSteps()
	want := Run(session(t, hosts[0]), ks, steps)
	sim := cqlsim.StartT(t, cqlsim.Options{})
	got := Run(session(t, sim.Addrs()[0]), ks, steps)
	for i := range steps {
		if (want[i].Error != "") != steps[i].WantErr {
			t.Errorf("step %d on Cassandra: %+v", i, want[i])
		}
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("step %d (%s): Cassandra (-) vs cqlsim (+):\n%s", i, want[i].Query, d)
		}
	}
}
