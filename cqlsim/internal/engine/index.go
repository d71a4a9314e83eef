package engine

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// index is a secondary index. cqlsim answers indexed queries by scanning (the results and
// their order are those of Cassandra's index queries); the index only lifts the ALLOW
// FILTERING requirement for the restrictions it serves, and is listed in system_schema.indexes.
type index struct {
	name   string
	table  string
	column string
	kind   string // "", "keys", "values", "entries", "full"
	class  string // custom index class, "" for a legacy secondary index
}

func (ix *index) target() string {
	if ix.kind == "" {
		return quoteIdent(ix.column)
	}
	return ix.kind + "(" + quoteIdent(ix.column) + ")"
}

// serves reports whether the index answers a restriction with operator op on its column.
func (ix *index) serves(c *column, op cql.Operator) bool {
	if c.name != ix.column {
		return false
	}
	switch ix.kind {
	case "", "full":
		return op == cql.OpEq && !c.typ.multiCell() || (op == cql.OpContains && c.typ.multiCell() && ix.kind == "")
	case "values":
		return op == cql.OpContains
	case "keys":
		return op == cql.OpContKey
	case "entries":
		return op == opEntryEq
	}
	return false
}

// indexFor returns an index of table t serving a restriction on c, if any (e.mu held).
func (e *Engine) indexFor(t *table, c *column, op cql.Operator) *index {
	k := e.keyspaces[t.ks]
	if k == nil {
		return nil
	}
	for _, ix := range k.indexes {
		if ix.table == t.name && ix.serves(c, op) {
			return ix
		}
	}
	return nil
}

func (e *Engine) createIndex(st *cql.CreateIndex, current string) (*Result, error) {
	k, err := e.keyspaceFor(st.Table.Keyspace, current)
	if err != nil {
		return nil, err
	}
	if err := userModifiable(k); err != nil {
		return nil, err
	}
	t, ok := k.tables[st.Table.Name]
	if !ok {
		return nil, invalid("Table '%s.%s' doesn't exist", k.name, st.Table.Name)
	}
	c, err := t.column(st.Column)
	if err != nil {
		return nil, err
	}
	kind := st.Kind
	switch {
	case t.counter: // before the column's checks, as Cassandra
		return nil, invalid("Secondary indexes on counter tables aren't supported")
	case referencesDuration(c.typ):
		what := "duration columns"
		switch {
		case c.typ.isCollection():
			what = "collections containing durations"
		case c.typ.code == primitive.DataTypeCodeTuple:
			what = "tuples containing durations"
		case c.typ.code == primitive.DataTypeCodeUdt:
			what = "UDTs containing durations"
		}
		return nil, invalid("Secondary indexes are not supported on %s", what)
	case c.kind == kindPartitionKey && len(t.pk) == 1:
		return nil, invalid("Cannot create secondary index on the only partition key column %s", c.name)
	case kind == "full" && !(c.typ.frozen && c.typ.isCollection()):
		return nil, invalid("full() indexes can only be created on frozen collections")
	case (kind == "keys" || kind == "entries") && c.typ.code != primitive.DataTypeCodeMap:
		return nil, invalid("Cannot create index on %s of column %s with non-map type", kind, c.name)
	case kind == "values" && !c.typ.isCollection():
		return nil, invalid("Cannot create index on values() of column %s with non-collection type", c.name)
	case kind == "" && c.typ.isCollection() && c.typ.multiCell():
		kind = "values"
	}
	if k.indexes == nil {
		k.indexes = map[string]*index{}
	}
	name := st.Name
	if name == "" {
		// table_column_idx, then table_column_idx_1, ... when taken, as Cassandra names them
		base := t.name + "_" + c.name + "_idx"
		name = base
		for i := 1; k.indexes[name] != nil; i++ {
			name = base + "_" + strconv.Itoa(i)
		}
	}
	if _, exists := k.indexes[name]; exists {
		if st.IfNotExists {
			return voidResult(), nil
		}
		return nil, invalid("Index '%s' already exists", name)
	}
	ix := &index{name: name, table: t.name, column: c.name, kind: kind}
	if st.Custom || st.Using != "" {
		ix.class = st.Using
		if strings.EqualFold(ix.class, "sai") || strings.EqualFold(ix.class, "StorageAttachedIndex") {
			ix.class = "org.apache.cassandra.index.sai.StorageAttachedIndex"
		}
	}
	for _, other := range k.indexes {
		if other.table == ix.table && other.target() == ix.target() {
			if st.IfNotExists {
				return voidResult(), nil
			}
			return nil, invalid("Index %s is a duplicate of existing index %s", name, other.name)
		}
	}
	k.indexes[name] = ix
	e.bumpSchema()
	return schemaResult("UPDATED", "TABLE", k.name, t.name), nil
}

func (e *Engine) dropIndex(st *cql.DropIndex, current string) (*Result, error) {
	k, err := e.keyspaceFor(st.Index.Keyspace, current)
	if err != nil {
		if st.IfExists {
			return voidResult(), nil
		}
		return nil, err
	}
	ix, ok := k.indexes[st.Index.Name]
	if !ok {
		if st.IfExists {
			return voidResult(), nil
		}
		return nil, invalid("Index '%s.%s' doesn't exist'", k.name, st.Index.Name) // sic: Cassandra 5.0's stray quote
	}
	delete(k.indexes, ix.name)
	e.bumpSchema()
	return schemaResult("UPDATED", "TABLE", k.name, ix.table), nil
}

// dropTableIndexes removes the indexes of a dropped table.
func dropTableIndexes(k *keyspace, table string) {
	for name, ix := range k.indexes {
		if ix.table == table {
			delete(k.indexes, name)
		}
	}
}

// indexRows renders system_schema.indexes.
func indexRows(e *Engine, target *table) [][][]byte {
	var rows [][][]byte
	for _, kn := range e.keyspaceNames(false) {
		k := e.keyspaces[kn]
		names := make([]string, 0, len(k.indexes))
		for n := range k.indexes {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			ix := k.indexes[n]
			opts := map[string]string{"target": ix.target()}
			kind := "COMPOSITES"
			if ix.class != "" {
				kind = "CUSTOM"
				opts["class_name"] = ix.class
			}
			rows = append(rows, rowOf(target, map[string][]byte{
				"keyspace_name": encText(kn), "table_name": encText(ix.table), "index_name": encText(ix.name),
				"kind": encText(kind), "options": encTextMap(opts),
			}))
		}
	}
	return rows
}

// referencesDuration reports whether ty is duration or holds durations, which Cassandra does
// not index: as its types answer, in a list's or vector's elements, a map's values, a tuple's
// or user type's fields, but not in a set (whose elements cannot be durations, though a tuple
// holding one can: Cassandra 5.0 indexes such a set).
func referencesDuration(ty *ctype) bool {
	switch {
	case ty == nil || ty.code == primitive.DataTypeCodeSet:
		return false
	case ty.code == primitive.DataTypeCodeDuration:
		return true
	case ty.code == primitive.DataTypeCodeMap:
		return referencesDuration(ty.val)
	}
	return referencesDuration(ty.elem) || slices.ContainsFunc(ty.elems, referencesDuration)
}
