package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net"
	"sort"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// systemSchema lists the built-in tables, in the column layout of Apache Cassandra 5.0.
var systemSchema = []struct {
	ks, cql string
}{
	{"system", `CREATE TABLE local (key text, bootstrapped text, broadcast_address inet, broadcast_port int,
		cluster_name text, cql_version text, data_center text, gossip_generation int, host_id uuid,
		listen_address inet, listen_port int, native_protocol_version text, partitioner text, rack text,
		release_version text, rpc_address inet, rpc_port int, schema_version uuid, tokens set<text>,
		truncated_at map<uuid, blob>, PRIMARY KEY ((key)))`},
	{"system", `CREATE TABLE peers (peer inet, data_center text, host_id uuid, preferred_ip inet, rack text,
		release_version text, rpc_address inet, schema_version uuid, tokens set<text>, PRIMARY KEY ((peer)))`},
	{"system", `CREATE TABLE peers_v2 (peer inet, peer_port int, data_center text, host_id uuid, native_address inet,
		native_port int, preferred_ip inet, preferred_port int, rack text, release_version text, schema_version uuid,
		tokens set<text>, PRIMARY KEY ((peer), peer_port))`},
	{"system_schema", `CREATE TABLE keyspaces (keyspace_name text, durable_writes boolean,
		replication frozen<map<text, text>>, PRIMARY KEY ((keyspace_name)))`},
	{"system_schema", `CREATE TABLE tables (keyspace_name text, table_name text, additional_write_policy text,
		allow_auto_snapshot boolean, bloom_filter_fp_chance double, caching frozen<map<text, text>>, cdc boolean,
		comment text, compaction frozen<map<text, text>>, compression frozen<map<text, text>>, crc_check_chance double,
		dclocal_read_repair_chance double, default_time_to_live int, extensions frozen<map<text, blob>>, flags frozen<set<text>>, gc_grace_seconds int,
		id uuid, incremental_backups boolean, max_index_interval int, memtable text, memtable_flush_period_in_ms int,
		min_index_interval int, read_repair text, read_repair_chance double, speculative_retry text,
		PRIMARY KEY ((keyspace_name), table_name))`},
	{"system_schema", `CREATE TABLE columns (keyspace_name text, table_name text, column_name text,
		clustering_order text, column_name_bytes blob, kind text, position int, type text,
		PRIMARY KEY ((keyspace_name), table_name, column_name))`},
	{"system_schema", `CREATE TABLE dropped_columns (keyspace_name text, table_name text, column_name text,
		dropped_time timestamp, kind text, type text, PRIMARY KEY ((keyspace_name), table_name, column_name))`},
	{"system_schema", `CREATE TABLE triggers (keyspace_name text, table_name text, trigger_name text,
		options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, trigger_name))`},
	{"system_schema", `CREATE TABLE views (keyspace_name text, view_name text, additional_write_policy text,
		allow_auto_snapshot boolean, base_table_id uuid, base_table_name text, bloom_filter_fp_chance double,
		caching frozen<map<text, text>>, cdc boolean, comment text, compaction frozen<map<text, text>>,
		compression frozen<map<text, text>>, crc_check_chance double, dclocal_read_repair_chance double, default_time_to_live int,
		extensions frozen<map<text, blob>>, gc_grace_seconds int, id uuid, include_all_columns boolean,
		incremental_backups boolean, max_index_interval int, memtable text, memtable_flush_period_in_ms int,
		min_index_interval int, read_repair text, read_repair_chance double, speculative_retry text, where_clause text,
		PRIMARY KEY ((keyspace_name), view_name))`},
	{"system_schema", `CREATE TABLE types (keyspace_name text, type_name text, field_names frozen<list<text>>,
		field_types frozen<list<text>>, PRIMARY KEY ((keyspace_name), type_name))`},
	{"system_schema", `CREATE TABLE functions (keyspace_name text, function_name text,
		argument_types frozen<list<text>>, argument_names frozen<list<text>>, body text, called_on_null_input boolean,
		language text, return_type text, PRIMARY KEY ((keyspace_name), function_name, argument_types))`},
	{"system_schema", `CREATE TABLE aggregates (keyspace_name text, aggregate_name text,
		argument_types frozen<list<text>>, final_func text, initcond text, return_type text, state_func text,
		state_type text, PRIMARY KEY ((keyspace_name), aggregate_name, argument_types))`},
	{"system_schema", `CREATE TABLE indexes (keyspace_name text, table_name text, index_name text, kind text,
		options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, index_name))`},
	{"system_schema", `CREATE TABLE column_masks (keyspace_name text, table_name text, column_name text,
		function_keyspace text, function_name text, function_argument_types frozen<list<text>>,
		function_argument_values frozen<list<text>>, function_argument_nulls frozen<list<boolean>>,
		PRIMARY KEY ((keyspace_name), table_name, column_name))`},
	{"system_traces", `CREATE TABLE sessions (session_id uuid, client inet, command text, coordinator inet,
		coordinator_port int, duration int, parameters map<text, text>, request text, started_at timestamp,
		PRIMARY KEY ((session_id)))`},
	{"system_traces", `CREATE TABLE events (session_id uuid, event_id timeuuid, activity text, source inet,
		source_elapsed int, source_port int, thread text, PRIMARY KEY ((session_id), event_id))`},
	{"system_virtual_schema", `CREATE TABLE keyspaces (keyspace_name text, PRIMARY KEY ((keyspace_name)))`},
	{"system_virtual_schema", `CREATE TABLE tables (keyspace_name text, table_name text, comment text,
		PRIMARY KEY ((keyspace_name), table_name))`},
	{"system_virtual_schema", `CREATE TABLE columns (keyspace_name text, table_name text, column_name text,
		clustering_order text, column_name_bytes blob, kind text, position int, type text,
		PRIMARY KEY ((keyspace_name), table_name, column_name))`},
}

