package difftest

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// The generated differential test: a seeded generator writes random but plausible CQL on a
// small random schema, and every statement runs on Cassandra and on cqlsim. By default a few
// fixed seeds run; -gen.seeds (or DIFFTEST_GEN_SEEDS) picks others ("1-200", "7,9,31").
var (
	genSeeds    = flag.String("gen.seeds", os.Getenv("DIFFTEST_GEN_SEEDS"), "seeds of TestGenerated: a list such as 1,2,9 or a range 1-100 (default: a fixed short list)")
	genSteps    = flag.Int("gen.steps", 120, "statements TestGenerated writes per seed on the main table")
	genKeyspace = flag.String("gen.keyspace", os.Getenv("DIFFTEST_GEN_KEYSPACE"), "keyspace TestGenerated uses (default: one named after the test)")
)

// defaultGenSeeds run by default: about 0.6 s each against a local node.
var defaultGenSeeds = []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

func parseSeeds(t *testing.T, s string) []int64 {
	t.Helper()
	if s == "" {
		return defaultGenSeeds
	}
	var out []int64
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			t.Fatalf("-gen.seeds %q: %v", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil {
				t.Fatalf("-gen.seeds %q: %v", s, err)
			}
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out
}

// gval is one value of a CQL type, as a literal and as a value gocql binds.
type gval struct {
	lit   string
	bound any
}

// gtype is a column type the generator uses.
type gtype struct {
	cql     string
	kind    string // int, bigint, text, blob, boolean, double, timestamp, uuid, timeuuid, list, set, map, flist, fset, tuple, udt, fudt, counter
	keyable bool   // may be part of a primary key
	vals    []gval
}

func ms(n int64) time.Time { return time.UnixMilli(n).UTC() }

var genTypes = []*gtype{
	{cql: "int", kind: "int", keyable: true, vals: []gval{{"0", 0}, {"1", 1}, {"-1", -1}, {"2", 2}, {"7", 7}}},
	{cql: "bigint", kind: "bigint", keyable: true, vals: []gval{{"0", int64(0)}, {"-5", int64(-5)}, {"9000000000", int64(9000000000)}, {"3", int64(3)}}},
	{cql: "text", kind: "text", keyable: true, vals: []gval{{"'a'", "a"}, {"'b'", "b"}, {"'ab'", "ab"}, {"''", ""}, {"'é'", "é"}}},
	{cql: "blob", kind: "blob", keyable: true, vals: []gval{{"0x01", []byte{1}}, {"0xff00", []byte{0xff, 0}}, {"0x", []byte{}}, {"0x0102", []byte{1, 2}}}},
	{cql: "boolean", kind: "boolean", keyable: true, vals: []gval{{"true", true}, {"false", false}}},
	{cql: "double", kind: "double", keyable: true, vals: []gval{{"0.0", 0.0}, {"1.5", 1.5}, {"-2.25", -2.25}, {"1e10", 1e10}}},
	{cql: "timestamp", kind: "timestamp", keyable: true, vals: []gval{{"0", ms(0)}, {"1700000000000", ms(1700000000000)}, {"'2024-01-02 03:04:05+0000'", ms(1704164645000)}, {"-1000", ms(-1000)}}},
	{cql: "uuid", kind: "uuid", keyable: true, vals: []gval{{"123e4567-e89b-12d3-a456-426614174000", mustUUID("123e4567-e89b-12d3-a456-426614174000")},
		{"00000000-0000-0000-0000-000000000000", mustUUID("00000000-0000-0000-0000-000000000000")}, {"f47ac10b-58cc-4372-a567-0e02b2c3d479", mustUUID("f47ac10b-58cc-4372-a567-0e02b2c3d479")}}},
	{cql: "timeuuid", kind: "timeuuid", keyable: true, vals: []gval{{"d2177dd0-eaa2-11de-a572-001b779c76e3", mustUUID("d2177dd0-eaa2-11de-a572-001b779c76e3")},
		{"e7cd0d50-29bb-11e5-b345-feff819cdc9f", mustUUID("e7cd0d50-29bb-11e5-b345-feff819cdc9f")}, {"50554d6e-29bb-11e5-8345-feff819cdc9f", mustUUID("50554d6e-29bb-11e5-8345-feff819cdc9f")}}},
	{cql: "list<int>", kind: "list", vals: []gval{{"[1, 2]", []int{1, 2}}, {"[]", []int{}}, {"[3]", []int{3}}, {"[2, 2, 1]", []int{2, 2, 1}}}},
	{cql: "set<text>", kind: "set", vals: []gval{{"{'a', 'b'}", []string{"a", "b"}}, {"{}", []string{}}, {"{'c'}", []string{"c"}}}},
	{cql: "map<text, int>", kind: "map", vals: []gval{{"{'a': 1}", map[string]int{"a": 1}}, {"{}", map[string]int{}}, {"{'b': 2, 'c': 3}", map[string]int{"b": 2, "c": 3}}}},
	{cql: "frozen<list<int>>", kind: "flist", keyable: true, vals: []gval{{"[1, 2]", []int{1, 2}}, {"[]", []int{}}, {"[3]", []int{3}}}},
	{cql: "frozen<set<int>>", kind: "fset", keyable: true, vals: []gval{{"{1, 2}", []int{1, 2}}, {"{}", []int{}}, {"{5}", []int{5}}}},
	{cql: "tuple<int, text>", kind: "tuple", keyable: true, vals: []gval{{"(1, 'a')", []any{1, "a"}}, {"(2, null)", []any{2, nil}}, {"(0, 'b')", []any{0, "b"}}}},
	{cql: "u", kind: "udt", vals: []gval{{"{a: 1, b: 'x'}", map[string]any{"a": 1, "b": "x"}}, {"{a: 2}", map[string]any{"a": 2, "b": nil}}, {"{b: 'y'}", map[string]any{"a": nil, "b": "y"}}}},
	{cql: "frozen<u>", kind: "fudt", keyable: true, vals: []gval{{"{a: 1, b: 'x'}", map[string]any{"a": 1, "b": "x"}}, {"{a: 2}", map[string]any{"a": 2, "b": nil}}}},
}

var counterType = &gtype{cql: "counter", kind: "counter", vals: []gval{{"1", int64(1)}, {"5", int64(5)}, {"-2", int64(-2)}}}

// scalar reports types compared with =, <, > and IN in conditions and filters.
func (t *gtype) scalar() bool {
	switch t.kind {
	case "list", "set", "map", "udt", "counter":
		return false
	}
	return true
}

type gcol struct {
	name string
	t    *gtype
	desc bool
}

type gtable struct {
	name            string
	pk, ck, st, reg []*gcol
}

func (tb *gtable) keyCols() []*gcol { return append(append([]*gcol{}, tb.pk...), tb.ck...) }
func (tb *gtable) all() []*gcol {
	return append(append(tb.keyCols(), tb.st...), tb.reg...)
}

type gen struct {
	r     *rand.Rand
	steps []Step
	tsN   int64 // explicit write timestamps handed out
}

func (g *gen) pick(n int) int        { return g.r.Intn(n) }
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) keyType() *gtype {
	for {
		t := genTypes[g.pick(len(genTypes))]
		// keys mostly of simple types, so that rows collide
		if t.keyable && (t.scalar() && t.kind != "double" || g.chance(0.2)) {
			return t
		}
	}
}

