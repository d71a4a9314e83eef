package engine

import (
	"crypto/md5"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// colKind is the role of a column in its table.
type colKind int

const (
	kindPartitionKey colKind = iota
	kindClustering
	kindStatic
	kindRegular
)

// String returns the kind as system_schema.columns spells it.
func (k colKind) String() string {
	return [...]string{"partition_key", "clustering", "static", "regular"}[k]
}

// column is one column of a table.
type column struct {
	name string
	typ  *ctype
	kind colKind
	pos  int  // position within the partition key or clustering key, else -1
	desc bool // clustering order
	idx  int  // index in table.cols
}

// table is a table definition plus its data (user tables) or its row generator (system tables).
type table struct {
	ks, name    string
	id          [16]byte
	cols        []*column // select order: partition key, clustering, static, regular (by name)
	byName      map[string]*column
	pk, ck      []*column
	counter     bool
	ttl         int32 // default_time_to_live
	comment     string
	data        *tableData
	virtual     func(e *Engine, node int) [][][]byte // rows in cols order
	seq         uint64                               // creation order within the engine
	isVirtualKs bool
}

// keyspace is a keyspace and what it holds.
type keyspace struct {
	name        string
	durable     bool
	replication map[string]string
	tables      map[string]*table
	types       map[string]*ctype
	typeOrder   []string
	indexes     map[string]*index
	system      bool // built in, read-only
	virtual     bool // listed in system_virtual_schema rather than system_schema
}

func newTable(ks, name string, defs []cql.ColumnDef, pk, ck []string, desc map[string]bool, udts typeResolver) (*table, error) {
	t := &table{ks: ks, name: name, byName: map[string]*column{}}
	t.id = md5.Sum([]byte(ks + "." + name))
	t.id[6] = t.id[6]&0x0F | 0x40
	t.id[8] = t.id[8]&0x3F | 0x80
	defined := map[string]*column{}
	var others []*column
	for _, d := range defs {
		if _, dup := defined[d.Name]; dup {
			return nil, invalid("Duplicate column '%s' declaration for table %s.%s", d.Name, ks, name)
		}
		ty, err := resolveType(d.Type, ks, udts, false)
		if err != nil {
			return nil, err
		}
		if err := checkNested(ty); err != nil {
			return nil, err
		}
		c := &column{name: d.Name, typ: ty, kind: kindRegular, pos: -1}
		if d.Static {
			c.kind = kindStatic
		}
		defined[d.Name] = c
	}
	if len(pk) == 0 {
		return nil, invalid("No PRIMARY KEY specifed for table '%s.%s' (exactly one required)", ks, name)
	}
	for i, n := range pk {
		c, ok := defined[n]
		if !ok {
			return nil, invalid("Unknown definition %s referenced in PRIMARY KEY", n)
		}
		if c.kind == kindPartitionKey || c.kind == kindClustering {
			return nil, invalid("Duplicate definition %s referenced in PRIMARY KEY", n)
		}
		if c.typ.multiCell() {
			return nil, invalid("Invalid non-frozen collection type %s for PRIMARY KEY column '%s'", c.typ.String(), n)
		}
		if c.kind == kindStatic {
			return nil, invalid("Static column %s cannot be part of the PRIMARY KEY", n)
		}
		c.kind, c.pos = kindPartitionKey, i
		t.pk = append(t.pk, c)
	}
	for i, n := range ck {
		c, ok := defined[n]
		if !ok {
			return nil, invalid("Unknown definition %s referenced in PRIMARY KEY", n)
		}
		if c.kind == kindPartitionKey || c.kind == kindClustering {
			return nil, invalid("Duplicate definition %s referenced in PRIMARY KEY", n)
		}
		if c.typ.multiCell() {
			return nil, invalid("Invalid non-frozen collection type %s for PRIMARY KEY column '%s'", c.typ.String(), n)
		}
		if c.kind == kindStatic {
			return nil, invalid("Static column %s cannot be part of the PRIMARY KEY", n)
		}
		c.kind, c.pos, c.desc = kindClustering, i, desc[n]
		t.ck = append(t.ck, c)
	}
	var notClustering []string
	for n := range desc {
		if c, ok := defined[n]; !ok || c.kind != kindClustering {
			notClustering = append(notClustering, n)
		}
	}
	if len(notClustering) > 0 {
		sort.Strings(notClustering)
		return nil, invalid("Only clustering key columns can be defined in CLUSTERING ORDER directive: [%s] are not clustering columns", strings.Join(notClustering, ", "))
	}
	for _, d := range defs {
		c := defined[d.Name]
		if c.kind == kindStatic && len(ck) == 0 {
			return nil, invalid("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
		}
		if c.kind == kindRegular || c.kind == kindStatic {
			others = append(others, c)
		}
		if c.typ.isCounter() {
			t.counter = true
		}
		if c.typ.code == kindVector && (c.kind == kindPartitionKey || c.kind == kindClustering) {
			// allowed by Cassandra; nothing special
			_ = c
		}
	}
	if t.counter {
		for _, c := range others {
			if !c.typ.isCounter() {
				return nil, invalid("Cannot mix counter and non counter columns in the same table")
			}
		}
		for _, c := range append(append([]*column{}, t.pk...), t.ck...) {
			if c.typ.isCounter() {
				return nil, invalid("counter type is not supported for PRIMARY KEY column '%s'", c.name)
			}
		}
	}
	t.setColumns(others)
	t.data = newTableData()
	return t, nil
}

// setColumns orders the columns: partition key, clustering, static then regular by name.
func (t *table) setColumns(others []*column) {
	sort.SliceStable(others, func(i, j int) bool {
		if others[i].kind != others[j].kind {
			return others[i].kind < others[j].kind
		}
		return others[i].name < others[j].name
	})
	t.cols = append(append(append([]*column{}, t.pk...), t.ck...), others...)
	t.byName = map[string]*column{}
	for i, c := range t.cols {
		c.idx = i
		t.byName[c.name] = c
	}
}

func (t *table) column(name string) (*column, error) {
	c, ok := t.byName[name]
	if !ok {
		return nil, invalid("Undefined column name %s in table %s.%s", quoteIdent(name), quoteIdent(t.ks), quoteIdent(t.name))
	}
	return c, nil
}

// replicationFrom validates and converts the replication map of CREATE/ALTER KEYSPACE. dcs
// are the cluster's data centers, prev the keyspace's replication before an ALTER (nil for a
// CREATE). As in Cassandra 4.0 and later, NetworkTopologyStrategy's replication_factor stands
// for each data center that the map does not name and, on ALTER, that the keyspace did not
// list (their factors are kept), and is not stored; a map naming no data center takes the
// previous replication_factor (an ALTER from SimpleStrategy) or 1 for every data center; a
// factor of 0 is not stored, and a data center the cluster does not have is refused unless its
// factor is 0. As in Cassandra 5.0, SimpleStrategy without a replication_factor takes the
// default keyspace factor, 1.
func replicationFrom(ks string, opts map[string]*cql.Term, dcs []string, prev map[string]string) (map[string]string, error) {
	rt, ok := opts["replication"]
	if !ok {
		return nil, invalid("Missing mandatory option 'replication'")
	}
	if rt.Kind != cql.TermMap || rt.Fields != nil {
		return nil, syntaxError("Invalid value for property 'replication'. It should be a map.")
	}
	repl := map[string]string{}
	for i := range rt.Elems {
		repl[rt.Elems[i].Text] = rt.Values[i].Text
	}
	class := repl["class"]
	switch {
	case class == "":
		return nil, configError("Missing replication strategy class")
	case strings.HasSuffix(class, "SimpleStrategy"):
		repl["class"] = "org.apache.cassandra.locator.SimpleStrategy"
		rf, ok := repl["replication_factor"]
		if !ok {
			rf = "1" // Cassandra 5.0's default_keyspace_rf (4.0 refused the statement)
			repl["replication_factor"] = rf
		}
		if n, err := strconv.Atoi(rf); err != nil {
			return nil, configError("For input string: %q", rf) // Java's NumberFormatException
		} else if n < 0 {
			return nil, configError("Replication factor must be non-negative, found %s", rf)
		}
		for k := range repl {
			if k != "class" && k != "replication_factor" {
				return nil, configError("Unrecognized strategy option {%s} passed to SimpleStrategy for keyspace %s", k, ks)
			}
		}
	case strings.HasSuffix(class, "NetworkTopologyStrategy"):
		repl["class"] = "org.apache.cassandra.locator.NetworkTopologyStrategy"
		if err := networkTopologyOptions(ks, repl, dcs, prev); err != nil {
			return nil, err
		}
	case strings.HasSuffix(class, "LocalStrategy"):
		repl["class"] = "org.apache.cassandra.locator.LocalStrategy"
	default:
		if !strings.Contains(class, ".") {
			class = "org.apache.cassandra.locator." + class
		}
		return nil, configError("Unable to find replication strategy class '%s'", class)
	}
	return repl, nil
}

// networkTopologyOptions checks and completes the NetworkTopologyStrategy map repl (see
// replicationFrom) of keyspace ks: factors in key order, then data centers in key order, so
// that the first bad one is reported every time.
func networkTopologyOptions(ks string, repl map[string]string, dcs []string, prev map[string]string) error {
	keys := make([]string, 0, len(repl))
	for k := range repl {
		if k != "class" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := repl[k]
		if n, err := strconv.Atoi(v); err != nil {
			return configError("For input string: %q", v) // Java's NumberFormatException
		} else if n < 0 {
			return configError("Replication factor must be non-negative, found %s", v)
		}
	}
	for _, k := range keys {
		if n, _ := strconv.Atoi(repl[k]); n != 0 && k != "replication_factor" && !slices.Contains(dcs, k) {
			return configError("Unrecognized strategy option {%s} passed to NetworkTopologyStrategy for keyspace %s", k, ks)
		}
	}
	rf, auto := repl["replication_factor"]
	delete(repl, "replication_factor")
	if !auto && len(repl) == 1 { // only the class: no data center named
		rf, auto = "1", true
		if p, ok := prev["replication_factor"]; ok {
			rf = p
		}
	}
	if auto {
		if strings.HasSuffix(prev["class"], "NetworkTopologyStrategy") {
			for dc, f := range prev {
				if _, named := repl[dc]; !named && dc != "class" {
					repl[dc] = f // Cassandra keeps the factors the keyspace had
				}
			}
		}
		for _, dc := range dcs {
			if _, named := repl[dc]; !named {
				repl[dc] = rf
			}
		}
	}
	for k, v := range repl {
		if n, _ := strconv.Atoi(v); k != "class" && n == 0 {
			delete(repl, k)
		}
	}
	return nil
}
