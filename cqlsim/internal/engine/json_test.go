package engine

import (
	"strconv"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

func TestJavaNumberFormats(t *testing.T) {
	for _, c := range []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {1.25, 64, "1.25"}, {-0.5, 64, "-0.5"}, {1e7, 64, "1.0E7"}, {1234567, 64, "1234567.0"},
		{0.001, 64, "0.001"}, {0.0001, 64, "1.0E-4"}, {1e300, 64, "1.0E300"}, {-1e-300, 64, "-1.0E-300"},
		{3.4e38, 32, "3.4E38"}, {0.1, 32, "0.1"},
	} {
		if got := javaDouble(c.f, c.bits); got != c.want {
			t.Errorf("javaDouble(%v) = %q, want %q", c.f, got, c.want)
		}
	}
	for lit, want := range map[string]string{"12.345": "12.345", "1e3": "1E+3", "-1.50": "-1.50", "0.001": "0.001", "0.0000001": "1E-7", "100": "100"} {
		b, err := parseDecimal(lit)
		if err != nil {
			t.Fatal(err)
		}
		if got := javaBigDecimal(b); got != want {
			t.Errorf("javaBigDecimal(%s) = %q, want %q", lit, got, want)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	te := setupKS(t)
	te.mustExec(`CREATE TABLE t (k int PRIMARY KEY, "Name" text, l list<int>, m map<int, text>, ts timestamp, d double)`)
	te.mustExec(`INSERT INTO t JSON '{"k": 1, "\"Name\"": "x", "l": [2, 1], "m": {"3": "c"}, "ts": "2024-01-02 03:04:05.678Z", "d": 0.5}'`)
	eq(t, "select json", te.rows("SELECT JSON * FROM t"),
		[]string{`'{"k": 1, "\"Name\"": "x", "d": 0.5, "l": [2, 1], "m": {"3": "c"}, "ts": "2024-01-02 03:04:05.678Z"}'`})
	te.mustExec(`INSERT INTO t JSON '{"k": 1, "d": 2}' DEFAULT UNSET`)
	eq(t, "default unset", te.rows(`SELECT "Name", d FROM t`), []string{"'x'|2"})
	te.mustExec(`INSERT INTO t JSON '{"k": 1}'`)
	eq(t, "default null", te.rows(`SELECT "Name", d FROM t`), []string{"null|null"})
	if _, msg := te.errCode(`INSERT INTO t JSON '{"k": 1, "Name": "x"}'`); msg != "JSON values map contains unrecognized column: name" {
		t.Errorf("case-insensitive key: %s", msg)
	}
}

// TestNestedVectorSizeOverflow stores and reads a vector of vectors whose packed size does not
// fit in an int: 1684887088 * 1824726041 * 6 booleans wraps around to 32 bytes in int64
// arithmetic, so a 32-byte value used to pass validation and SELECT JSON then sliced far past
// it (a panic, recovered by the server as a SERVER_ERROR). The size now saturates, so no value
// is valid for the column.
func TestNestedVectorSizeOverflow(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE t (k int PRIMARY KEY, v vector<vector<vector<boolean, 1684887088>, 1824726041>, 6>)")
	code, msg := te.errCode("INSERT INTO t (k, v) VALUES (1, ?)", Value{Bytes: make([]byte, 32)})
	if code != CodeInvalid || !strings.Contains(msg, "got 32") {
		t.Errorf("32-byte value: code %v, %q; want an invalid-request error", code, msg)
	}
	eq(t, "select json", te.rows("SELECT JSON * FROM t"), nil)
	boolean := &ctype{code: primitive.DataTypeCodeBoolean}
	vec := func(elem *ctype, dim int) *ctype { return &ctype{code: kindVector, elem: elem, dim: dim, frozen: true} }
	typ := vec(vec(vec(boolean, 1684887088), 1824726041), 6)
	if got := toJSON(typ, make([]byte, 32)); got != `"0x`+strings.Repeat("00", 32)+`"` {
		t.Errorf("toJSON of 32 bytes = %s, want the hex form", got)
	}
	if _, msg := te.errCode("CREATE TABLE u (k int PRIMARY KEY, v vector<boolean, 2147483648>)"); !strings.Contains(msg, "vector dimension") {
		t.Errorf("dimension beyond a Java int: %q", msg)
	}
}

// TestVariableSizeVector checks vectors of a variable-size type, whose elements are each
// preceded by their length as an unsigned vint: INSERT JSON writes the same bytes as a literal
// (it used to concatenate the elements, storing "abc" for ["a", "bc"]), SELECT JSON renders a
// list (it used to give the hex form), and bound values are split and checked element by
// element, with Cassandra 5.0's messages (checked against it).
func TestVariableSizeVector(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE t (k int PRIMARY KEY, v vector<text, 2>)")
	te.mustExec(`INSERT INTO t JSON '{"k": 1, "v": ["a", "bc"]}'`)
	te.mustExec(`INSERT INTO t (k, v) VALUES (2, ['a', 'bc'])`)
	te.mustExec(`INSERT INTO t (k, v) VALUES (3, ?)`, Value{Bytes: []byte{1, 'a', 2, 'b', 'c'}})
	for k := 1; k <= 3; k++ {
		q := "SELECT v FROM t WHERE k = " + strconv.Itoa(k)
		eq(t, q, te.rows(q), []string{"0x0161026263"})
		eq(t, "json "+q, te.rows("SELECT JSON v FROM t WHERE k = "+strconv.Itoa(k)), []string{`'{"v": ["a", "bc"]}'`})
	}
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{[]byte{5, 'a'}, "Not enough bytes to read a vector<text, 2>"},
		{[]byte{1, 'a'}, "Not enough bytes to read a vector<text, 2>"},
		{[]byte{1, 'a', 1, 'b', 'x'}, "Unexpected 1 extraneous bytes after vector<text, 2> value"},
		{[]byte{1, 0xff, 1, 'b'}, "String didn't validate."},
	} {
		if _, msg := te.errCode("INSERT INTO t (k, v) VALUES (4, ?)", Value{Bytes: c.b}); msg != c.want {
			t.Errorf("%x: %q, want %q", c.b, msg, c.want)
		}
	}
}
