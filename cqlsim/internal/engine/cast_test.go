package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestCast: CAST(x AS type) in a selection converts as Cassandra 5.0's cast functions do
// (Java's numeric conversions, CQL literal text), names its column cast(x as type) (or x when
// the type is x's own), keeps null null, and refuses what Cassandra refuses with its messages
// (the differential test compares them with a Cassandra node's).
func TestCast(t *testing.T) {
	te := setupKS(t)
	te.mustExec(`CREATE TABLE ct (k int PRIMARY KEY, i int, b bigint, d double, f float, de decimal, vi varint,
		ts timestamp, da date, t text, a ascii, bl blob, ip inet, l list<int>)`)
	te.mustExec(`INSERT INTO ct (k, i, b, d, f, de, vi, ts, da, t, a, bl, ip, l) VALUES (1, 300, -9000000000, 3.5, 0.1,
		-123456789.987654321e20, 123456789012345678901234567890, '2024-01-02 03:04:05.678+0000', '2024-02-29', 'x', 'y',
		0xcafe, '::1', [1])`)
	te.mustExec("INSERT INTO ct (k) VALUES (2)")
	r := te.mustExec("SELECT CAST(i AS text), CAST(i AS tinyint), CAST(i AS double), CAST(i AS int), CAST(t AS varchar) FROM ct WHERE k = 1")
	if got, want := colNames(r), "cast(i as text),cast(i as tinyint),cast(i as double),i,t"; got != want {
		t.Errorf("columns %q, want %q", got, want)
	}
	// formatValue shows a date as its encoding: 0x7fffff98 is 1969-09-19, 0x80004d0c 2024-01-02
	for q, want := range map[string]string{
		"SELECT CAST(i AS text), CAST(i AS tinyint), CAST(i AS decimal), CAST(i AS timestamp) FROM ct WHERE k = 1":              "'300'|44|300|-5877640-04-18T00:00:00Z",
		"SELECT CAST(b AS int), CAST(b AS smallint), CAST(b AS text), CAST(b AS date) FROM ct WHERE k = 1":                      "-410065408|-6656|'-9000000000'|0x7fffff98",
		"SELECT CAST(d AS int), CAST(d AS decimal), CAST(f AS text), CAST(f AS double), CAST(f AS decimal) FROM ct WHERE k = 1": "3|3.5|'0.1'|0.10000000149011612|0.1",
		"SELECT CAST(de AS bigint), CAST(de AS text), CAST(vi AS int), CAST(vi AS bigint) FROM ct WHERE k = 1":                  "8051866640255129600|'-1.23456789987654321E+28'|1312754386|-4362896299872285998",
		"SELECT CAST(ts AS date), CAST(ts AS text), CAST(ts AS bigint), CAST(da AS timestamp) FROM ct WHERE k = 1":              "0x80004d0c|'2024-01-02T03:04:05.678Z'|1704164645678|2024-02-29T00:00:00Z",
		"SELECT CAST(ip AS text), CAST(a AS text), CAST(CAST(i AS bigint) AS text) FROM ct WHERE k = 1":                         "'0:0:0:0:0:0:0:1'|'y'|'300'",
		"SELECT CAST(i AS text), CAST(d AS int), CAST(ts AS date) FROM ct WHERE k = 2":                                          "null|null|null",
	} {
		if got := te.rows(q); !slices.Equal(got, []string{want}) {
			t.Errorf("%s: rows %q, want %q", q, got, want)
		}
	}
	te.wantInvalid(map[string]string{
		"SELECT CAST(t AS int) FROM ct":     "Invalid call to function system.cast_as_int, none of its type signatures match (known type signatures: " + strings.Join(castSigs("int"), ", ") + ")",
		"SELECT CAST(bl AS text) FROM ct":   "Invalid call to function system.cast_as_text, none of its type signatures match (known type signatures: " + strings.Join(castSigs("text"), ", ") + ")",
		"SELECT CAST(ts AS int) FROM ct":    "Ambiguous call to function system.cast_as_int (can be matched by following signatures: system.cast_as_int : (varint) -> int, system.cast_as_int : (bigint) -> int): use type casts to disambiguate",
		"SELECT CAST(i AS blob) FROM ct":    "i cannot be cast to blob",
		"SELECT k, CAST(i AS uuid) FROM ct": "k cannot be cast to uuid",
		"SELECT CAST(i AS varchar) FROM ct": "i cannot be cast to varchar",
		"SELECT CAST(1 AS text) FROM ct":    "Cannot infer type for term 1 in selection clause (try using a cast to force a type)",
		"SELECT CAST(? AS text) FROM ct":    "Cannot infer type for term ? in selection clause (try using a cast to force a type)",
		"SELECT CAST(null AS text) FROM ct": "Cannot infer type for term NULL in selection clause (try using a cast to force a type)",
		"SELECT CAST(nope AS text) FROM ct": "Undefined column name nope in table ks.ct",
	})
	for q, want := range map[string]string{
		"SELECT CAST(i AS list<int>) FROM ct": "line 1:17 no viable alternative at input 'list'",
		"SELECT CAST(i) FROM ct":              "line 1:13 mismatched input ')' expecting K_AS",
	} {
		if code, msg := te.errCode(q); code != CodeSyntaxError || !strings.HasPrefix(msg, want) {
			t.Errorf("%s: %v %q, want a syntax error %q", q, code, msg, want)
		}
	}
	if code, msg := te.errCode("SELECT CAST(now() AS blob) FROM ct"); code != CodeServerError || !strings.Contains(msg, "IndexOutOfBoundsException") {
		t.Errorf("CAST(now() AS blob): %v %q, want Cassandra's server error", code, msg)
	}
	te.mustExec("INSERT INTO ct (k, d, f) VALUES (3, NaN, -Infinity)")
	for q, c := range map[string]string{"SELECT CAST(d AS decimal) FROM ct WHERE k = 3": "N", "SELECT CAST(f AS decimal) FROM ct WHERE k = 3": "I"} {
		if code, msg := te.errCode(q); code != CodeServerError || !strings.Contains(msg, "NumberFormatException: Character "+c+" ") {
			t.Errorf("%s: %v %q, want a NumberFormatException on %s", q, code, msg, c)
		}
	}
	if got, want := te.rows("SELECT JSON CAST(i AS text), CAST(i AS bigint) AS \"Big\" FROM ct WHERE k = 1"), []string{`'{"cast(i as text)": "300", "\"Big\"": 300}'`}; !slices.Equal(got, want) {
		t.Errorf("SELECT JSON: %q, want %q", got, want)
	}
}

