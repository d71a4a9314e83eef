package scenarios

import (
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
