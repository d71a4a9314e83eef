package engine

import (
	"strings"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// mergeToken checks a token() relation against the token() relations before it, with
// Cassandra 5.0's messages (names are the partition key columns, "a, b"): an equality takes no
// other relation, and each bound of a slice comes once.
func (cr *colRestr) mergeToken(op cql.Operator, names string) error {
	switch {
	case cr.eq:
		return invalid("%s cannot be restricted by more than one relation if it includes an Equal", names)
	case op == cql.OpEq && (cr.start || cr.end):
		return invalid("Columns \"%s\" cannot be restricted by both an equality and an inequality relation", names)
	case op == cql.OpGt || op == cql.OpGe:
		if cr.start {
			return invalid("More than one restriction was found for the start bound on %s", names)
		}
		cr.start = true
	case op == cql.OpLt || op == cql.OpLe:
		if cr.end {
			return invalid("More than one restriction was found for the end bound on %s", names)
		}
		cr.end = true
	case op == cql.OpEq:
		cr.eq = true
	}
	return nil
}

// multiNames is how Cassandra 5.0.9 names the columns of a relation in the messages of
// mergeRestriction: the column c for a single-column relation, all of a multi-column
// relation's columns joined by " ," ("c ,d").
func multiNames(cols []*column, c *column) string {
	if len(cols) == 1 {
		return c.name
	}
	names := make([]string, len(cols))
	for i, x := range cols {
		names[i] = x.name
	}
	return strings.Join(names, " ,")
}

// filtered reports whether a relation restricts a column outside the primary key, which
// Cassandra applies as a filter: a null value there is "Unsupported".
func filtered(r *rel) bool {
	return !r.token && r.key == nil && len(r.cols) == 1 && (r.cols[0].kind == kindRegular || r.cols[0].kind == kindStatic)
}
