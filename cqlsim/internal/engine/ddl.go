package engine

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// ddlPlan runs schema statements and USE.
type ddlPlan struct {
	basePlan
	stmt cql.Statement
	ks   string
}

func schemaResult(change, target, ks, name string) *Result {
	return &Result{Kind: ResultSchemaChange, SchemaChange: &SchemaChange{Change: change, Target: target, Keyspace: ks, Name: name}}
}

func (e *Engine) udtResolver() typeResolver {
	return func(ks, name string) (*ctype, bool) {
		k, ok := e.keyspaces[ks]
		if !ok {
			return nil, false
		}
		t, ok := k.types[name]
		return t, ok
	}
}

// keyspaceFor resolves the keyspace of a possibly qualified name.
func (e *Engine) keyspaceFor(qks, current string) (*keyspace, error) {
	return e.keyspaceForDDL(qks, current, true)
}

// keyspaceForDDL resolves a keyspace; schema statements and data statements word the
// unknown-keyspace error differently, as Cassandra 5 does.
func (e *Engine) keyspaceForDDL(qks, current string, ddl bool) (*keyspace, error) {
	ks := qks
	if ks == "" {
		ks = current
	}
	if ks == "" {
		return nil, invalid("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	k, ok := e.keyspaces[ks]
	if !ok {
		if ddl {
			return nil, invalid("Keyspace '%s' doesn't exist", ks)
		}
		return nil, invalid("keyspace %s does not exist", ks)
	}
	return k, nil
}

func userModifiable(k *keyspace) error {
	if k.system {
		return &Error{Code: CodeUnauthorized, Message: k.name + " keyspace is not user-modifiable."}
	}
	return nil
}

func (d *ddlPlan) exec(e *Engine, _ *evalCtx, _ *Request) (*Result, error) {
	switch st := d.stmt.(type) {
	case *cql.CreateIndex:
		return e.createIndex(st, d.ks)
	case *cql.DropIndex:
		return e.dropIndex(st, d.ks)
	case *cql.Use:
		if _, ok := e.keyspaces[st.Keyspace]; !ok {
			return nil, noKeyspace(st.Keyspace)
		}
		return &Result{Kind: ResultSetKeyspace, Keyspace: st.Keyspace}, nil
	case *cql.CreateKeyspace:
		if len(st.Name) > 48 {
			return nil, invalid("Keyspace name must not be more than 48 characters long (got %d characters for \"%s\")", len(st.Name), st.Name)
		}
		if _, ok := e.keyspaces[st.Name]; ok {
			if st.IfNotExists {
				return voidResult(), nil
			}
			return nil, keyspaceExists(st.Name)
		}
		repl, err := replicationFrom(st.Name, st.Options, e.dataCenters(), nil)
		if err != nil {
			return nil, err
		}
		k := &keyspace{name: st.Name, durable: true, replication: repl, tables: map[string]*table{}, types: map[string]*ctype{}}
		if dw, ok := st.Options["durable_writes"]; ok {
			k.durable = dw.Text != "false"
		}
		e.keyspaces[st.Name] = k
		e.bumpSchema()
		return schemaResult("CREATED", "KEYSPACE", st.Name, ""), nil
	case *cql.AlterKeyspace:
		k, ok := e.keyspaces[st.Name]
		if !ok {
			return nil, noKeyspace(st.Name)
		}
		if err := userModifiable(k); err != nil {
			return nil, err
		}
		if _, ok := st.Options["replication"]; ok {
			repl, err := replicationFrom(st.Name, st.Options, e.dataCenters(), k.replication)
			if err != nil {
				return nil, err
			}
			k.replication = repl
		}
		if dw, ok := st.Options["durable_writes"]; ok {
			k.durable = dw.Text != "false"
		}
		e.bumpSchema()
		return schemaResult("UPDATED", "KEYSPACE", st.Name, ""), nil
	case *cql.DropKeyspace:
		k, ok := e.keyspaces[st.Name]
		if !ok {
			if st.IfExists {
				return voidResult(), nil
			}
			return nil, invalid("Keyspace '%s' doesn't exist", st.Name)
		}
		if err := userModifiable(k); err != nil {
			return nil, err
		}
		delete(e.keyspaces, st.Name)
		e.forgetPrepared(st.Name, "")
		e.bumpSchema()
		return schemaResult("DROPPED", "KEYSPACE", st.Name, ""), nil
	case *cql.CreateTable:
		k, err := e.keyspaceFor(st.Table.Keyspace, d.ks)
		if err != nil {
			return nil, err
		}
		if err := userModifiable(k); err != nil {
			return nil, err
		}
		if _, ok := k.tables[st.Table.Name]; ok {
			if st.IfNotExists {
				return voidResult(), nil
			}
			return nil, tableExists(k.name, st.Table.Name)
		}
		if st.CompactStorage {
			return nil, invalid("Compact tables are not allowed in Cassandra starting with 4.0 version")
		}
		t, err := newTable(k.name, st.Table.Name, st.Columns, st.PartitionKey, st.Clustering, st.ClusteringOrder, e.udtResolver())
		if err != nil {
			return nil, err
		}
		for i, n := range st.OrderList {
			if i >= len(t.ck) || t.ck[i].name != n {
				return nil, invalid("The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (%s must appear before %s)", t.ck[min(i, len(t.ck)-1)].name, n)
			}
		}
		if err := applyTableOptions(t, st.Options); err != nil {
			return nil, err
		}
		t.seq = e.schemaGen
		k.tables[t.name] = t
		e.bumpSchema()
		return schemaResult("CREATED", "TABLE", k.name, t.name), nil
	case *cql.AlterTable:
		k, err := e.keyspaceFor(st.Table.Keyspace, d.ks)
		if err != nil {
			if st.IfExists {
				return voidResult(), nil
			}
			return nil, err
		}
		if err := userModifiable(k); err != nil {
			return nil, err
		}
		t, ok := k.tables[st.Table.Name]
		if !ok {
			if st.IfExists {
				return voidResult(), nil
			}
			return nil, invalid("Table '%s.%s' doesn't exist", k.name, st.Table.Name)
		}
		if st.AlterColumn != "" {
			return nil, invalid("Altering column types is no longer supported")
		}
		if len(st.Rename) > 0 {
			if err := e.renameColumns(k, t, st.Rename); err != nil {
				return nil, err
			}
			e.forgetPrepared(k.name, t.name)
			e.bumpSchema()
			return schemaResult("UPDATED", "TABLE", k.name, t.name), nil
		}
		if st.AddIfNotExists || st.DropIfExists {
			// IF [NOT] EXISTS leaves out the columns that are (not) there; with none left the
			// statement changes nothing, and says so with a void result.
			alt := *st
			// a column named twice is added once, as the second finds the first there
			seen := map[string]bool{}
			alt.Add = slices.DeleteFunc(slices.Clone(st.Add), func(d cql.ColumnDef) bool {
				skip := st.AddIfNotExists && (t.byName[d.Name] != nil || seen[d.Name])
				seen[d.Name] = true
				return skip
			})
			alt.Drop = slices.DeleteFunc(slices.Clone(st.Drop), func(n string) bool { return st.DropIfExists && t.byName[n] == nil })
			if len(alt.Add) == 0 && len(alt.Drop) == 0 {
				return voidResult(), nil
			}
			st = &alt
		}
		if err := e.alterTable(t, st); err != nil {
			return nil, err
		}
		if st.Options == nil {
			e.forgetPrepared(k.name, t.name)
		}
		e.bumpSchema()
		return schemaResult("UPDATED", "TABLE", k.name, t.name), nil
	case *cql.DropTable:
		k, err := e.keyspaceFor(st.Table.Keyspace, d.ks)
		if err != nil {
			if st.IfExists {
				return voidResult(), nil
			}
			return nil, err
		}
		if err := userModifiable(k); err != nil {
			return nil, err
		}
		if _, ok := k.tables[st.Table.Name]; !ok {
			if st.IfExists {
				return voidResult(), nil
			}
			return nil, invalid("Table '%s.%s' doesn't exist", k.name, st.Table.Name)
		}
		delete(k.tables, st.Table.Name)
		dropTableIndexes(k, st.Table.Name)
		e.forgetPrepared(k.name, st.Table.Name)
		e.bumpSchema()
		return schemaResult("DROPPED", "TABLE", k.name, st.Table.Name), nil
	case *cql.Truncate:
		t, err := e.lookupTable(st.Table, d.ks)
		if err != nil {
			return nil, err
		}
		if t.virtual != nil {
			return nil, invalid("Error during truncate: Cannot truncate virtual tables")
		}
		t.data = newTableData()
		return voidResult(), nil
	case *cql.CreateType:
		k, err := e.keyspaceFor(st.Type.Keyspace, d.ks)
		if err != nil {
			return nil, err
		}
		if err := userModifiable(k); err != nil {
			return nil, err
		}
		if _, ok := k.types[st.Type.Name]; ok {
			if st.IfNotExists {
				return voidResult(), nil
			}
			return nil, invalid("A user type with name '%s' already exists", st.Type.Name)
		}
		if _, native := nativeTypes[st.Type.Name]; native {
			return nil, invalid("Type name %s is reserved", st.Type.Name)
		}
		u := &ctype{code: primitive.DataTypeCodeUdt, ks: k.name, name: st.Type.Name}
		seen := map[string]bool{}
		for _, f := range st.Fields {
			if seen[f.Name] {
				return nil, invalid("Duplicate field name %s in type %s", f.Name, st.Type.Name)
			}
			seen[f.Name] = true
			ft, err := resolveType(f.Type, k.name, e.udtResolver(), false)
			if err != nil {
				return nil, err
			}
			if ft.isCounter() {
				return nil, invalid("A user type cannot contain counters")
			}
			u.fields = append(u.fields, f.Name)
			u.elems = append(u.elems, ft)
		}
		k.types[u.name] = u
		k.typeOrder = append(k.typeOrder, u.name)
		e.bumpSchema()
		return schemaResult("CREATED", "TYPE", k.name, u.name), nil
	case *cql.AlterType:
		k, err := e.keyspaceFor(st.Type.Keyspace, d.ks)
		if err != nil {
			return nil, err
		}
		u, ok := k.types[st.Type.Name]
		switch {
		case !ok && st.IfExists:
			return voidResult(), nil
		case !ok:
			return nil, invalid("Type %s.%s doesn't exist", k.name, st.Type.Name)
		case st.AlterField != "":
			return nil, invalid("Altering field types is no longer supported")
		case st.AddIfNotExists && slices.Contains(u.fields, st.Add[0].Name):
			return voidResult(), nil
		case len(st.Rename) > 0:
			fields := slices.Clone(u.fields)
			renamed := false
			for _, r := range st.Rename {
				i := slices.Index(u.fields, r.From)
				if i < 0 {
					if st.RenameIfExists {
						continue
					}
					return nil, invalid("Unkown field %s in user type %s.%s", r.From, k.name, u.name) // sic, Cassandra's spelling
				}
				fields[i] = r.To
				renamed = true
			}
			if !renamed {
				return voidResult(), nil
			}
			for i, f := range fields {
				if slices.Index(fields, f) != i {
					return nil, invalid("Duplicate field name %s in type %s", f, k.name) // sic: Cassandra names the keyspace
				}
			}
			nu := *u
			nu.fields = fields
			k.types[u.name] = &nu
			u = &nu
			for _, tbl := range k.tables {
				if slices.ContainsFunc(tbl.cols, func(c *column) bool { return usesUDT(c.typ, u) }) {
					e.forgetPrepared(k.name, tbl.name) // their results name the fields
				}
			}
		}
		for _, f := range st.Add {
			for _, existing := range u.fields {
				if existing == f.Name {
					return nil, invalid("Cannot add field %s to type %s.%s: a field with name %s already exists", f.Name, k.name, u.name, f.Name)
				}
			}
			ft, err := resolveType(f.Type, k.name, e.udtResolver(), false)
			if err != nil {
				return nil, err
			}
			u.fields = append(u.fields, f.Name)
			u.elems = append(u.elems, ft)
		}
		// columns (and other types) using the type see the new field
		for _, tbl := range k.tables {
			for _, c := range tbl.cols {
				c.typ = replaceUDT(c.typ, u)
			}
		}
		for name, other := range k.types {
			if other != u {
				k.types[name] = replaceUDT(other, u)
			}
		}
		e.bumpSchema()
		return schemaResult("UPDATED", "TYPE", k.name, u.name), nil
	case *cql.DropType:
		k, err := e.keyspaceFor(st.Type.Keyspace, d.ks)
		if err != nil {
			return nil, err
		}
		u, ok := k.types[st.Type.Name]
		if !ok {
			if st.IfExists {
				return voidResult(), nil
			}
			return nil, invalid("Type '%s.%s' doesn't exist", k.name, st.Type.Name)
		}
		var users []string
		names := tableNames(k)
		sort.SliceStable(names, func(i, j int) bool { return k.tables[names[i]].seq < k.tables[names[j]].seq })
		for _, tn := range names {
			for _, c := range k.tables[tn].cols {
				if usesType(c.typ, u) {
					users = append(users, tn)
					break
				}
			}
		}
		if len(users) > 0 {
			return nil, invalid("Cannot drop user type '%s.%s' as it is still used by tables %s", k.name, u.name, strings.Join(users, ", "))
		}
		delete(k.types, u.name)
		for i, n := range k.typeOrder {
			if n == u.name {
				k.typeOrder = append(k.typeOrder[:i:i], k.typeOrder[i+1:]...)
				break
			}
		}
		e.bumpSchema()
		return schemaResult("DROPPED", "TYPE", k.name, u.name), nil
	}
	return nil, unsupported("this statement")
}

func usesType(t, u *ctype) bool {
	if t == nil {
		return false
	}
	if t.code == primitive.DataTypeCodeUdt && t.ks == u.ks && t.name == u.name {
		return true
	}
	if usesType(t.elem, u) || usesType(t.key, u) || usesType(t.val, u) {
		return true
	}
	for _, e := range t.elems {
		if usesType(e, u) {
			return true
		}
	}
	return false
}

func applyTableOptions(t *table, opts map[string]*cql.Term) error {
	for name, v := range opts {
		switch name {
		case "default_time_to_live":
			n, err := strconv.Atoi(v.Text)
			if err != nil || n < 0 {
				return configError("default_time_to_live must be greater than or equal to 0 (got %s)", v.Text)
			}
			if n > 0 && t.counter {
				return invalid("Cannot set default_time_to_live on a table with counters")
			}
			t.ttl = int32(n)
		case "comment":
			t.comment = v.Text
		case "bloom_filter_fp_chance", "caching", "compaction", "compression", "crc_check_chance", "gc_grace_seconds",
			"max_index_interval", "memtable_flush_period_in_ms", "min_index_interval", "read_repair", "speculative_retry",
			"additional_write_policy", "cdc", "extensions", "memtable", "allow_auto_snapshot", "incremental_backups",
			"id", "read_repair_chance", "dclocal_read_repair_chance":
		default:
			return syntaxError("Unknown property '" + name + "'")
		}
	}
	return nil
}

func (e *Engine) alterTable(t *table, st *cql.AlterTable) error {
	if st.Options != nil {
		return applyTableOptions(t, st.Options)
	}
	for i, d := range st.Add {
		if _, ok := t.byName[d.Name]; ok || slices.ContainsFunc(st.Add[:i], func(o cql.ColumnDef) bool { return o.Name == d.Name }) {
			return invalid("Column with name '%s' already exists", d.Name)
		}
		ty, err := resolveType(d.Type, t.ks, e.udtResolver(), false)
		if err != nil {
			return err
		}
		if err := checkNested(ty); err != nil {
			return err
		}
		if d.Static && len(t.ck) == 0 {
			return invalid("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
		}
		if ty.isCounter() != t.counter {
			if t.counter {
				return configError("%s.%s: Cannot have a non counter column (\"%s\") in a counter table", t.ks, t.name, d.Name)
			}
			return configError("%s.%s: Cannot have a counter column (\"%s\") in a non counter table", t.ks, t.name, d.Name)
		}
	}
	for _, n := range st.Drop {
		c, ok := t.byName[n]
		if !ok {
			return invalid("Column %s was not found in table '%s.%s'", n, t.ks, t.name)
		}
		if c.kind == kindPartitionKey || c.kind == kindClustering {
			return invalid("Cannot drop PRIMARY KEY column %s", n)
		}
		if k := e.keyspaces[t.ks]; k != nil {
			for _, ix := range k.indexes {
				if ix.table == t.name && ix.column == n {
					return invalid("Cannot drop column %s because it has dependent secondary indexes (%s)", n, ix.name)
				}
			}
		}
	}
	var others []*column
	oldIdx := map[*column]int{}
	for _, c := range t.cols {
		oldIdx[c] = c.idx
		if c.kind == kindRegular || c.kind == kindStatic {
			drop := false
			for _, n := range st.Drop {
				drop = drop || n == c.name
			}
			if !drop {
				others = append(others, c)
			}
		}
	}
	for _, d := range st.Add {
		ty, _ := resolveType(d.Type, t.ks, e.udtResolver(), false)
		c := &column{name: d.Name, typ: ty, kind: kindRegular, pos: -1, idx: -1}
		if d.Static {
			c.kind = kindStatic
		}
		others = append(others, c)
	}
	t.setColumns(others)
	// remap stored cells to the new column indexes
	remap := func(old []cell) []cell {
		nc := make([]cell, len(t.cols))
		for _, c := range t.cols {
			if oi, ok := oldIdx[c]; ok && oi < len(old) {
				nc[c.idx] = old[oi]
			}
		}
		return nc
	}
	for _, p := range t.data.order {
		p.static = remap(p.static)
		for _, r := range p.rows {
			r.cells = remap(r.cells)
		}
	}
	return nil
}

// renameColumns renames primary key columns of t (keyspace k), as ALTER TABLE ... RENAME:
// every rename is checked against the table as it was, then all are applied.
func (e *Engine) renameColumns(k *keyspace, t *table, renames []cql.Rename) error {
	targets := map[string]bool{}
	for _, r := range renames {
		c, err := t.column(r.From)
		if err != nil {
			return err
		}
		if c.kind != kindPartitionKey && c.kind != kindClustering {
			return invalid("Cannot rename non PRIMARY KEY column %s", r.From)
		}
		if t.byName[r.To] != nil || targets[r.To] { // two renames to one name too
			return invalid("Cannot rename column %s to %s in table '%s.%s'; another column with that name already exists", r.From, r.To, k.name, t.name)
		}
		targets[r.To] = true
		for _, ix := range k.indexes {
			if ix.table == t.name && ix.column == r.From {
				return invalid("Can't rename column %s because it has dependent secondary indexes (%s)", r.From, ix.name)
			}
		}
	}
	cols := map[string]*column{}
	for _, r := range renames {
		cols[r.From] = t.byName[r.From]
	}
	for _, r := range renames {
		cols[r.From].name = r.To
	}
	var others []*column
	for _, c := range t.cols {
		if c.kind == kindRegular || c.kind == kindStatic {
			others = append(others, c)
		}
	}
	t.setColumns(others)
	return nil
}

// lookupTable resolves a table name (e.mu held).
func (e *Engine) lookupTable(n cql.QualifiedName, current string) (*table, error) {
	k, err := e.keyspaceForDDL(n.Keyspace, current, false)
	if err != nil {
		return nil, err
	}
	t, ok := k.tables[n.Name]
	if !ok {
		return nil, invalid("table %s does not exist", n.Name)
	}
	return t, nil
}
