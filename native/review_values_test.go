package native_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// A Go map whose distinct keys encode to the same CQL key (two times in one millisecond, one
// UUID spelt in two cases, an int64 and an int32 of one value in a map[any]any) would send a
// map value with a duplicate key, of which the server keeps one entry: which one depends on
// Go's random map iteration order, so another value is silently lost on each execution. The
// bind must fail instead, naming the colliding keys; maps without colliding keys, and sets
// built from slices with repeated elements (a set keeps one of equal elements by definition),
// still bind.
func TestReviewValuesMapKeysThatEncodeAlike(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE mk (k int PRIMARY KEY, ts map<timestamp, text>, u map<uuid, int>, i map<int, text>, fz frozen<map<timestamp, text>>, st set<int>)")
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	const uuid = "550e8400-e29b-41d4-a716-446655440000"
	cases := []struct {
		col string
		v   any
	}{
		{"ts", map[time.Time]string{t0: "utc", t0.Add(time.Microsecond): "a microsecond later"}},
		{"ts", map[time.Time]string{t0: "utc", t0.In(time.FixedZone("X", 3600)): "same instant elsewhere"}},
		{"fz", map[time.Time]string{t0: "utc", t0.Add(time.Microsecond): "a microsecond later"}},
		{"u", map[string]int{uuid: 1, "550E8400-E29B-41D4-A716-446655440000": 2}},
		{"i", map[any]string{int64(7): "int64", int32(7): "int32"}},
	}
	for _, c := range cases {
		ins := mustPrepare(t, s, "INSERT INTO mk (k, "+c.col+") VALUES (?, ?)")
		_, err := s.Execute(ctxT(t), ins.Bind(1, c.v))
		var be *native.BindError
		if !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, cqltype.ErrInvalidValue) {
			t.Errorf("%s = %v: got %v, want a *BindError for value 1 matching cqltype.ErrInvalidValue", c.col, c.v, err)
			continue
		}
		t.Logf("%s: %v", c.col, err)
	}

	ins := mustPrepare(t, s, "INSERT INTO mk (k, ts, u, i, st) VALUES (?, ?, ?, ?, ?)")
	ts := map[time.Time]string{t0: "a", t0.Add(time.Millisecond): "b"}
	u := map[string]int{uuid: 1, "650e8400-e29b-41d4-a716-446655440000": 2}
	i := map[any]string{int64(7): "seven", int32(8): "eight"}
	if _, err := s.Execute(ctxT(t), ins.Bind(2, ts, u, i, []int32{3, 3, 1})); err != nil {
		t.Fatalf("maps with distinct keys: %v", err)
	}
	res, err := s.Execute(ctxT(t), native.Query("SELECT ts, u, i, st FROM mk WHERE k = 2"))
	if err != nil {
		t.Fatal(err)
	}
	row, ok := res.First()
	if !ok {
		t.Fatal("no row")
	}
	var gotTS map[time.Time]string
	var gotU map[cqltype.UUID]int
	var gotI map[int32]string
	var gotSt []int32
	if err := row.Scan(&gotTS, &gotU, &gotI, &gotSt); err != nil {
		t.Fatal(err)
	}
	if len(gotTS) != 2 || len(gotU) != 2 || len(gotI) != 2 || len(gotSt) != 2 {
		t.Errorf("read back %v %v %v %v, want two entries in each", gotTS, gotU, gotI, gotSt)
	}
}

