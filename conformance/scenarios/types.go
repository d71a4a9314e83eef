package scenarios

import (
	"errors"
	"math"
	"math/big"
	"net"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"
)

// typeCase is one CQL type with values to round-trip and Go destinations to scan into.
type typeCase struct {
	name   string // scenario suffix
	cql    string // column type
	values []any  // bound in INSERTs, one row each (k = index)
	dest   func() any
}

func mustUUID(s string) gocql.UUID {
	u, err := gocql.ParseUUID(s)
	if err != nil {
		panic(err)
	}
	return u
}

func typeCases() []typeCase {
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123000000, time.UTC)
	return []typeCase{
		{"int", "int", []any{0, 1, -1, math.MaxInt32, math.MinInt32, nil}, func() any { return new(int) }},
		{"int_into_int64", "int", []any{int64(42), int32(-7)}, func() any { return new(int64) }},
		{"int_into_pointer", "int", []any{5, nil}, func() any { return new(*int) }},
		{"bigint", "bigint", []any{int64(math.MaxInt64), int64(math.MinInt64), 0, nil}, func() any { return new(int64) }},
		{"smallint", "smallint", []any{int16(math.MaxInt16), int16(math.MinInt16), 3}, func() any { return new(int16) }},
		{"tinyint", "tinyint", []any{int8(127), int8(-128), 0}, func() any { return new(int8) }},
		{"varint", "varint", []any{big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), 100), big.NewInt(-129), nil}, func() any { return new(*big.Int) }},
		{"varint_into_int64", "varint", []any{int64(12345), int64(-1)}, func() any { return new(int64) }},
		{"float", "float", []any{float32(1.5), float32(-0.25), float32(math.MaxFloat32), nil}, func() any { return new(float32) }},
		{"double", "double", []any{1.5, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64}, func() any { return new(float64) }},
		{"decimal", "decimal", []any{inf.NewDec(12345, 2), inf.NewDec(-1, 10), inf.NewDec(0, 0), nil}, func() any { return new(*inf.Dec) }},
		{"boolean", "boolean", []any{true, false, nil}, func() any { return new(bool) }},
		{"text", "text", []any{"", "hello", "ünïcødé ☃", strings.Repeat("x", 70000), nil}, func() any { return new(string) }},
		{"text_into_bytes", "text", []any{"abc", ""}, func() any { return new([]byte) }},
		{"ascii", "ascii", []any{"plain", ""}, func() any { return new(string) }},
		{"varchar", "varchar", []any{"v"}, func() any { return new(string) }},
		{"blob", "blob", []any{[]byte{}, []byte{0, 1, 2, 255}, nil}, func() any { return new([]byte) }},
		{"timestamp", "timestamp", []any{ts, time.Unix(0, 0).UTC(), time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), nil}, func() any { return new(time.Time) }},
		{"timestamp_into_int64", "timestamp", []any{ts}, func() any { return new(int64) }},
		{"date", "date", []any{time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}, func() any { return new(time.Time) }},
		{"time", "time", []any{time.Duration(0), 13*time.Hour + 5*time.Nanosecond, 24*time.Hour - 1}, func() any { return new(time.Duration) }},
		{"uuid", "uuid", []any{mustUUID("01234567-89ab-cdef-0123-456789abcdef"), nil}, func() any { return new(gocql.UUID) }},
		{"timeuuid", "timeuuid", []any{mustUUID("2a3bdd2c-7f6b-11ee-b962-0242ac120002")}, func() any { return new(gocql.UUID) }},
		{"uuid_into_string", "uuid", []any{"01234567-89ab-cdef-0123-456789abcdef"}, func() any { return new(string) }},
		{"inet", "inet", []any{net.ParseIP("10.1.2.3"), net.ParseIP("2001:db8::1"), nil}, func() any { return new(net.IP) }},
		{"inet_into_string", "inet", []any{"192.168.0.1"}, func() any { return new(string) }},
		{"duration", "duration", []any{gocql.Duration{Months: 1, Days: 2, Nanoseconds: 3}, gocql.Duration{Months: -1, Days: -2, Nanoseconds: -3}}, func() any { return new(gocql.Duration) }},
		{"list_int", "list<int>", []any{[]int{1, 2, 3}, []int{}, nil}, func() any { return new([]int) }},
		{"set_text", "set<text>", []any{[]string{"b", "a"}, nil}, func() any { return new([]string) }},
		{"map_text_int", "map<text, int>", []any{map[string]int{"a": 1, "b": 2}, map[string]int{}}, func() any { return new(map[string]int) }},
		{"frozen_nested", "frozen<list<frozen<map<text, int>>>>", []any{[]map[string]int{{"x": 1}, {}}}, func() any { return new([]map[string]int) }},
		{"list_into_interface", "list<bigint>", []any{[]int64{7, 8}}, func() any { var v any; return &v }},
		{"smallint_into_int", "smallint", []any{int16(-300), nil}, func() any { return new(int) }},
		{"tinyint_into_int", "tinyint", []any{int8(-5), nil}, func() any { return new(int) }},
		{"bigint_into_big_int", "bigint", []any{int64(math.MinInt64), nil}, func() any { return new(*big.Int) }},
		{"int_into_string", "int", []any{17}, func() any { return new(string) }},
		{"double_nan", "double", []any{math.NaN(), math.Copysign(0, -1), nil}, func() any { return new(float64) }},
		{"float_into_float64", "float", []any{float32(2.5)}, func() any { return new(float64) }},
		{"boolean_into_pointer", "boolean", []any{true, nil}, func() any { return new(*bool) }},
		{"text_into_pointer", "text", []any{"", "x", nil}, func() any { return new(*string) }},
		{"blob_into_string", "blob", []any{[]byte("raw"), []byte{}, nil}, func() any { return new(string) }},
		{"blob_into_pointer", "blob", []any{[]byte{}, []byte{9}, nil}, func() any { return new(*[]byte) }},
		{"timestamp_into_pointer", "timestamp", []any{time.Date(2001, 9, 9, 1, 46, 40, 0, time.UTC), nil}, func() any { return new(*time.Time) }},
		{"timestamp_from_int64", "timestamp", []any{int64(1700000000123)}, func() any { return new(time.Time) }},
		{"date_into_string", "date", []any{time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), nil}, func() any { return new(string) }},
		{"date_from_string", "date", []any{"1999-12-31"}, func() any { return new(time.Time) }},
		{"time_into_int64", "time", []any{time.Duration(1234567890)}, func() any { return new(int64) }},
		{"timeuuid_into_time", "timeuuid", []any{mustUUID("2a3bdd2c-7f6b-11ee-b962-0242ac120002")}, func() any { return new(time.Time) }},
		{"uuid_into_bytes", "uuid", []any{mustUUID("01234567-89ab-cdef-0123-456789abcdef"), nil}, func() any { return new([]byte) }},
		{"uuid_from_bytes", "uuid", []any{[]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}, func() any { return new(gocql.UUID) }},
		{"inet_from_bytes_v4", "inet", []any{net.IPv4(127, 0, 0, 9).To4()}, func() any { return new(net.IP) }},
		{"varint_into_string", "varint", []any{big.NewInt(-123456789)}, func() any { return new(string) }},
		{"decimal_into_string", "decimal", []any{inf.NewDec(31415, 4)}, func() any { return new(string) }},
		{"duration_into_time_duration", "duration", []any{gocql.Duration{Nanoseconds: 1500}}, func() any { return new(time.Duration) }},
		{"set_int_sorted", "set<int>", []any{[]int{3, 1, 2}, []int{}}, func() any { return new([]int) }},
		{"set_into_map", "set<text>", []any{[]string{"q", "p"}}, func() any { return new(map[string]bool) }},
		{"map_int_text", "map<int, text>", []any{map[int]string{2: "b", 1: "a"}, nil}, func() any { return new(map[int]string) }},
		{"map_into_interface", "map<text, bigint>", []any{map[string]int64{"z": 26}}, func() any { var v any; return &v }},
		{"list_text_into_interface_slice", "list<text>", []any{[]string{"a", "b"}}, func() any { return new([]any) }},
		{"list_into_pointer_elems", "list<int>", []any{[]int{4, 5}}, func() any { return new([]*int) }},
		{"list_from_array", "list<int>", []any{[3]int{7, 8, 9}}, func() any { return new([]int) }},
		{"list_with_null_element", "list<text>", []any{[]*string{nil}}, func() any { return new([]string) }},
		{"nested_map_of_lists", "map<text, frozen<list<int>>>", []any{map[string][]int{"a": {1, 2}, "b": {}}}, func() any { return new(map[string][]int) }},
		{"nested_list_of_sets", "list<frozen<set<text>>>", []any{[][]string{{"y", "x"}, {}}}, func() any { return new([][]string) }},
		{"nested_set_of_lists", "set<frozen<list<int>>>", []any{[][]int{{2, 1}, {1}}}, func() any { return new([][]int) }},
		{"nested_map_of_maps_into_interface", "frozen<map<int, frozen<map<text, boolean>>>>", []any{map[int]map[string]bool{1: {"t": true}}}, func() any { var v any; return &v }},
		{"frozen_list_null_vs_empty", "frozen<list<int>>", []any{[]int{}, nil}, func() any { return new(*[]int) }},
	}
}