// value returns a placeholder or literal for a value of t, adding its argument when bound.
func (g *gen) value(t *gtype, args *[]any) string {
	v := t.vals[g.pick(len(t.vals))]
	// gocql v1.7.0 counts a bound tuple's elements as values: tuples stay literals
	if t.kind != "tuple" && g.chance(0.35) {
		*args = append(*args, v.bound)
		return "?"
	}
	return v.lit
}

// wrongLiteral returns a literal of a type other than t's.
func (g *gen) wrongLiteral(t *gtype) string {
	for {
		o := genTypes[g.pick(len(genTypes))]
		if (t.kind == "udt" || t.kind == "fudt") && o.kind == "tuple" || t.kind == "tuple" && o.kind == "blob" {
			continue // Cassandra takes a tuple for a user type, 0x for a tuple; cqlsim does not
		}
		if o.kind != t.kind && !(o.kind == "int" && (t.kind == "bigint" || t.kind == "double" || t.kind == "timestamp")) &&
			!(o.kind == "bigint" && (t.kind == "int" || t.kind == "double" || t.kind == "timestamp")) &&
			!(t.kind == "text" && o.kind == "timestamp") {
			v := o.vals[g.pick(len(o.vals))].lit
			if strings.HasPrefix(v, "'") && t.kind == "timestamp" {
				continue
			}
			return v
		}
	}
}

func (g *gen) add(st Step) { g.steps = append(g.steps, st) }