// Date.String renders a day as Cassandra does (its cast of a date to text), which is also
// the text Cassandra reads back as a date literal: years after 9999 take a '+' ("+10000-01-01",
// where "10000-01-01" is refused as a date literal), years before 0 a '-'.
func TestReviewValuesDateStringAsCassandra(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE ds (k int PRIMARY KEY, d date)")
	ins := mustPrepare(t, s, "INSERT INTO ds (k, d) VALUES (?, ?)")
	days := []cqltype.Date{math.MinInt32, -719528 - 366, -719528, -1, 0, 2932896, 2932897, math.MaxInt32}
	for i, d := range days {
		if _, err := s.Execute(ctxT(t), ins.Bind(i, d)); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for row, err := range s.Iter(ctxT(t), native.Query("SELECT d, CAST(d AS text) FROM ds")) {
		if err != nil {
			t.Fatal(err)
		}
		var d cqltype.Date
		var text string
		if err := row.Scan(&d, &text); err != nil {
			t.Fatal(err)
		}
		if d.String() != text {
			t.Errorf("day %d: Date.String() = %q, the server renders it %q", int32(d), d.String(), text)
		}
		n++
	}
	if n != len(days) {
		t.Errorf("read %d rows, want %d", n, len(days))
	}
}

// Decimal.String renders a zero with a negative scale (0E+5, as a server may hold it) as
// "0", not as a zero padded with the scale's zeros ("000000").
func TestReviewValuesDecimalZeroString(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE dz (k int PRIMARY KEY, d decimal)")
	ins := mustPrepare(t, s, "INSERT INTO dz (k, d) VALUES (?, ?)")
	want := map[int]string{0: "0", 1: "0", 2: "0.000", 3: "12300", 4: "-1.5"}
	in := map[int]cqltype.Decimal{0: cqltype.NewDecimal(0, -5), 1: cqltype.NewDecimal(0, 0), 2: cqltype.NewDecimal(0, 3), 3: cqltype.NewDecimal(123, -2), 4: cqltype.NewDecimal(-15, 1)}
	for k, d := range in {
		if _, err := s.Execute(ctxT(t), ins.Bind(k, d)); err != nil {
			t.Fatal(err)
		}
	}
	for row, err := range s.Iter(ctxT(t), native.Query("SELECT k, d FROM dz")) {
		if err != nil {
			t.Fatal(err)
		}
		var k int
		var d cqltype.Decimal
		if err := row.Scan(&k, &d); err != nil {
			t.Fatal(err)
		}
		if d.Scale != in[k].Scale || d.Cmp(in[k]) != 0 {
			t.Errorf("key %d: read %v (scale %d), wrote %v (scale %d)", k, d.Unscaled, d.Scale, in[k].Unscaled, in[k].Scale)
		}
		if d.String() != want[k] {
			t.Errorf("key %d: String() = %q, want %q", k, d.String(), want[k])
		}
	}
}

// shout is text that its pointer methods store upper-cased and read back lower-cased.
type shout string

// MarshalCQL stores the text upper-cased.
func (s *shout) MarshalCQL(*cqltype.Type) ([]byte, error) {
	return []byte(strings.ToUpper(string(*s))), nil
}

// UnmarshalCQL reads the text back lower-cased.
func (s *shout) UnmarshalCQL(_ *cqltype.Type, b []byte) error {
	*s = shout(strings.ToLower(string(b)))
	return nil
}

// shoutRow is a row of table sh for BindStruct and RowToStruct.
type shoutRow struct {
	K int32
	T shout
	L []shout
	U struct {
		A shout
	}
}

// A Go type whose MarshalCQL has a pointer receiver encodes itself wherever it is bound: as a
// whole value (Bind, BindStruct's fields), as an element of a slice (which it did already),
// of an array or of a map, and as a tuple element or UDT field of a struct bound by value, as
// its UnmarshalCQL decodes it (Scan, RowToStruct). Where the value was not addressable, its
// underlying string was encoded without MarshalCQL: silently another value than the type
// writes elsewhere.
func TestReviewValuesPointerMarshaler(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TYPE su (a text)")
	mustExec(t, s, "CREATE TABLE sh (k int PRIMARY KEY, t text, l list<text>, a list<text>, m map<text, text>, tu frozen<tuple<text, int>>, u frozen<su>)")
	ins := mustPrepare(t, s, "INSERT INTO sh (k, t, l, a, m, tu, u) VALUES (?, ?, ?, ?, ?, ?, ?)")
	type pair struct {
		S shout
		N int32
	}
	type su struct {
		A shout
	}
	if _, err := s.Execute(ctxT(t), ins.Bind(1, shout("top"), []shout{"slice"}, [1]shout{"array"},
		map[shout]shout{"key": "value"}, pair{"tuple", 1}, su{"udt"})); err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(ctxT(t), native.Query("SELECT t, l, a, m, tu, u FROM sh WHERE k = 1"))
	if err != nil {
		t.Fatal(err)
	}
	row, ok := res.First()
	if !ok {
		t.Fatal("no row")
	}
	var top string
	var l, a []string
	var m map[string]string
	var tu []any
	var u map[string]any
	if err := row.Scan(&top, &l, &a, &m, &tu, &u); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%v %v %v %v %v %v", top, l, a, m, tu, u)
	if want := "TOP [SLICE] [ARRAY] map[KEY:VALUE] [TUPLE 1] map[a:UDT]"; got != want {
		t.Errorf("stored %s, want %s (each value through MarshalCQL)", got, want)
	}

	// BindStruct binds the fields of a struct given by pointer as RowToStruct fills them.
	bs := mustPrepare(t, s, "INSERT INTO sh (k, t, l, u) VALUES (?, ?, ?, ?)")
	in := shoutRow{K: 2, T: "field", L: []shout{"elem"}}
	in.U.A = "nested"
	st, err := native.BindStruct(bs, &in)
	if err != nil {
		t.Fatal(err)
	}
	in.T = "changed after BindStruct"
	if _, err := s.Execute(ctxT(t), st); err != nil {
		t.Fatal(err)
	}
	res, err = s.Execute(ctxT(t), native.Query("SELECT k, t, l, u FROM sh WHERE k = 2"))
	if err != nil {
		t.Fatal(err)
	}
	row, _ = res.First()
	if err := row.Scan(nil, &top, &l, &u); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%v %v %v", top, l, u), "FIELD [ELEM] map[a:NESTED]"; got != want {
		t.Errorf("BindStruct stored %s, want %s", got, want)
	}
	back, err := native.RowToStruct[shoutRow](row)
	if err != nil {
		t.Fatal(err)
	}
	if back.T != "field" || len(back.L) != 1 || back.L[0] != "elem" || back.U.A != "nested" {
		t.Errorf("RowToStruct read %+v", back)
	}
}

