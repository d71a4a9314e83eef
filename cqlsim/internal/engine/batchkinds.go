package engine

import "github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"

// checkBatchKinds applies Cassandra 5.0's rules on what a batch of the given type may hold, in
// the order Cassandra checks them (which decides the message when several are broken): a
// batch-wide timestamp with conditions or in a COUNTER batch, then per statement a batch-wide
// timestamp with a counter update or with the statement's own timestamp and a non-counter
// statement in a COUNTER batch, then counter updates mixed with other statements and counter
// updates in a LOGGED batch. It reports whether the batch has conditions.
func checkBatchKinds(typ uint8, stmts []*modPlan, usingTS bool) (conditional bool, err error) {
	counters, nonCounters := false, false
	for _, m := range stmts {
		conditional = conditional || m.conditional()
	}
	if usingTS {
		if conditional {
			return false, invalid("Cannot provide custom timestamp for conditional BATCH")
		}
		if typ == uint8(cql.BatchCounter) {
			return false, invalid("Cannot provide custom timestamp for counter BATCH")
		}
	}
	for _, m := range stmts {
		counter := m.t.counter
		if usingTS && counter {
			return false, invalid("Cannot provide custom timestamp for a BATCH containing counters")
		}
		if usingTS && m.ts != nil {
			return false, invalid("Timestamp must be set either on BATCH or individual statements")
		}
		if typ == uint8(cql.BatchCounter) && !counter {
			return false, invalid("Cannot include non-counter statement in a counter batch")
		}
		counters = counters || counter
		nonCounters = nonCounters || !counter
	}
	if counters && nonCounters {
		return false, invalid("Counter and non-counter mutations cannot exist in the same batch")
	}
	if typ == uint8(cql.BatchLogged) && counters {
		return false, invalid("Cannot include a counter statement in a logged batch")
	}
	if conditional {
		for _, m := range stmts {
			if m.t != stmts[0].t {
				return false, invalid("Batch with conditions cannot span multiple tables")
			}
		}
	}
	return conditional, nil
}

// checkCASBatchKeys checks, statement by statement as Cassandra 5.0 does, that a batch with
// conditions writes one partition and one row per statement (or a range of rows, for a
// DELETE). An IN on the partition key fails with the server error Cassandra 5.0.9 answers.
func checkCASBatchKeys(muts []*mutation) error {
	first := muts[0]
	for _, mu := range muts {
		if len(mu.pks) != 1 {
			return &Error{Code: CodeServerError, Message: "java.lang.IllegalArgumentException: Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)"}
		}
		if string(key(mu.pks[0])) != string(key(first.pks[0])) {
			return invalid("Batch with conditions cannot span multiple partitions")
		}
		if len(mu.cks) > 1 {
			return mu.m.errClusteringIn()
		}
	}
	return nil
}

// errClusteringIn is Cassandra's refusal of an IN on the clustering columns of a conditional
// statement, or of a statement in a batch with conditions.
func (m *modPlan) errClusteringIn() error {
	what := "updates"
	if m.kind == modDelete {
		what = "deletions"
	}
	return invalid("IN on the clustering key columns is not supported with conditional %s", what)
}