func (g *gen) schema(prefix string) (*gtable, *gtable) {
	tb := &gtable{name: prefix + "_t"}
	for i, n := 0, 1+g.pick(2); i < n; i++ {
		tb.pk = append(tb.pk, &gcol{name: fmt.Sprintf("p%d", i), t: g.keyType()})
	}
	for i, n := 0, g.pick(3); i < n; i++ {
		tb.ck = append(tb.ck, &gcol{name: fmt.Sprintf("c%d", i), t: g.keyType(), desc: g.chance(0.4)})
	}
	if len(tb.ck) > 0 && g.chance(0.6) {
		tb.st = append(tb.st, &gcol{name: "s", t: genTypes[g.pick(len(genTypes))]})
		if tb.st[0].t.kind == "udt" {
			tb.st[0].t = genTypes[0]
		}
	}
	for i, n := 0, 2+g.pick(4); i < n; i++ {
		tb.reg = append(tb.reg, &gcol{name: fmt.Sprintf("v%d", i), t: genTypes[g.pick(len(genTypes))]})
	}
	var defs, pks, cks, order []string
	for _, c := range tb.all() {
		d := c.name + " " + c.t.cql
		if len(tb.st) > 0 && c == tb.st[0] {
			d += " static"
		}
		defs = append(defs, d)
	}
	for _, c := range tb.pk {
		pks = append(pks, c.name)
	}
	for _, c := range tb.ck {
		cks = append(cks, c.name)
		dir := "ASC"
		if c.desc {
			dir = "DESC"
		}
		order = append(order, c.name+" "+dir)
	}
	key := "(" + strings.Join(pks, ", ") + ")"
	if len(cks) > 0 {
		key += ", " + strings.Join(cks, ", ")
	}
	q := fmt.Sprintf("CREATE TABLE {ks}.%s (%s, PRIMARY KEY (%s))", tb.name, strings.Join(defs, ", "), key)
	if len(order) > 0 {
		q += " WITH CLUSTERING ORDER BY (" + strings.Join(order, ", ") + ")"
	}
	g.add(Step{Query: q})
	cnt := &gtable{name: prefix + "_c", pk: []*gcol{{name: "k", t: g.keyType()}}}
	if g.chance(0.5) {
		cnt.ck = []*gcol{{name: "c", t: genTypes[0]}}
	}
	cnt.reg = []*gcol{{name: "n1", t: counterType}, {name: "n2", t: counterType}}
	q = fmt.Sprintf("CREATE TABLE {ks}.%s (k %s, ", cnt.name, cnt.pk[0].t.cql)
	if len(cnt.ck) > 0 {
		q += "c int, n1 counter, n2 counter, PRIMARY KEY (k, c))"
	} else {
		q += "n1 counter, n2 counter, PRIMARY KEY (k))"
	}
	g.add(Step{Query: q})
	return tb, cnt
}

// keyWhere restricts every column of cols by equality.
func (g *gen) keyWhere(cols []*gcol, args *[]any) []string {
	var w []string
	for _, c := range cols {
		w = append(w, c.name+" = "+g.value(c.t, args))
	}
	return w
}

func (g *gen) using(ttl bool) string {
	var u []string
	if ttl && g.chance(0.25) {
		u = append(u, fmt.Sprintf("TTL %d", []int{0, 10000, 20000}[g.pick(3)]))
	}
	if g.chance(0.25) {
		g.tsN++
		u = append(u, fmt.Sprintf("TIMESTAMP %d", 1000*(g.tsN+int64(g.pick(3)))))
	}
	if len(u) == 0 {
		return ""
	}
	return " USING " + strings.Join(u, " AND ")
}

// condition returns an IF clause on the table's non-key columns.
func (g *gen) condition(tb *gtable, args *[]any, rowLevel bool) string {
	if g.chance(0.4) {
		return " IF EXISTS"
	}
	cands := tb.st
	if rowLevel {
		cands = append(append([]*gcol{}, tb.st...), tb.reg...)
	}
	if len(cands) == 0 {
		return " IF EXISTS"
	}
	var conds []string
	for i, n := 0, 1+g.pick(2); i < n; i++ {
		c := cands[g.pick(len(cands))]
		switch {
		case c.t.kind == "map" && g.chance(0.5):
			conds = append(conds, fmt.Sprintf("%s['%s'] = %s", c.name, []string{"a", "b"}[g.pick(2)], g.value(genTypes[0], args)))
		case c.t.kind == "udt" && g.chance(0.5):
			conds = append(conds, fmt.Sprintf("%s.a = %s", c.name, g.value(genTypes[0], args)))
		case c.t.scalar() && g.chance(0.3):
			conds = append(conds, fmt.Sprintf("%s %s %s", c.name, []string{"<", ">=", "!="}[g.pick(3)], g.value(c.t, args)))
		case c.t.scalar() && g.chance(0.2):
			conds = append(conds, fmt.Sprintf("%s IN (%s, %s)", c.name, g.value(c.t, args), g.value(c.t, args)))
		case g.chance(0.2):
			conds = append(conds, c.name+" = null")
		default:
			conds = append(conds, c.name+" = "+g.value(c.t, args))
		}
	}
	return " IF " + strings.Join(conds, " AND ")
}

