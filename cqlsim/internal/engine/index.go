package engine

import (
	"maps"
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
	class  string // custom index class as written in USING, "" for a legacy secondary index
	// options are the index's WITH OPTIONS, listed in system_schema.indexes beside its target
	// and class (a storage-attached index on a vector takes similarity_function).
	options map[string]string
}

// sai reports whether the index is a storage-attached index (Cassandra 5.0's SAI, which
// answers vector searches).
func (ix *index) sai() bool { return isSAIClass(ix.class) }

// isSAIClass reports whether a USING class names Cassandra's storage-attached index.
func isSAIClass(class string) bool {
	return strings.EqualFold(class, "sai") || strings.EqualFold(class, "StorageAttachedIndex") ||
		class == "org.apache.cassandra.index.sai.StorageAttachedIndex"
}

// similarityFunction is the similarity function (similarity_cosine, similarity_euclidean or
// similarity_dot_product) by which a vector search on the index orders rows: the index's
// similarity_function option, cosine by default, as in Cassandra.
func (ix *index) similarityFunction() string {
	if f := ix.options["similarity_function"]; f != "" {
		return "similarity_" + strings.ToLower(f)
	}
	return "similarity_cosine"
}

// saiOptions are the WITH OPTIONS keys Cassandra 5.0's storage-attached index understands.
var saiOptions = map[string]bool{
	"similarity_function": true, "maximum_node_connections": true, "construction_beam_width": true, "optimize_for": true,
	"case_sensitive": true, "normalize": true, "ascii": true, "index_analyzer": true, "query_analyzer": true,
}

// indexOptions reads the WITH OPTIONS of CREATE INDEX, which Cassandra refuses on a legacy
// index.
func indexOptions(st *cql.CreateIndex) (map[string]string, error) {
	raw := st.Options["options"]
	if raw == nil {
		return nil, nil
	}
	if !st.Custom && st.Using == "" {
		return nil, invalid("Cannot specify options for a non-CUSTOM index")
	}
	opts := map[string]string{}
	for i, k := range raw.Elems {
		if i < len(raw.Values) {
			opts[k.Text] = raw.Values[i].Text
		}
	}
	return opts, nil
}

// validateSAIOptions checks the options of a storage-attached index on column c as Cassandra 5.0
// does: only the options it understands, and vector options (similarity_function: cosine,
// euclidean or dot_product, in any case) only on a vector.
func validateSAIOptions(opts map[string]string, c *column) error {
	var unknown []string
	for k := range opts {
		if !saiOptions[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return configError("Properties specified [%s] are not understood by StorageAttachedIndex", strings.Join(unknown, ", "))
	}
	if f, ok := opts["similarity_function"]; ok {
		if c.typ.code != kindVector {
			return invalid("CQL type %s cannot have vector options", c.typ.plainString())
		}
		switch strings.ToUpper(f) {
		case "COSINE", "EUCLIDEAN", "DOT_PRODUCT":
		default:
			// sic: Cassandra 5.0 names no index here
			return invalid("Similarity function %s was not recognized for index null. Valid values are: EUCLIDEAN, DOT_PRODUCT, COSINE", strings.ToUpper(f))
		}
	}
	return nil
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
	case c.typ.frozen && c.typ.isCollection() && kind != "full":
		what := kind
		if what == "" {
			what = "values"
		}
		return nil, invalid("Cannot create %s() index on frozen column %s. Frozen collections are immutable and must be fully indexed by using the 'full(%s)' modifier", what, c.name, c.name)
	case kind == "full" && !(c.typ.frozen && c.typ.isCollection()):
		return nil, invalid("full() indexes can only be created on frozen collections")
	case (kind == "keys" || kind == "entries" || kind == "values") && !c.typ.isCollection():
		return nil, invalid("Cannot create %s() index on %s. Non-collection columns only support simple indexes", kind, c.name)
	case (kind == "keys" || kind == "entries") && c.typ.code != primitive.DataTypeCodeMap:
		return nil, invalid("Cannot create index on %s of column %s with non-map type", kind, c.name)
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
		ix.class = st.Using // listed as written, as Cassandra lists it
	}
	if ix.sai() && c.typ.code == kindVector && c.typ.elem.code != primitive.DataTypeCodeFloat {
		return nil, invalid("SAI ANN indexes are only allowed on vector columns with float elements")
	}
	if ix.options, err = indexOptions(st); err != nil {
		return nil, err
	}
	for _, other := range k.indexes {
		if ix.sai() && other.sai() && other.table == ix.table && other.column == ix.column && !maps.Equal(other.options, ix.options) {
			return nil, invalid("Cannot create more than one storage-attached index on the same column: %s", c.name)
		}
	}
	if ix.sai() {
		if err := validateSAIOptions(ix.options, c); err != nil {
			return nil, err
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
			for k, v := range ix.options {
				opts[k] = v
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
