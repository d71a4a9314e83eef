package native

import (
	"context"
	"slices"
	"strings"

	"github.com/cqlbridge/cqlbridge/native/internal/conn"
)

// keyFromSchema finds, for a statement prepared at protocol v3 (whose PREPARED result has no
// partition key indexes), the bind markers that supply its table's partition key, so that
// token-aware routing works at v3 too. It reads the key's columns from system_schema.columns
// on c, the connection that prepared the statement, and matches them to the markers by name,
// as gocql does at v3. m is left without indexes, and the statement routed without a token as
// before, when routing is not token-aware, when the markers do not all belong to one table,
// when a key column has no marker, or when the schema cannot be read (Cassandra 2.x has no
// system_schema). m must not be shared yet.
func (s *Session) keyFromSchema(ctx context.Context, c *conn.Conn, m *preparedMeta) {
	if s.cfg.Routing != TokenAware || len(m.pkIndexes) > 0 || len(m.params) == 0 {
		return
	}
	ks, table := m.params[0].Keyspace, m.params[0].Table
	if ks == "" || table == "" {
		return
	}
	for _, p := range m.params[1:] {
		if p.Keyspace != ks || p.Table != table {
			return
		}
	}
	res, err := s.runOn(ctx, c, "SELECT column_name, kind, position FROM system_schema.columns WHERE keyspace_name = "+
		cqlString(ks)+" AND table_name = "+cqlString(table))
	if err != nil {
		return
	}
	var key []string // the partition key's column names, by position
	for _, row := range res.Rows() {
		var name, kind string
		var pos int
		if row.Scan(&name, &kind, &pos) != nil {
			return
		}
		if kind != "partition_key" {
			continue
		}
		if pos < 0 || pos >= len(m.params) {
			return // a key longer than the markers cannot be bound by them
		}
		if pos >= len(key) {
			key = append(key, make([]string, pos+1-len(key))...)
		}
		key[pos] = name
	}
	if len(key) == 0 {
		return
	}
	indexes := make([]int, len(key))
	for i, name := range key {
		j := slices.IndexFunc(m.params, func(p Column) bool { return p.Name == name })
		if name == "" || j < 0 {
			return
		}
		indexes[i] = j
	}
	m.pkIndexes = indexes
}

// cqlString quotes s as a CQL string literal.
func cqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