func (g *gen) insert(tb *gtable) {
	var args []any
	cols := tb.keyCols()
	for _, c := range append(append([]*gcol{}, tb.st...), tb.reg...) {
		if g.chance(0.6) {
			cols = append(cols, c)
		}
	}
	if g.chance(0.08) { // leave out a column, perhaps one of the key
		i := g.pick(len(cols))
		cols = append(cols[:i:i], cols[i+1:]...)
	}
	g.r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	var names, vals []string
	for _, c := range cols {
		names = append(names, c.name)
		if g.chance(0.03) {
			vals = append(vals, g.wrongLiteral(c.t))
			continue
		}
		vals = append(vals, g.value(c.t, &args))
	}
	if g.chance(0.03) {
		names = append(names, "nope")
		vals = append(vals, "1")
	}
	q := fmt.Sprintf("INSERT INTO {ks}.%s (%s) VALUES (%s)", tb.name, strings.Join(names, ", "), strings.Join(vals, ", "))
	if g.chance(0.2) {
		q += " IF NOT EXISTS"
		if g.chance(0.2) {
			q += g.using(true)
		}
	} else {
		q += g.using(true)
	}
	g.add(Step{Query: q, Args: args})
}

// assignment returns one SET assignment of c.
func (g *gen) assignment(c *gcol, args *[]any) string {
	switch c.t.kind {
	case "list":
		switch g.pick(5) {
		case 0:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, g.value(c.t, args))
		case 1:
			return fmt.Sprintf("%s = %s + %s", c.name, g.value(c.t, args), c.name)
		case 2:
			return fmt.Sprintf("%s = %s - %s", c.name, c.name, g.value(c.t, args))
		case 3:
			return fmt.Sprintf("%s[%d] = %s", c.name, g.pick(3), g.value(genTypes[0], args))
		}
	case "set":
		switch g.pick(3) {
		case 0:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, g.value(c.t, args))
		case 1:
			return fmt.Sprintf("%s = %s - %s", c.name, c.name, g.value(c.t, args))
		}
	case "map":
		switch g.pick(4) {
		case 0:
			return fmt.Sprintf("%s = %s + %s", c.name, c.name, g.value(c.t, args))
		case 1:
			return fmt.Sprintf("%s['%s'] = %s", c.name, []string{"a", "b", "z"}[g.pick(3)], g.value(genTypes[0], args))
		case 2:
			return fmt.Sprintf("%s = %s - {'%s'}", c.name, c.name, []string{"a", "b"}[g.pick(2)])
		}
	case "udt":
		if g.chance(0.5) {
			return fmt.Sprintf("%s.a = %s", c.name, g.value(genTypes[0], args))
		}
	case "counter":
		return fmt.Sprintf("%s = %s %s %s", c.name, c.name, []string{"+", "-"}[g.pick(2)], g.value(genTypes[1], args))
	}
	if g.chance(0.05) {
		return c.name + " = null"
	}
	return c.name + " = " + g.value(c.t, args)
}

func (g *gen) update(tb *gtable) {
	var args []any
	staticOnly := len(tb.st) > 0 && g.chance(0.2)
	cands := tb.reg
	if staticOnly {
		cands = tb.st
	} else if len(tb.st) > 0 {
		cands = append(append([]*gcol{}, tb.reg...), tb.st...)
	}
	var sets []string
	for i, n := 0, 1+g.pick(2); i < n; i++ {
		sets = append(sets, g.assignment(cands[g.pick(len(cands))], &args))
	}
	if g.chance(0.03) {
		sets = append(sets, tb.keyCols()[0].name+" = "+g.value(tb.keyCols()[0].t, &args))
	}
	using := g.using(true)
	// USING comes before SET: bind its markers first
	var wargs []any
	where := g.keyWhere(tb.pk, &wargs)
	if !staticOnly || g.chance(0.2) {
		where = append(where, g.keyWhere(tb.ck, &wargs)...)
	}
	if g.chance(0.05) && len(where) > 1 {
		where = where[:len(where)-1]
	}
	q := fmt.Sprintf("UPDATE {ks}.%s%s SET %s WHERE %s", tb.name, using, strings.Join(sets, ", "), strings.Join(where, " AND "))
	args = append(args, wargs...)
	if g.chance(0.2) {
		q += g.condition(tb, &args, !staticOnly)
	}
	g.add(Step{Query: q, Args: args})
}