// A named value binds a marker whose name differs from its own in case only when no marker
// has its exact name: with columns a and "A", a value named a binds a, and "A" has no value
// (it took a's value, silently writing it to the other column).
func TestReviewValuesNamedCaseOnlyMatch(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, `CREATE TABLE nc (k int PRIMARY KEY, a int, "A" int, b int)`)
	ins := mustPrepare(t, s, `INSERT INTO nc (k, a, "A") VALUES (?, ?, ?)`)
	_, err := s.Execute(ctxT(t), ins.Bind(native.Named("k", int32(1)), native.Named("a", int32(5))))
	var be *native.BindError
	if !errors.As(err, &be) || be.Name != "A" {
		t.Errorf(`a value for a only: %v, want a *BindError for marker "A"`, err)
	}
	// Both given: each binds its own marker.
	if _, err := s.Execute(ctxT(t), ins.Bind(native.Named("k", int32(2)), native.Named("A", int32(7)), native.Named("a", int32(6)))); err != nil {
		t.Fatal(err)
	}
	// No exact match at all: the name binds its marker whatever the case.
	insB := mustPrepare(t, s, "INSERT INTO nc (k, b) VALUES (?, ?)")
	if _, err := s.Execute(ctxT(t), insB.Bind(native.Named("K", int32(3)), native.Named("B", int32(8)))); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[int32][3]*int32{1: {}, 2: {ptr(6), ptr(7), nil}, 3: {nil, nil, ptr(8)}} {
		res, err := s.Execute(ctxT(t), native.Query(`SELECT a, "A", b FROM nc WHERE k = ?`, k))
		if err != nil {
			t.Fatal(err)
		}
		row, ok := res.First()
		if !ok {
			if want != [3]*int32{} {
				t.Errorf("key %d: no row", k)
			}
			continue
		}
		var got [3]*int32
		if err := row.Scan(&got[0], &got[1], &got[2]); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if (got[i] == nil) != (want[i] == nil) || got[i] != nil && *got[i] != *want[i] {
				t.Errorf("key %d column %d: got %v, want %v", k, i, deref(got[i]), deref(want[i]))
			}
		}
	}
}

func ptr(n int32) *int32 { return &n }

func deref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}
