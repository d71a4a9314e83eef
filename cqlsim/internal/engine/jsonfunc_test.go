package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestJSONFunctions: fromJson reads its JSON text as a value of what receives it (as INSERT
// JSON reads values; null stays null), toJson renders a value as SELECT JSON does (null as
// "null"); errors as Cassandra 5.0's (the differential test compares them with Cassandra's).
func TestJSONFunctions(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE fj (k int PRIMARY KEY, v int, l list<int>, d date)")
	te.mustExec(`INSERT INTO fj (k, v, l, d) VALUES (1, fromJson('5'), fromJson('[1, 2]'), fromJson('"2024-01-02"'))`)
	te.mustExec("INSERT INTO fj (k, v) VALUES (2, fromJson(null))")
	te.mustExec(`UPDATE fj SET v = fromJson('"9"') WHERE k = fromJson('2')`)
	got := te.rows("SELECT k, toJson(v), toJson(l), toJson(d) FROM fj")
	want := []string{`1|'5'|'[1, 2]'|'"2024-01-02"'`, "2|'9'|'null'|'null'"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	for q, e := range map[string]struct {
		code ErrorCode
		msg  string
	}{
		`INSERT INTO fj (k, v) VALUES (3, fromJson('"x"'))`:    {CodeFunctionFailure, "org.apache.cassandra.serializers.MarshalException: Unable to make int from 'x'"},
		"INSERT INTO fj (k, v) VALUES (3, fromJson('1', '2'))": {CodeInvalid, "Invalid number of arguments for function system.fromjson(text)"},
		"SELECT fromJson('1') FROM fj":                         {CodeInvalid, "fromjson() cannot be used in the selection clause of a SELECT statement"},
		"SELECT toJson(v, l) FROM fj":                          {CodeInvalid, "Invalid number of arguments for function system.tojson(any)"},
	} {
		if code, msg := te.errCode(q); code != e.code || msg != e.msg {
			t.Errorf("%s: %v %q, want %v %q", q, code, msg, e.code, e.msg)
		}
	}
}

// TestJSONStrictValues: fromJson's text is refused where Cassandra's strict parser refuses it
// (a leading zero, which the Go decoder reads as a 0 followed by more input), and neither a map
// key nor a map value may be null, whether the JSON comes through fromJson or INSERT JSON; a map
// key is read leniently, as Cassandra reads it.
func TestJSONStrictValues(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE j (k int PRIMARY KEY, i int, m map<int, int>, t map<text, int>)")
	if code, msg := te.errCode("INSERT INTO j (k, i) VALUES (1, fromJson('01'))"); code != CodeFunctionFailure || !strings.HasPrefix(msg, "execution of 'system.fromjson[text]' failed: Could not decode JSON string '01'") {
		t.Errorf("fromJson('01'): %v %q", code, msg)
	}
	for _, q := range []string{
		`INSERT INTO j (k, m) VALUES (1, fromJson('{"null": 1}'))`,
		`INSERT INTO j (k, t) VALUES (1, fromJson('{"a": null}'))`,
		`INSERT INTO j JSON '{"k": 1, "t": {"a": null}}'`,
		`INSERT INTO j JSON '{"k": 1, "m": {"null": 1}}'`,
	} {
		if _, err := te.exec(q); err == nil {
			t.Errorf("%s: accepted", q)
		}
	}
	if rows := te.rows("SELECT k FROM j"); len(rows) != 0 {
		t.Errorf("rows written: %q", rows)
	}
	// a map key is read leniently, as Cassandra reads it
	te.mustExec(`INSERT INTO j (k, m) VALUES (2, fromJson('{"01": 2}'))`)
	if rows := te.rows("SELECT m FROM j WHERE k = 2"); !slices.Equal(rows, []string{"{1: 2}"}) {
		t.Errorf(`key "01": %q`, rows)
	}
}