func (g *gen) del(tb *gtable) {
	var args []any
	var sel []string
	nonKey := append(append([]*gcol{}, tb.st...), tb.reg...)
	if g.chance(0.4) {
		for i, n := 0, 1+g.pick(2); i < n; i++ {
			c := nonKey[g.pick(len(nonKey))]
			switch {
			case c.t.kind == "map" && g.chance(0.5):
				sel = append(sel, fmt.Sprintf("%s['%s']", c.name, []string{"a", "b"}[g.pick(2)]))
			case c.t.kind == "list" && g.chance(0.5):
				sel = append(sel, fmt.Sprintf("%s[%d]", c.name, g.pick(2)))
			default:
				sel = append(sel, c.name)
			}
		}
	}
	using := ""
	if g.chance(0.2) {
		g.tsN++
		using = fmt.Sprintf(" USING TIMESTAMP %d", 1000*g.tsN)
	}
	q := "DELETE " + strings.Join(sel, ", ")
	if len(sel) > 0 {
		q += " "
	}
	q += "FROM {ks}." + tb.name + using + " WHERE "
	where := g.keyWhere(tb.pk, &args)
	if n := len(tb.ck); n > 0 {
		k := g.pick(n + 1)
		where = append(where, g.keyWhere(tb.ck[:k], &args)...)
		if k < n && g.chance(0.4) {
			c := tb.ck[k]
			where = append(where, fmt.Sprintf("%s %s %s", c.name, []string{">", "<=", ">="}[g.pick(3)], g.value(c.t, &args)))
		}
	}
	q += strings.Join(where, " AND ")
	if g.chance(0.15) {
		q += g.condition(tb, &args, true)
	}
	g.add(Step{Query: q, Args: args})
}

func (g *gen) selection(tb *gtable) string {
	switch g.pick(10) {
	case 0:
		return "COUNT(*)"
	case 1:
		var c []string
		for _, p := range tb.pk {
			c = append(c, p.name)
		}
		if len(tb.st) > 0 && g.chance(0.5) {
			c = append(c, tb.st[0].name)
		}
		return "DISTINCT " + strings.Join(c, ", ")
	case 2, 3, 4:
		return "*"
	}
	var sel []string
	cols := tb.all()
	for _, c := range cols {
		if g.chance(0.5) {
			sel = append(sel, c.name)
		}
	}
	for _, c := range tb.reg { // non-frozen collections and user types answer lists
		if g.chance(0.15) {
			sel = append(sel, "writetime("+c.name+")")
		}
		if g.chance(0.1) {
			sel = append(sel, "ttl("+c.name+")")
		}
	}
	if g.chance(0.15) {
		var p []string
		for _, c := range tb.pk {
			p = append(p, c.name)
		}
		sel = append(sel, "token("+strings.Join(p, ", ")+")")
	}
	if g.chance(0.03) {
		sel = append(sel, "nope")
	}
	if len(sel) == 0 {
		sel = []string{cols[len(cols)-1].name}
	}
	g.r.Shuffle(len(sel), func(i, j int) { sel[i], sel[j] = sel[j], sel[i] })
	return strings.Join(sel, ", ")
}