func (e *Engine) installSystemKeyspaces() error {
	local := map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"}
	for _, name := range []string{"system", "system_schema", "system_virtual_schema", "system_views", "system_traces"} {
		e.keyspaces[name] = &keyspace{name: name, durable: true, replication: local, tables: map[string]*table{},
			types: map[string]*ctype{}, system: true, virtual: name == "system_virtual_schema" || name == "system_views"}
	}
	e.keyspaces["system_traces"].replication = map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "2"}
	for _, def := range systemSchema {
		p, err := cql.Parse(def.cql)
		if err != nil {
			return fmt.Errorf("cqlsim engine: system table definition: %w", err)
		}
		ct := p.Stmt.(*cql.CreateTable)
		t, err := newTable(def.ks, ct.Table.Name, ct.Columns, ct.PartitionKey, ct.Clustering, ct.ClusteringOrder, nil)
		if err != nil {
			return fmt.Errorf("cqlsim engine: system table %s.%s: %w", def.ks, ct.Table.Name, err)
		}
		if def.ks != "system_traces" { // trace tables hold real rows, written by RecordTrace
			t.virtual = systemRows(def.ks + "." + t.name)
		}
		t.isVirtualKs = def.ks == "system_virtual_schema"
		e.keyspaces[def.ks].tables[t.name] = t
	}
	return nil
}

// materialize builds a snapshot of a system table's rows as an ordinary table.
func (e *Engine) materialize(t *table, node int) *table {
	c := *t
	c.data = newTableData()
	for _, vals := range t.virtual(e, node) {
		pkv := make([][]byte, len(t.pk))
		for i, k := range t.pk {
			pkv[i] = vals[k.idx]
		}
		ckv := make([][]byte, len(t.ck))
		for i, k := range t.ck {
			ckv[i] = vals[k.idx]
		}
		p := c.getPartition(pkv, true)
		r := c.getRow(p, ckv, true)
		r.marker = cell{v: []byte{}, ts: 1, set: true}
		for _, col := range t.cols {
			if col.kind == kindRegular || col.kind == kindStatic {
				r.cells[col.idx] = cell{v: vals[col.idx], ts: 1, set: true}
			}
		}
	}
	return &c
}