// castSigs lists the signatures of cast_as_<target> in the order Cassandra's message lists them.
func castSigs(target string) []string {
	var out []string
	for _, src := range castSources[target] {
		out = append(out, castSignature(target, src))
	}
	return out
}

// TestMillisToDate: toDate and CAST(... AS date) take whole seconds rounded down, then whole
// days rounded toward zero (Cassandra's Duration.toDays), as a Cassandra 5.0.9 node answers.
func TestMillisToDate(t *testing.T) {
	for ms, want := range map[int64]string{
		-1: "1970-01-01", -43200001: "1970-01-01", -86399999: "1969-12-31", -86400001: "1969-12-31",
		-172799999: "1969-12-30", 86399999: "1970-01-01", -2208988799999: "1900-01-01", -2208945600001: "1900-01-02",
		-62135596800001: "0001-01-01",
	} {
		b := millisToDate(ms)
		if got := castText(tDate.code, b); got != want {
			t.Errorf("millisToDate(%d) = %s, want %s", ms, got, want)
		}
	}
}

// TestTupleNotationSingleColumn: (c) op (v) on one clustering column restricts like c op v
// (literals and markers), and is refused on other columns and in the forms Cassandra refuses.
func TestTupleNotationSingleColumn(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE tn (k int, c int, d int, v int, PRIMARY KEY (k, c, d))")
	for _, c := range []string{"1", "2", "3", "5"} {
		te.mustExec("INSERT INTO tn (k, c, d, v) VALUES (1, " + c + ", 1, 0)")
	}
	for q, want := range map[string][]string{
		"SELECT c FROM tn WHERE k = 1 AND (c) = (2)":                     {"2"},
		"SELECT c FROM tn WHERE k = 1 AND (c) > (1) AND c < 5":           {"2", "3"},
		"SELECT c FROM tn WHERE k = 1 AND (c) >= (2) AND (c) < (5)":      {"2", "3"},
		"SELECT c FROM tn WHERE k = 1 AND (c) IN ((3), (1), (3))":        {"1", "3"},
		"SELECT c FROM tn WHERE k = 1 AND (c) IN ()":                     {},
		"SELECT c FROM tn WHERE k = 1 AND (c) = (1) AND (d) = (1)":       {"1"},
		"SELECT c FROM tn WHERE k = 1 AND (c) <= (3) ORDER BY c DESC":    {"3", "2", "1"},
		"SELECT c FROM tn WHERE k = 1 AND (c) > (1) AND (c, d) < (5, 0)": {"2", "3"},
	} {
		if got := te.rows(q); !slices.Equal(got, want) {
			t.Errorf("%s: rows %q, want %q", q, got, want)
		}
	}
	tuple := func(v int32) Value { return Value{Bytes: encodeFields([][]byte{intVal(v).Bytes})} }
	if got := te.rows("SELECT c FROM tn WHERE k = 1 AND (c) > ?", tuple(2)); !slices.Equal(got, []string{"3", "5"}) {
		t.Errorf("(c) > ?: rows %q", got)
	}
	if got := te.rows("SELECT c FROM tn WHERE k = 1 AND (c) IN ((?), (?))", intVal(5), intVal(1)); !slices.Equal(got, []string{"1", "5"}) {
		t.Errorf("(c) IN ((?), (?)): rows %q", got)
	}
	if got := te.rows("SELECT c FROM tn WHERE k = 1 AND (c) IN ?", Value{Bytes: encodeElems([][]byte{tuple(3).Bytes})}); !slices.Equal(got, []string{"3"}) {
		t.Errorf("(c) IN ?: rows %q", got)
	}
	te.wantInvalid(map[string]string{
		"SELECT c FROM tn WHERE (k) = (1)":                     "Multi-column relations can only be applied to clustering columns but was applied to: k",
		"SELECT c FROM tn WHERE k = 1 AND (v) = (1)":           "Multi-column relations can only be applied to clustering columns but was applied to: v",
		"SELECT c FROM tn WHERE k = 1 AND (d) = (1)":           `PRIMARY KEY column "d" cannot be restricted as preceding column "c" is not restricted`,
		"SELECT c FROM tn WHERE k = 1 AND (c) = (1) AND c = 1": "c cannot be restricted by more than one relation if it includes an Equal",
		"SELECT c FROM tn WHERE k = 1 AND (c) > (1) AND c > 2": "More than one restriction was found for the start bound on c",
		"SELECT c FROM tn WHERE k = 1 AND (c) = (null)":        "Invalid null value for column c",
		"SELECT c FROM tn WHERE k = 1 AND (c) > (null)":        "Invalid null value in condition for column c",
		"SELECT c FROM tn WHERE k = 1 AND (c) = ('a')":         `Invalid STRING constant (a) for "c" of type int`,
		"SELECT c FROM tn WHERE k = 1 AND (c) = (1, 2)":        "Expected 1 elements in value tuple, but got 2: (1, 2)",
		"SELECT c FROM tn WHERE k = 1 AND (c) != (1)":          `Unsupported "!=" relation: (c) != (1)`,
		"SELECT c FROM tn WHERE k = 1 AND (c, c) = (1, 1)":     `Column "c" appeared twice in a relation: (c, c) = (1, 1)`,
	})
	for _, q := range []string{
		"SELECT c FROM tn WHERE k = 1 AND (c) = 2", "SELECT c FROM tn WHERE k = 1 AND (c) IN (1, 3)",
		"SELECT c FROM tn WHERE k = 1 AND (c) CONTAINS (1)",
	} {
		if code, msg := te.errCode(q); code != CodeSyntaxError {
			t.Errorf("%s: %v %q, want a syntax error", q, code, msg)
		}
	}
	if code, msg := te.errCode("SELECT c FROM tn WHERE k = 1 AND (c) > ?", Value{Bytes: encodeFields([][]byte{nil})}); code != CodeInvalid || msg != "Invalid null value in condition for column c" {
		t.Errorf("(c) > ? with (null): %v %q", code, msg)
	}
}
