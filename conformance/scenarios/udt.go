package scenarios

import (
	"fmt"
	"sort"

	"github.com/gocql/gocql"
)

type point struct {
	X int    `cql:"x"`
	Y int    `cql:"y"`
	L string `cql:"label"`
}

type shape struct {
	Name   string         `cql:"name"`
	Center point          `cql:"center"`
	Tags   []string       `cql:"tags"`
	Attrs  map[string]int `cql:"attrs"`
}

// udtTable creates the types point and shape and a table (k int, s frozen<shape>, p frozen<point>).
func udtTable(e *Env) (string, bool) {
	if e.Exec("CREATE TYPE IF NOT EXISTS point (x int, y int, label text)") != nil ||
		e.Exec("CREATE TYPE IF NOT EXISTS shape (name text, center frozen<point>, tags list<text>, attrs map<text, int>)") != nil {
		return "", false
	}
	tbl := e.Table("udt")
	return tbl, e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, s frozen<shape>, p frozen<point>)") == nil
}

func udtScenarios() []Scenario {
	return []Scenario{
		{"udt/nested_struct", func(e *Env) {
			tbl, ok := udtTable(e)
			if !ok {
				return
			}
			in := shape{Name: "sq", Center: point{1, 2, "c"}, Tags: []string{"a", "b"}, Attrs: map[string]int{"w": 3}}
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, s) VALUES (?, ?)", 1, in).Exec())
			var out shape
			err := e.Session.Query("SELECT s FROM "+tbl+" WHERE k = ?", 1).Scan(&out)
			e.R.Record("scan struct", err, out)
			m := map[string]any{}
			err = e.Session.Query("SELECT s FROM "+tbl+" WHERE k = ?", 1).Scan(&m)
			e.R.Record("scan map", err, m)
			row := map[string]any{}
			err = e.Session.Query("SELECT s FROM "+tbl+" WHERE k = ?", 1).MapScan(row)
			e.R.Record("mapscan", err, row)
		}},
		{"udt/nested_map_insert", func(e *Env) {
			tbl, ok := udtTable(e)
			if !ok {
				return
			}
			in := map[string]any{"name": "m", "center": map[string]any{"x": 5, "y": 6, "label": "z"}, "tags": []string{}, "attrs": nil}
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, s) VALUES (?, ?)", 1, in).Exec())
			var out shape
			err := e.Session.Query("SELECT s FROM "+tbl+" WHERE k = ?", 1).Scan(&out)
			e.R.Record("scan struct", err, out, out.Tags == nil, out.Attrs == nil)
		}},
		{"udt/missing_fields", func(e *Env) {
			tbl, ok := udtTable(e)
			if !ok {
				return
			}
			type partial struct {
				X int `cql:"x"`
			}
			e.R.Record("insert partial struct", e.Session.Query("INSERT INTO "+tbl+" (k, p) VALUES (?, ?)", 1, partial{X: 9}).Exec())
			e.R.Record("insert partial map", e.Session.Query("INSERT INTO "+tbl+" (k, p) VALUES (?, ?)", 2, map[string]any{"y": 4}).Exec())
			type extra struct {
				X     int    `cql:"x"`
				Label string `cql:"label"`
				Other string `cql:"other"`
			}
			for k := 1; k <= 2; k++ {
				var p point
				err := e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", k).Scan(&p)
				e.R.Record("scan full", err, k, p)
				var q partial
				err = e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", k).Scan(&q)
				e.R.Record("scan partial", err, k, q)
				var x extra
				err = e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", k).Scan(&x)
				e.R.Record("scan extra field", err, k, x)
				m := map[string]any{}
				err = e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", k).Scan(&m)
				e.R.Record("scan map", err, k, m)
			}
		}},
		{"udt/null_udt_and_null_fields", func(e *Env) {
			tbl, ok := udtTable(e)
			if !ok {
				return
			}
			e.R.Record("insert null udt", e.Session.Query("INSERT INTO "+tbl+" (k) VALUES (1)").Exec())
			e.R.Record("insert null fields", e.Session.Query("INSERT INTO "+tbl+" (k, p) VALUES (2, {x: 1})").Exec())
			type ptrs struct {
				X *int    `cql:"x"`
				Y *int    `cql:"y"`
				L *string `cql:"label"`
			}
			for k := 1; k <= 2; k++ {
				var p point
				err := e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", k).Scan(&p)
				e.R.Record("scan value", err, k, p)
				var pp *point
				err = e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", k).Scan(&pp)
				e.R.Record("scan pointer", err, k, pp)
				var q ptrs
				err = e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", k).Scan(&q)
				e.R.Record("scan pointer fields", err, k, q)
				m := map[string]any{}
				err = e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", k).MapScan(m)
				e.R.Record("mapscan", err, k, m)
			}
		}},
		{"udt/list_of_udts", func(e *Env) {
			if e.Exec("CREATE TYPE IF NOT EXISTS point (x int, y int, label text)") != nil {
				return
			}
			tbl := e.Table("udtl")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, ps list<frozen<point>>, pm map<text, frozen<point>>)") != nil {
				return
			}
			err := e.Session.Query("INSERT INTO "+tbl+" (k, ps, pm) VALUES (?, ?, ?)", 1,
				[]point{{1, 1, "a"}, {2, 2, "b"}}, map[string]point{"o": {0, 0, "origin"}}).Exec()
			e.R.Record("insert", err)
			var ps []point
			var pm map[string]point
			err = e.Session.Query("SELECT ps, pm FROM "+tbl+" WHERE k = ?", 1).Scan(&ps, &pm)
			e.R.Record("scan", err, ps, pm)
			var anyPs any
			err = e.Session.Query("SELECT ps FROM "+tbl+" WHERE k = ?", 1).Scan(&anyPs)
			e.R.Record("scan into interface", err, anyPs)
		}},
		{"udt/udt_marshaler", func(e *Env) {
			tbl, ok := udtTable(e)
			if !ok {
				return
			}
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, p) VALUES (?, ?)", 1, &customPoint{x: 3, y: 4, label: "cp"}).Exec())
			var cp customPoint
			err := e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", 1).Scan(&cp)
			e.R.Record("scan", err, cp.x, cp.y, cp.label, cp.fields)
		}},
		{"udt/literal_and_non_frozen", func(e *Env) {
			if e.Exec("CREATE TYPE IF NOT EXISTS point (x int, y int, label text)") != nil {
				return
			}
			tbl := e.Table("udtnf")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, p point)") != nil {
				return
			}
			e.R.Record("insert literal", e.Session.Query("INSERT INTO "+tbl+" (k, p) VALUES (1, {x: 1, y: 2, label: 'l'})").Exec())
			e.R.Record("update one field", e.Session.Query("UPDATE "+tbl+" SET p.y = ? WHERE k = ?", 20, 1).Exec())
			var p point
			err := e.Session.Query("SELECT p FROM "+tbl+" WHERE k = ?", 1).Scan(&p)
			e.R.Record("scan", err, p)
			var y int
			err = e.Session.Query("SELECT p.y FROM "+tbl+" WHERE k = ?", 1).Scan(&y)
			e.R.Record("select field", err, y)
		}},
		{"udt/added_field_reads_null", func(e *Env) {
			typ := "grow_" + e.Table("t")
			if e.Exec("CREATE TYPE "+typ+" (a int)") != nil {
				return
			}
			tbl := e.Table("udtg")
			if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v frozen<"+typ+">)") != nil {
				return
			}
			e.R.Record("insert", e.Session.Query("INSERT INTO "+tbl+" (k, v) VALUES (1, {a: 7})").Exec())
			if e.Exec("ALTER TYPE "+typ+" ADD b text") != nil {
				return
			}
			m := map[string]any{}
			err := e.Session.Query("SELECT v FROM "+tbl+" WHERE k = ?", 1).Scan(&m)
			e.R.Record("scan map", err, m)
		}},
		{"udt/metadata", func(e *Env) {
			tbl, ok := udtTable(e)
			if !ok {
				return
			}
			md, err := e.FreshMetadata()
			if err != nil {
				e.R.Record("metadata", err)
				return
			}
			var names []string
			for n := range md.UserTypes {
				names = append(names, n)
			}
			sort.Strings(names)
			e.R.Record("has types", nil, md.UserTypes["point"] != nil, md.UserTypes["shape"] != nil)
			for _, n := range []string{"point", "shape"} {
				ut := md.UserTypes[n]
				if ut == nil {
					continue
				}
				var types []string
				for _, ft := range ut.FieldTypes {
					types = append(types, fmt.Sprint(ft.Type()))
				}
				e.R.Record("type "+n, nil, ut.Name, ut.FieldNames, types)
			}
			if t := md.Tables[tbl]; t != nil {
				c := t.Columns["s"]
				if c != nil {
					e.R.Record("udt column", nil, c.Type.Type().String(), c.Kind.String())
					if ut, ok := c.Type.(gocql.UDTTypeInfo); ok {
						var fields []string
						for _, f := range ut.Elements {
							fields = append(fields, f.Name+":"+f.Type.Type().String())
						}
						e.R.Record("udt column type info", nil, ut.Name, fields)
					}
				}
			}
		}},
	}
}

// customPoint implements UDTMarshaler and UDTUnmarshaler and records the fields it was asked for.
type customPoint struct {
	x, y   int
	label  string
	fields []string
}

func (c *customPoint) MarshalUDT(name string, info gocql.TypeInfo) ([]byte, error) {
	switch name {
	case "x":
		return gocql.Marshal(info, c.x)
	case "y":
		return gocql.Marshal(info, c.y)
	case "label":
		return gocql.Marshal(info, c.label)
	}
	return nil, nil
}

func (c *customPoint) UnmarshalUDT(name string, info gocql.TypeInfo, data []byte) error {
	c.fields = append(c.fields, name)
	switch name {
	case "x":
		return gocql.Unmarshal(info, data, &c.x)
	case "y":
		return gocql.Unmarshal(info, data, &c.y)
	case "label":
		return gocql.Unmarshal(info, data, &c.label)
	}
	return nil
}