func typeScenarios() []Scenario {
	var out []Scenario
	for _, tc := range typeCases() {
		tc := tc
		out = append(out, Scenario{Name: "types/" + tc.name, Run: func(e *Env) {
			tbl := e.Table("rt")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v "+tc.cql+")") != nil {
				return
			}
			for i, v := range tc.values {
				err := e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", i, v).WithContext(e.Ctx).Exec()
				e.R.Record("insert", err, i)
			}
			for i := range tc.values {
				dest := tc.dest()
				err := e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", i).WithContext(e.Ctx).Scan(dest)
				e.R.Record("scan", err, i, dest)
				m := map[string]any{}
				err = e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", i).WithContext(e.Ctx).MapScan(m)
				e.R.Record("mapscan", err, i, m)
			}
		}})
	}
	// Marshalling errors are client-side: the same Go value must fail the same way.
	for _, bad := range []struct {
		name, cql string
		value     any
	}{
		{"int_from_string", "int", "not a number"},
		{"int_from_int64_overflow", "int", int64(math.MaxInt64)},
		{"uuid_from_bad_string", "uuid", "zzz"},
		{"list_from_map", "list<int>", map[string]int{"a": 1}},
		{"boolean_from_int", "boolean", 1},
	} {
		bad := bad
		out = append(out, Scenario{Name: "types/marshal_error_" + bad.name, Run: func(e *Env) {
			tbl := e.Table("bad")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v "+bad.cql+")") != nil {
				return
			}
			err := e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, bad.value).WithContext(e.Ctx).Exec()
			e.R.Record("insert", err)
		}})
	}
	out = append(out, Scenario{Name: "types/udt_struct_and_map", Run: func(e *Env) {
		if e.Exec("CREATE TYPE IF NOT EXISTS addr (street text, no int)") != nil {
			return
		}
		tbl := e.Table("udt")
		if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, a frozen<addr>)") != nil {
			return
		}
		type addr struct {
			Street string `cql:"street"`
			No     int    `cql:"no"`
		}
		e.R.Record("insert struct", e.Session.Query("INSERT INTO "+tbl+" (k, a) VALUES (?, ?)", 1, addr{"Main", 5}).Exec())
		e.R.Record("insert map", e.Session.Query("INSERT INTO "+tbl+" (k, a) VALUES (?, ?)", 2, map[string]any{"street": "Side", "no": 7}).Exec())
		for k := 1; k <= 2; k++ {
			var a addr
			err := e.Session.Query("SELECT a FROM "+tbl+" WHERE k = ?", k).Scan(&a)
			e.R.Record("scan struct", err, a)
			m := map[string]any{}
			err = e.Session.Query("SELECT a FROM "+tbl+" WHERE k = ?", k).Scan(&m)
			e.R.Record("scan map", err, m)
		}
	}})
	out = append(out, Scenario{Name: "types/tuple", Run: func(e *Env) {
		tbl := e.Table("tup")
		if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, t frozen<tuple<int, text>>)") != nil {
			return
		}
		e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, t) VALUES (?, ?)", 1, []any{3, "x"}).Exec())
		var a int
		var b string
		err := e.Session.Query("SELECT t FROM "+tbl+" WHERE k = ?", 1).Scan(&a, &b)
		e.R.Record("scan expanded", err, a, b)
		m := map[string]any{}
		err = e.Session.Query("SELECT t FROM "+tbl+" WHERE k = ?", 1).MapScan(m)
		e.R.Record("mapscan", err, m)
	}})
	out = append(out, Scenario{Name: "types/custom_marshaler", Run: func(e *Env) {
		tbl := e.Table("cm")
		if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
			return
		}
		e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, upper("hello")).Exec())
		var u upper
		err := e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Scan(&u)
		e.R.Record("scan", err, string(u))
	}})
	return out
}