func (g *gen) sel(tb *gtable) {
	var args []any
	selection := g.selection(tb)
	var where []string
	pkBound := false
	switch g.pick(8) {
	case 0, 1: // no restriction
	case 2: // IN on the last partition key column
		where = g.keyWhere(tb.pk[:len(tb.pk)-1], &args)
		c := tb.pk[len(tb.pk)-1]
		if c.t.kind != "tuple" && g.chance(0.3) {
			args = append(args, []any{c.t.vals[0].bound, c.t.vals[1].bound})
			where = append(where, c.name+" IN ?")
		} else {
			where = append(where, fmt.Sprintf("%s IN (%s, %s)", c.name, g.value(c.t, &args), g.value(c.t, &args)))
		}
		pkBound = true
	case 3: // token range
		var p []string
		for _, c := range tb.pk {
			p = append(p, c.name)
		}
		where = append(where, fmt.Sprintf("token(%s) %s %d", strings.Join(p, ", "), []string{">", "<=", ">="}[g.pick(3)], g.r.Int63n(1<<62)-(1<<61)))
	case 4: // filtering on a regular column
		c := tb.reg[g.pick(len(tb.reg))]
		switch {
		case c.t.kind == "list" || c.t.kind == "set":
			where = append(where, c.name+" CONTAINS "+g.value(map[string]*gtype{"list": genTypes[0], "set": genTypes[2]}[c.t.kind], &args))
		case c.t.kind == "map":
			where = append(where, c.name+" CONTAINS KEY 'a'")
		default:
			where = append(where, c.name+" = "+g.value(c.t, &args))
		}
	case 5: // invalid: a range on the partition key, or part of it missing
		c := tb.pk[0]
		if g.chance(0.5) || len(tb.pk) == 1 {
			where = append(where, c.name+" > "+g.value(c.t, &args))
		} else {
			where = append(where, c.name+" = "+g.value(c.t, &args))
		}
	default: // one partition, clustering restrictions
		where = g.keyWhere(tb.pk, &args)
		pkBound = true
		if n := len(tb.ck); n > 0 {
			k := g.pick(n + 1)
			where = append(where, g.keyWhere(tb.ck[:k], &args)...)
			if k < n {
				c := tb.ck[k]
				switch g.pick(4) {
				case 0:
					where = append(where, fmt.Sprintf("%s %s %s", c.name, []string{">", "<", ">=", "<="}[g.pick(4)], g.value(c.t, &args)))
				case 1:
					where = append(where, fmt.Sprintf("%s > %s AND %s <= %s", c.name, g.value(c.t, &args), c.name, g.value(c.t, &args)))
				case 2:
					where = append(where, fmt.Sprintf("%s IN (%s, %s)", c.name, g.value(c.t, &args), g.value(c.t, &args)))
				}
			}
		}
	}
	q := "SELECT " + selection + " FROM {ks}." + tb.name
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if pkBound && len(tb.ck) > 0 && g.chance(0.3) {
		dir := []string{"ASC", "DESC"}[g.pick(2)]
		q += " ORDER BY " + tb.ck[0].name + " " + dir
	}
	if g.chance(0.15) {
		q += fmt.Sprintf(" PER PARTITION LIMIT %d", 1+g.pick(2))
	}
	if g.chance(0.25) {
		q += fmt.Sprintf(" LIMIT %d", 1+g.pick(4))
	}
	if g.chance(0.3) {
		q += " ALLOW FILTERING"
	}
	g.add(Step{Query: q, Args: args, PageSize: []int{0, 1, 2, 3, 5}[g.pick(5)]})
}

func (g *gen) counter(tb *gtable) {
	var args []any
	switch g.pick(6) {
	case 0, 1, 2:
		sets := []string{g.assignment(tb.reg[g.pick(2)], &args)}
		where := g.keyWhere(tb.keyCols(), &args)
		g.add(Step{Query: fmt.Sprintf("UPDATE {ks}.%s SET %s WHERE %s", tb.name, strings.Join(sets, ", "), strings.Join(where, " AND ")), Args: args})
	case 3:
		g.add(Step{Query: "SELECT * FROM {ks}." + tb.name, PageSize: 2})
	case 4:
		invalid := []string{
			"INSERT INTO {ks}.%s (k, n1) VALUES (%s, 1)",
			"UPDATE {ks}.%s SET n1 = 3 WHERE k = %s",
			"UPDATE {ks}.%s USING TTL 100 SET n1 = n1 + 1 WHERE k = %s",
			"UPDATE {ks}.%s SET n1 = n1 + 1 WHERE k = %s IF n1 = 1",
		}
		k := tb.pk[0].t.vals[g.pick(len(tb.pk[0].t.vals))].lit
		g.add(Step{Query: fmt.Sprintf(invalid[g.pick(len(invalid))], tb.name, k)})
	default:
		// No DELETE: an increment after a counter's deletion starts, on Cassandra, from the
		// value its counter cache kept, which cqlsim does not emulate.
		where := g.keyWhere(tb.pk, &args)
		g.add(Step{Query: fmt.Sprintf("SELECT * FROM {ks}.%s WHERE %s", tb.name, strings.Join(where, " AND ")), Args: args})
	}
}

