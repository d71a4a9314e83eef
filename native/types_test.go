package native_test

import (
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/inf.v0"

	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

type point struct {
	X     float64 `cql:"x"`
	Y     float64 `cql:"y"`
	Label string  `cql:"label"`
}

type pairT struct {
	A int32
	B string
}

var cmpOpts = cmp.Options{
	cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
	cmp.Comparer(func(a, b *big.Int) bool { return a == nil && b == nil || a != nil && b != nil && a.Cmp(b) == 0 }),
	cmp.Comparer(func(a, b cqltype.Decimal) bool { return a.Cmp(b) == 0 }),
	cmp.Comparer(func(a, b *inf.Dec) bool { return a.Cmp(b) == 0 }),
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b float32) bool { return a == b || a != a && b != b }),
	cmp.Comparer(func(a, b float64) bool { return a == b || a != a && b != b }),
}

// TestTypesRoundTrip writes every CQL type, with edge values, through a real table with a
// prepared statement, reads it back, and compares.
func TestTypesRoundTrip(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TYPE point (x double, y double, label text)")
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123_000_000, time.UTC)
	u := cqltype.UUID{0x55, 0x0e, 0x84, 0x00, 0xe2, 0x9b, 0x41, 0xd4, 0xa7, 0x16, 0x44, 0x66, 0x55, 0x44, 0x00, 0x00}
	tu := cqltype.TimeUUIDAt(ts, 0x1234, [6]byte{1, 2, 3, 4, 5, 6})
	huge := new(big.Int).Lsh(big.NewInt(1), 300)
	negHuge := new(big.Int).Neg(new(big.Int).Sub(huge, big.NewInt(7)))
	longText := strings.Repeat("ä€𝄞", 100_000)
	bigBlob := make([]byte, 1<<20)
	for i := range bigBlob {
		bigBlob[i] = byte(i * 7)
	}
	manyInts := make([]int32, 10_000)
	for i := range manyInts {
		manyInts[i] = int32(i - 5000)
	}

	cases := []struct {
		typ  string
		in   any
		want any // decoded into a new value of this Go type; nil means "into a pointer, expect nil"
	}{
		{"ascii", "plain ascii", "plain ascii"},
		{"ascii", "", ""},
		{"bigint", int64(math.MinInt64), int64(math.MinInt64)},
		{"bigint", int64(math.MaxInt64), int64(math.MaxInt64)},
		{"blob", []byte{0, 1, 0xff}, []byte{0, 1, 0xff}},
		{"blob", []byte{}, []byte{}},
		{"blob", bigBlob, bigBlob},
		{"boolean", true, true},
		{"boolean", false, false},
		{"date", cqltype.Date(math.MinInt32), cqltype.Date(math.MinInt32)},
		{"date", cqltype.Date(math.MaxInt32), cqltype.Date(math.MaxInt32)},
		{"date", time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC), time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC)},
		{"decimal", cqltype.NewDecimal(-12345, 2), cqltype.NewDecimal(-12345, 2)},
		{"decimal", cqltype.Decimal{Unscaled: negHuge, Scale: 40}, cqltype.Decimal{Unscaled: negHuge, Scale: 40}},
		{"decimal", inf.NewDec(31415, -4), inf.NewDec(31415, -4)},
		{"double", math.MaxFloat64, math.MaxFloat64},
		{"double", math.Inf(-1), math.Inf(-1)},
		{"double", math.NaN(), math.NaN()},
		{"duration", cqltype.Duration{Months: 14, Days: 3, Nanoseconds: 1}, cqltype.Duration{Months: 14, Days: 3, Nanoseconds: 1}},
		{"duration", cqltype.Duration{Months: -1, Days: -2, Nanoseconds: math.MinInt64}, cqltype.Duration{Months: -1, Days: -2, Nanoseconds: math.MinInt64}},
		{"float", float32(math.MaxFloat32), float32(math.MaxFloat32)},
		{"float", float32(math.SmallestNonzeroFloat32), float32(math.SmallestNonzeroFloat32)},
		{"inet", netip.MustParseAddr("192.168.1.20"), netip.MustParseAddr("192.168.1.20")},
		{"inet", netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::1")},
		{"int", int32(math.MinInt32), int32(math.MinInt32)},
		{"int", int32(math.MaxInt32), int32(math.MaxInt32)},
		{"int", 42, 42},
		{"smallint", int16(math.MinInt16), int16(math.MinInt16)},
		{"smallint", int16(math.MaxInt16), int16(math.MaxInt16)},
		{"text", "héllo wörld", "héllo wörld"},
		{"text", "", ""},
		{"text", longText, longText},
		{"time", time.Duration(0), time.Duration(0)},
		{"time", time.Duration(86399999999999), time.Duration(86399999999999)},
		{"timestamp", ts, ts},
		{"timestamp", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"timeuuid", tu, tu},
		{"tinyint", int8(math.MinInt8), int8(math.MinInt8)},
		{"tinyint", int8(math.MaxInt8), int8(math.MaxInt8)},
		{"uuid", u, u},
		{"uuid", u, u.String()},
		{"varchar", "varchar", "varchar"},
		{"varint", huge, huge},
		{"varint", negHuge, negHuge},
		{"varint", int64(math.MinInt64), int64(math.MinInt64)},
		{"list<int>", []int32{1, -2, 3}, []int32{1, -2, 3}},
		{"list<int>", manyInts, manyInts},
		{"set<text>", []string{"a", "b"}, []string{"a", "b"}},
		{"map<text, int>", map[string]int32{"a": 1, "b": -1}, map[string]int32{"a": 1, "b": -1}},
		{"map<int, frozen<list<text>>>", map[int][]string{1: {"a"}, 2: {}}, map[int][]string{1: {"a"}, 2: {}}},
		{"list<frozen<map<text, frozen<set<int>>>>>", []map[string][]int{{"a": {1, 2}}, {}}, []map[string][]int{{"a": {1, 2}}, {}}},
		{"map<uuid, timestamp>", map[cqltype.UUID]time.Time{u: ts}, map[cqltype.UUID]time.Time{u: ts}},
		{"tuple<int, text, boolean>", []any{int32(1), "a", nil}, []any{int32(1), "a", nil}},
		{"tuple<int, text>", pairT{7, "x"}, pairT{7, "x"}},
		{"tuple<int, frozen<tuple<text, frozen<list<int>>>>>", []any{int32(1), []any{"z", []int32{1}}}, []any{int32(1), []any{"z", []any{int32(1)}}}}, // nested values decode to their natural types
		{"frozen<point>", point{1.5, -2, "p"}, point{1.5, -2, "p"}},
		{"frozen<point>", map[string]any{"x": 3.0, "label": "partial"}, point{X: 3, Label: "partial"}},
		{"list<frozen<point>>", []point{{1, 2, "a"}, {3, 4, "b"}}, []point{{1, 2, "a"}, {3, 4, "b"}}},
		{"vector<float, 3>", []float32{1, -2.5, 3}, []float32{1, -2.5, 3}},
		{"vector<text, 2>", []string{"variable", "size"}, []string{"variable", "size"}},
		// NULL in each kind of column.
		{"int", nil, nil},
		{"text", nil, nil},
		{"list<int>", nil, nil},
		{"frozen<point>", nil, nil},
		{"tuple<int, text>", nil, nil},
	}

	// One column per distinct type.
	cols := map[string]string{}
	var defs []string
	for _, c := range cases {
		if _, ok := cols[c.typ]; !ok {
			cols[c.typ] = fmt.Sprintf("c%d", len(cols))
			defs = append(defs, cols[c.typ]+" "+c.typ)
		}
	}
	mustExec(t, s, "CREATE TABLE types (id int PRIMARY KEY, "+strings.Join(defs, ", ")+")")

	for i, c := range cases {
		col := cols[c.typ]
		name := fmt.Sprintf("%d %s %T", i, c.typ, c.in)
		ins := mustPrepare(t, s, "INSERT INTO types (id, "+col+") VALUES (?, ?)")
		if _, err := s.Execute(ctxT(t), ins.Bind(i, c.in)); err != nil {
			t.Errorf("%s: insert: %v", name, err)
			continue
		}
		sel := mustPrepare(t, s, "SELECT "+col+" FROM types WHERE id = ?")
		res, err := s.Execute(ctxT(t), sel.Bind(i))
		if err != nil {
			t.Errorf("%s: select: %v", name, err)
			continue
		}
		row := mustRow(t, res, 0)
		if c.want == nil {
			var p *int
			if err := row.Scan(&p); err != nil || p != nil || row.Raw(0) != nil {
				t.Errorf("%s: NULL read back as %v, raw %x, %v", name, p, row.Raw(0), err)
			}
			continue
		}
		dst := reflect.New(reflect.TypeOf(c.want))
		if err := row.Scan(dst.Interface()); err != nil {
			t.Errorf("%s: scan: %v", name, err)
			continue
		}
		if diff := cmp.Diff(c.want, dst.Elem().Interface(), cmpOpts); diff != "" {
			t.Errorf("%s: round trip (-want +got):\n%s", name, diff)
		}
		if got := row.Columns()[0].Type.String(); !strings.EqualFold(strings.ReplaceAll(got, " ", ""), strings.ReplaceAll(strings.ReplaceAll(c.typ, " ", ""), "varchar", "text")) && !strings.Contains(c.typ, "point") {
			t.Errorf("%s: column type reported as %s", name, got)
		}
	}
}