// upper is a custom Marshaler/Unmarshaler: stored upper-cased, read back lower-cased.
type upper string

func (u upper) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	return []byte(strings.ToUpper(string(u))), nil
}

func (u *upper) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	*u = upper(strings.ToLower(string(data)) + "/" + info.Type().String())
	return nil
}

// valueScenarios covers empty values against NULL, unset values and custom (un)marshalers.
func valueScenarios() []Scenario {
	return []Scenario{
		{"types/decimal_reused_destination", func(e *Env) {
			tbl := e.Table("decr")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, d decimal)") != nil {
				return
			}
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, d) VALUES (1, 123456789012345678901234567.890)").Exec())
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, d) VALUES (2, 7)").Exec())
			// The common row-collecting loop: one variable scanned again and again, a copy of it
			// kept each time (an inf.Dec copy shares the digits of the original).
			var d inf.Dec
			var kept []inf.Dec
			for k := 1; k <= 2; k++ {
				err := e.Session.Query("SELECT d FROM "+tbl+" WHERE k = ?", k).Scan(&d)
				e.R.Record("scan", err, k)
				kept = append(kept, d)
			}
			for i := range kept {
				e.R.Record("kept", nil, i, kept[i].String())
			}
		}},
		{"types/empty_values_vs_null", func(e *Env) {
			tbl := e.Table("emp")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, i int, b bigint, t text, bl blob, u uuid, bo boolean)") != nil {
				return
			}
			e.R.Record("insert empty", e.Session.Query("INSERT INTO "+tbl+" (k, i, b, t, bl, u, bo) VALUES "+
				"(1, blobAsInt(0x), blobAsBigint(0x), '', 0x, blobAsUuid(0x), blobAsBoolean(0x))").Exec())
			e.R.Record("insert null", e.Session.Query("INSERT INTO "+tbl+" (k) VALUES (2)").Exec())
			for k := 1; k <= 2; k++ {
				var i int
				var b int64
				var t string
				var bl []byte
				var u gocql.UUID
				var bo bool
				err := e.Session.Query("SELECT i, b, t, bl, u, bo FROM "+tbl+" WHERE k = ?", k).Scan(&i, &b, &t, &bl, &u, &bo)
				e.R.Record("scan values", err, k, i, b, t, bl, bl == nil, u, bo)
				var pi *int
				var pb *int64
				var pt *string
				var pbl *[]byte
				var pbo *bool
				err = e.Session.Query("SELECT i, b, t, bl, bo FROM "+tbl+" WHERE k = ?", k).Scan(&pi, &pb, &pt, &pbl, &pbo)
				e.R.Record("scan pointers", err, k, pi, pb, pt, pbl, pbo)
				m := map[string]any{}
				err = e.Session.Query("SELECT i, b, t, bl, u, bo FROM "+tbl+" WHERE k = ?", k).MapScan(m)
				e.R.Record("mapscan", err, k, m)
			}
		}},
		{"types/unset_value", func(e *Env) {
			tbl := e.Table("unset")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, a text, b text)") != nil {
				return
			}
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, a, b) VALUES (?, ?, ?)", 1, "a1", "b1").Exec())
			e.R.Record("update with unset", e.Session.Query("UPDATE "+tbl+" SET a = ?, b = ? WHERE k = ?", "a2", gocql.UnsetValue, 1).Exec())
			var a, b string
			err := e.Session.Query("SELECT a, b FROM "+tbl+" WHERE k = ?", 1).Scan(&a, &b)
			e.R.Record("read", err, a, b)
		}},
		{"types/custom_marshaler_null", func(e *Env) {
			tbl := e.Table("cmn")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
				return
			}
			e.R.Record("insert null via marshaler", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, nullable{}).Exec())
			e.R.Record("insert value via marshaler", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 2, nullable{set: true, s: "v"}).Exec())
			for k := 1; k <= 2; k++ {
				var n nullable
				err := e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", k).Scan(&n)
				e.R.Record("scan", err, k, n.set, n.s, n.calls)
			}
		}},
		{"types/custom_marshaler_error", func(e *Env) {
			tbl := e.Table("cme")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v text)") != nil {
				return
			}
			err := e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, failing{}).Exec()
			e.R.Record("insert", err, errors.Is(err, errFailing))
			e.R.Record("insert ok", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", 1, "x").Exec())
			var f failing
			err = e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Scan(&f)
			e.R.Record("scan", err, errors.Is(err, errFailing))
			it := e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Iter()
			e.R.Record("iter scan", nil, it.Scan(&f))
			err = it.Close()
			e.R.Record("iter close", err, errors.Is(err, errFailing))
		}},
		{"types/custom_unmarshaler_in_collection", func(e *Env) {
			tbl := e.Table("cmc")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, l list<text>, m map<text, text>)") != nil {
				return
			}
			err := e.Session.Query("INSERT INTO "+tbl+" (k, l, m) VALUES (?, ?, ?)", 1, []upper{"a", "b"}, map[upper]upper{"k": "v"}).Exec()
			e.R.Record("insert", err)
			var l []upper
			var m map[string]upper
			err = e.Session.Query("SELECT l, m FROM "+tbl+" WHERE k = ?", 1).Scan(&l, &m)
			e.R.Record("scan", err, l, m)
		}},
	}
}

// nullable is a Marshaler/Unmarshaler that writes NULL when unset and records whether it was
// given NULL (nil data) when read.
type nullable struct {
	set   bool
	s     string
	calls int
}

func (n nullable) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	if !n.set {
		return nil, nil
	}
	return []byte(n.s), nil
}

func (n *nullable) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	n.calls++
	n.set = data != nil
	n.s = string(data)
	return nil
}

var errFailing = errors.New("failing: refused on purpose")

// failing is a Marshaler/Unmarshaler that always fails.
type failing struct{}

func (failing) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return nil, errFailing }

func (*failing) UnmarshalCQL(gocql.TypeInfo, []byte) error { return errFailing }