// badDDL adds a CREATE TABLE that Cassandra refuses (checked before any schema change).
func (g *gen) badDDL(prefix string) {
	bad := []string{
		"CREATE TABLE {ks}.%s_bad (k list<int> PRIMARY KEY, v int)",
		"CREATE TABLE {ks}.%s_bad (k int, c set<int>, PRIMARY KEY (k, c))",
		"CREATE TABLE {ks}.%s_bad (k int PRIMARY KEY, s int static)",
		"CREATE TABLE {ks}.%s_bad (k int, v counter, w int, PRIMARY KEY (k))",
		"CREATE TABLE {ks}.%s_bad (k u PRIMARY KEY, v int)",
		"CREATE TABLE {ks}.%s_bad (k int, v int)",
		"CREATE TABLE {ks}.%s_bad (k int PRIMARY KEY, v nosuchtype)",
	}
	g.add(Step{Query: fmt.Sprintf(bad[g.pick(len(bad))], prefix)})
}

// generate returns the schema steps and the statements of one seed.
func generate(seed int64, n int) (schema, body []Step) {
	g := &gen{r: rand.New(rand.NewSource(seed))}
	prefix := fmt.Sprintf("g%d", seed)
	tb, cnt := g.schema(prefix)
	schema = g.steps
	g.steps = nil
	g.badDDL(prefix)
	for i := 0; i < n; i++ {
		switch x := g.pick(20); {
		case x < 6:
			g.insert(tb)
		case x < 9:
			g.update(tb)
		case x < 11:
			g.del(tb)
		case x < 17:
			g.sel(tb)
		default:
			g.counter(cnt)
		}
	}
	// read everything back at the end
	g.add(Step{Query: "SELECT * FROM {ks}." + tb.name})
	g.add(Step{Query: "SELECT * FROM {ks}." + cnt.name})
	return schema, g.steps
}

var timing = regexp.MustCompile(`(writetime|ttl)\([a-z0-9_]+\)=(\[[^\]]*\]|\S+)`)
var number = regexp.MustCompile(`\d+`)

// normalize hides what differs between two runs of the same statements: write timestamps given
// by the clock (explicit ones are small numbers and kept) and the seconds a TTL has left.
func normalize(o Outcome) Outcome {
	for i, r := range o.Rows {
		o.Rows[i] = timing.ReplaceAllStringFunc(r, func(m string) string {
			name, val, _ := strings.Cut(m, "=")
			return name + "=" + number.ReplaceAllStringFunc(val, func(d string) string {
				n, _ := strconv.ParseInt(d, 10, 64)
				if strings.HasPrefix(name, "ttl") {
					return strconv.FormatInt((n+99)/100*100, 10)
				}
				if n > 1e12 {
					return "now"
				}
				return d
			})
		})
	}
	return o
}

type genRun struct {
	ks       string
	ref, sim *gocql.Session
}

// both runs the steps on the two servers at once and returns their normalized outcomes.
func (r *genRun) both(steps []Step) (want, got []Outcome) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		want = Run(r.ref, r.ks, steps)
	}()
	got = Run(r.sim, r.ks, steps)
	wg.Wait()
	for i := range want {
		want[i], got[i] = normalize(want[i]), normalize(got[i])
	}
	return want, got
}

// knownMessages are the beginnings of Cassandra's messages for errors whose message cqlsim is
// known not to match (the error code must still match): wordings that name a literal's
// token kind or a frozen type, and refusals that Cassandra checks in another order than
// cqlsim when a statement has several faults.
var knownMessages = []string{
	"Invalid STRING constant", "Invalid BOOLEAN constant", "Invalid INTEGER constant",
	"Invalid FLOAT constant", "Invalid UUID constant", "Invalid HEX constant", "Invalid DURATION constant",
	"Invalid set literal for", "Invalid map literal for", "Invalid list literal for",
	"Invalid tuple literal", "Invalid tuple type literal for", "Invalid user type literal for",
	"Unexpected receiver type",
	"Invalid non-frozen user-defined type",
	"Non-frozen UDT column",
	"Range deletions are not supported for specific columns",
	"DELETE statements must restrict all PRIMARY KEY columns",
	"Invalid restrictions on clustering columns since the",
	"Unable to make",
	"Cannot provide custom TTL for counter updates",
	"Cannot provide custom timestamp for conditional updates",
	"Conditions on counters are not supported",
	"Cannot execute this query as it might involve data filtering",
	"Key may not be empty",
}