// TestEmptyValuesAndRaw checks what the server stores for empty values: an empty int (a
// legacy encoding) reads as no value, an empty text stays an empty string, and Raw shows the
// difference between NULL and empty.
func TestEmptyValuesAndRaw(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE e (id int PRIMARY KEY, i int, t text, b blob, l list<int>)")
	mustExec(t, s, "INSERT INTO e (id, i, t, b, l) VALUES (1, blobAsInt(0x), '', 0x, [])")
	res := mustExec(t, s, "SELECT i, t, b, l FROM e WHERE id = 1")
	row := mustRow(t, res, 0)
	if raw := row.Raw(0); raw == nil || len(raw) != 0 {
		t.Errorf("empty int: raw %v (want empty, not NULL)", raw)
	}
	var i *int32
	var txt *string
	var b []byte
	var l []int32
	if err := row.Scan(&i, &txt, &b, &l); err != nil {
		t.Fatal(err)
	}
	if i != nil {
		t.Errorf("empty int decoded as %d, want no value", *i)
	}
	if txt == nil || *txt != "" {
		t.Errorf("empty text decoded as %v", txt)
	}
	if b == nil || len(b) != 0 {
		t.Errorf("empty blob decoded as %v", b)
	}
	if l != nil || row.Raw(3) != nil {
		t.Errorf("an empty list is stored as NULL by the server; got %v", l)
	}
	vals, err := row.Values()
	if err != nil || vals[1] != "" || vals[3] != nil {
		t.Errorf("Values = %#v, %v", vals, err)
	}
	// Get reads empty values as Scan does: the empty int is zero, and an empty text or blob
	// is a value of the column's type, not a NULL that any Go type may receive.
	if n, err := native.Get[int](row, 0); n != 0 || err != nil {
		t.Errorf("Get[int] of the empty int: %d, %v", n, err)
	}
	if _, err := native.Get[int](row, 1); err == nil {
		t.Error("Get[int] of an empty text column: no error")
	}
	if _, err := native.Get[bool](row, 2); err == nil {
		t.Error("Get[bool] of an empty blob column: no error")
	}
	if _, err := native.Get[time.Time](row, 1); err == nil {
		t.Error("Get[time.Time] of an empty text column: no error")
	}
	var n int
	if err := row.Scan(&n, nil, nil, nil); err != nil || n != 0 {
		t.Errorf("Scan of the empty int into an int: %d, %v", n, err)
	}
}

func TestCounterColumn(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE c (id int PRIMARY KEY, n counter)")
	upd := mustPrepare(t, s, "UPDATE c SET n = n + ? WHERE id = ?")
	for _, d := range []int64{math.MaxInt64, 1} {
		if _, err := s.Execute(ctxT(t), upd.Bind(d, 1)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := native.ScanOne[int64](mustExec(t, s, "SELECT n FROM c WHERE id = 1"))
	if err != nil || n != math.MinInt64 {
		t.Errorf("counter wrapped to %d, %v", n, err)
	}
}