func encText(s string) []byte { return []byte(s) }
func encInt(v int32) []byte   { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func encBool(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}
func encDouble(f float64) []byte { return binary.BigEndian.AppendUint64(nil, math.Float64bits(f)) }
func encInet(addr string) []byte {
	ip := net.ParseIP(addr)
	if ip == nil {
		return nil
	}
	if v4 := ip.To4(); v4 != nil {
		return []byte(v4)
	}
	return []byte(ip.To16())
}
func encTextList(items []string) []byte {
	el := make([][]byte, len(items))
	for i, s := range items {
		el[i] = []byte(s)
	}
	return encodeElems(el)
}
func encTextSet(items []string) []byte {
	s := append([]string(nil), items...)
	sort.Strings(s)
	return encTextList(s)
}
func encTextMap(m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ks := make([][]byte, len(keys))
	vs := make([][]byte, len(keys))
	for i, k := range keys {
		ks[i], vs[i] = []byte(k), []byte(m[k])
	}
	return encodeMap(ks, vs)
}

// rowOf lays out named values in the table's column order.
func rowOf(t *table, m map[string][]byte) [][]byte {
	out := make([][]byte, len(t.cols))
	for n, v := range m {
		if c, ok := t.byName[n]; ok {
			out[c.idx] = v
		}
	}
	return out
}

// nodeTokens returns the tokens of node i (evenly spaced when not configured).
func (e *Engine) nodeTokens(i int) []string {
	n := e.opts.Nodes[i]
	if len(n.Tokens) > 0 {
		return n.Tokens
	}
	count := int64(len(e.opts.Nodes))
	step := new(big.Int).Div(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(count))
	tok := new(big.Int).Add(big.NewInt(math.MinInt64), new(big.Int).Mul(step, big.NewInt(int64(i))))
	return []string{tok.String()}
}

func (e *Engine) keyspaceNames(virtual bool) []string {
	var names []string
	for n, k := range e.keyspaces {
		if k.virtual == virtual {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func tableNames(k *keyspace) []string {
	var names []string
	for n := range k.tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func columnRows(e *Engine, target *table, virtual bool) [][][]byte {
	var rows [][][]byte
	for _, kn := range e.keyspaceNames(virtual) {
		k := e.keyspaces[kn]
		for _, tn := range tableNames(k) {
			tt := k.tables[tn]
			for _, c := range tt.cols {
				order := "none"
				if c.kind == kindClustering {
					order = "asc"
					if c.desc {
						order = "desc"
					}
				}
				rows = append(rows, rowOf(target, map[string][]byte{
					"keyspace_name": encText(kn), "table_name": encText(tn), "column_name": encText(c.name),
					"clustering_order": encText(order), "column_name_bytes": []byte(c.name), "kind": encText(c.kind.String()),
					"position": encInt(int32(c.pos)), "type": encText(c.typ.String()),
				}))
			}
		}
	}
	return rows
}

// systemRows returns the row generator of a built-in table.
func systemRows(name string) func(e *Engine, node int) [][][]byte {
	return func(e *Engine, node int) [][][]byte {
		ksName, tName, _ := cutDot(name)
		t := e.keyspaces[ksName].tables[tName]
		if node < 0 || node >= len(e.opts.Nodes) {
			node = 0
		}
		// Schema versions are taken as array copies (localSchema, peerSchema): rows outlive
		// the engine lock (they are encoded after Execute returns) while a later DDL rewrites
		// e.schemaVersion.
		switch name {
		case "system.local":
			n := e.opts.Nodes[node]
			lsv := e.localSchema(node)
			return [][][]byte{rowOf(t, map[string][]byte{
				"key": encText("local"), "bootstrapped": encText("COMPLETED"), "broadcast_address": encInet(n.Addr),
				"broadcast_port": encInt(7000), "cluster_name": encText(e.opts.ClusterName), "cql_version": encText("3.4.7"),
				"data_center": encText(n.DataCenter), "gossip_generation": encInt(1700000000), "host_id": n.HostID[:],
				"listen_address": encInet(n.Addr), "listen_port": encInt(7000), "native_protocol_version": encText("5"),
				"partitioner": encText("org.apache.cassandra.dht.Murmur3Partitioner"), "rack": encText(n.Rack),
				"release_version": encText(e.opts.ReleaseVersion), "rpc_address": encInet(n.Addr),
				"rpc_port": encInt(int32(n.Port)), "schema_version": lsv[:], "tokens": encTextSet(e.nodeTokens(node)),
			})}
		case "system.peers", "system.peers_v2":
			var rows [][][]byte
			for i, n := range e.opts.Nodes {
				if i == node {
					continue
				}
				psv := e.peerSchema(i)
				rows = append(rows, rowOf(t, map[string][]byte{
					"peer": encInet(n.Addr), "peer_port": encInt(7000), "data_center": encText(n.DataCenter), "host_id": n.HostID[:],
					"rack": encText(n.Rack), "release_version": encText(e.opts.ReleaseVersion), "rpc_address": encInet(n.Addr),
					"native_address": encInet(n.Addr), "native_port": encInt(int32(n.Port)), "schema_version": psv[:],
					"tokens": encTextSet(e.nodeTokens(i)),
				}))
			}
			return rows
		case "system_schema.keyspaces":
			var rows [][][]byte
			for _, kn := range e.keyspaceNames(false) {
				k := e.keyspaces[kn]
				rows = append(rows, rowOf(t, map[string][]byte{
					"keyspace_name": encText(kn), "durable_writes": encBool(k.durable), "replication": encTextMap(k.replication),
				}))
			}
			return rows
		case "system_schema.tables":
			var rows [][][]byte
			for _, kn := range e.keyspaceNames(false) {
				k := e.keyspaces[kn]
				for _, tn := range tableNames(k) {
					tt := k.tables[tn]
					flags := []string{"compound"}
					if tt.counter {
						flags = append(flags, "counter")
					}
					rows = append(rows, rowOf(t, map[string][]byte{
						"keyspace_name": encText(kn), "table_name": encText(tn), "additional_write_policy": encText("99p"),
						"bloom_filter_fp_chance": encDouble(0.01),
						"caching":                encTextMap(map[string]string{"keys": "ALL", "rows_per_partition": "NONE"}),
						"comment":                encText(tt.comment), // cdc stays null, as on Cassandra
						"compaction": encTextMap(map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy",
							"max_threshold": "32", "min_threshold": "4"}),
						"compression":      encTextMap(map[string]string{"chunk_length_in_kb": "16", "class": "org.apache.cassandra.io.compress.LZ4Compressor"}),
						"crc_check_chance": encDouble(1), "default_time_to_live": encInt(tt.ttl), "extensions": encodeMap(nil, nil),
						"flags": encTextSet(flags), "gc_grace_seconds": encInt(864000), "id": tt.id[:],
						"max_index_interval":          encInt(2048),
						"memtable_flush_period_in_ms": encInt(0), "min_index_interval": encInt(128), "read_repair": encText("BLOCKING"),
						"speculative_retry": encText("99p"),
						// allow_auto_snapshot, cdc, incremental_backups, memtable and the read repair
						// chances stay null unless set, as on Cassandra 5
					}))
				}
			}
			return rows
		case "system_schema.columns":
			return columnRows(e, t, false)
		case "system_schema.indexes":
			return indexRows(e, t)
		case "system_schema.types":
			var rows [][][]byte
			for _, kn := range e.keyspaceNames(false) {
				k := e.keyspaces[kn]
				for _, un := range k.typeOrder {
					u := k.types[un]
					ft := make([]string, len(u.elems))
					for i, f := range u.elems {
						ft[i] = f.String()
					}
					rows = append(rows, rowOf(t, map[string][]byte{
						"keyspace_name": encText(kn), "type_name": encText(un), "field_names": encTextList(u.fields),
						"field_types": encTextList(ft),
					}))
				}
			}
			return rows
		case "system_virtual_schema.keyspaces":
			var rows [][][]byte
			for _, kn := range e.keyspaceNames(true) {
				rows = append(rows, rowOf(t, map[string][]byte{"keyspace_name": encText(kn)}))
			}
			return rows
		case "system_virtual_schema.tables":
			var rows [][][]byte
			for _, kn := range e.keyspaceNames(true) {
				for _, tn := range tableNames(e.keyspaces[kn]) {
					rows = append(rows, rowOf(t, map[string][]byte{"keyspace_name": encText(kn), "table_name": encText(tn), "comment": encText("")}))
				}
			}
			return rows
		case "system_virtual_schema.columns":
			return columnRows(e, t, true)
		}
		return nil
	}
}

func cutDot(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