// sameOutcome compares two outcomes, tolerating a different message for a known divergence
// when both failed with the same code; it reports whether it tolerated one.
func sameOutcome(want, got Outcome) (same, tolerated bool) {
	if cmp.Equal(want, got) {
		return true, false
	}
	if want.Code == 0 || want.Code != got.Code {
		return false, false
	}
	for _, k := range knownMessages {
		if strings.HasPrefix(want.Error, k) {
			w, g := want, got
			w.Error, g.Error = "", ""
			return cmp.Equal(w, g), true
		}
	}
	return false, false
}

// firstDiff returns the index of the first step whose outcomes differ, or -1, and the number of
// known message divergences it tolerated.
func firstDiff(want, got []Outcome) (int, int) {
	tolerated := 0
	for i := range want {
		same, tol := sameOutcome(want[i], got[i])
		if !same {
			return i, tolerated
		}
		if tol {
			tolerated++
		}
	}
	return -1, tolerated
}

// minimize shrinks body[:end+1] to a short sequence whose last step still differs, truncating
// the tables before each try.
func (r *genRun) minimize(truncate, body []Step, end int, budget time.Duration) []Step {
	deadline := time.Now().Add(budget)
	cur := append([]Step{}, body[:end+1]...)
	fails := func(c []Step) bool {
		r.both(truncate)
		w, g := r.both(c)
		same, _ := sameOutcome(w[len(c)-1], g[len(c)-1])
		return !same
	}
	for chunk := len(cur) / 2; chunk >= 1 && time.Now().Before(deadline); {
		removed := false
		for i := len(cur) - 1 - chunk; i >= 0 && time.Now().Before(deadline); i -= chunk {
			try := append(append([]Step{}, cur[:i]...), cur[i+chunk:]...)
			if fails(try) {
				cur, removed = try, true
			}
		}
		if !removed {
			chunk /= 2
		}
	}
	return cur
}

func describe(steps []Step) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "\t%s", s.Query)
		if len(s.Args) > 0 {
			fmt.Fprintf(&b, "  args %#v", s.Args)
		}
		if s.PageSize > 0 {
			fmt.Fprintf(&b, "  (page size %d)", s.PageSize)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestGenerated runs generated statement sequences on a Cassandra node and on cqlsim and
// compares every outcome; a divergence is minimized to a short reproduction.
func TestGenerated(t *testing.T) {
	hosts := referenceHosts(t)
	ks := *genKeyspace
	if ks == "" {
		ks = cqltest.KeyspaceName(t)
	}
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	sim := cqlsim.StartT(t, cqlsim.Options{})
	r := &genRun{ks: ks, ref: session(t, hosts[0]), sim: session(t, sim.Addrs()[0])}
	setup := []Step{
		{Query: "DROP KEYSPACE IF EXISTS {ks}"},
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TYPE {ks}.u (a int, b text)"},
	}
	if w, g := r.both(setup); w[1].Error != "" || g[1].Error != "" || w[2].Error != "" || g[2].Error != "" {
		t.Fatalf("set-up: Cassandra %+v, cqlsim %+v", w, g)
	}
	tolerated := 0
	defer func() { t.Logf("known message divergences tolerated: %d", tolerated) }()
	for _, seed := range parseSeeds(t, *genSeeds) {
		schema, body := generate(seed, *genSteps)
		w, g := r.both(schema)
		for i := range schema {
			if w[i].Error != "" || !cmp.Equal(w[i], g[i]) {
				t.Fatalf("seed %d: schema step %s: Cassandra %+v, cqlsim %+v", seed, schema[i].Query, w[i], g[i])
			}
		}
		want, got := r.both(body)
		i, tol := firstDiff(want, got)
		tolerated += tol
		if i < 0 {
			continue
		}
		var truncate []Step
		for _, s := range schema {
			name := strings.Fields(s.Query)[2]
			truncate = append(truncate, Step{Query: "TRUNCATE " + name})
		}
		small := r.minimize(truncate, body, i, 60*time.Second)
		r.both(truncate)
		w, g = r.both(small)
		last := len(small) - 1
		t.Errorf("seed %d: step %d (%s) differs; reproduction on\n%s%s\nCassandra (-) vs cqlsim (+):\n%s",
			seed, i, body[i].Query, describe(schema), describe(small), cmp.Diff(w[last], g[last]))
	}
}
