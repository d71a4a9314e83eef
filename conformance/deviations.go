package conformance

// Deviation is a scenario whose shim trace deliberately differs from legacy gocql, with the
// reason (each is listed in docs/deviations.md).
type Deviation struct {
	Scenario string
	Reason   string
}

// Deviations returns the pinned, deliberate differences between gocql v1.7.0 and the shim.
func Deviations() []Deviation {
	return []Deviation{
		{"cas/mapscancas_non_lwt", "gocql v1.7.0 panics (dest[\"[applied]\"].(bool) on a result without [applied]) when MapScanCAS runs a statement that is not conditional; the shim returns applied=false and an error (docs/deviations.md G2, legacy-semantics C24)."},
		{"tuple/into_mismatched_slice_elements", "gocql v1.7.0 panics (reflect.Set) when a tuple is unmarshalled into a slice whose element type does not fit the tuple's elements; the shim returns an UnmarshalError (docs/deviations.md G18)."},
		{"tuple/bind_marker", "gocql v1.7.0 counts one value per tuple element for a tuple bind marker: it refuses the tuple value, fails to marshal one value per element, and given the tuple value and one more reads past the bind markers and panics (index out of range); the shim takes one value per bind marker (docs/deviations.md G23)."},
		{"types/tuple", "gocql v1.7.0 refuses a tuple value for a tuple bind marker (it counts one value per tuple element: expected 3 values send got 2); the shim binds it, so the row is written and read back (docs/deviations.md G23)."},
		{"session/idempotent_nil_speculative_policy", "gocql v1.7.0 panics (nil pointer) executing an idempotent query whose speculative execution policy was set to nil; the shim runs it without speculative execution (docs/deviations.md G27)."},
		{"batch/routing_key_without_session", "gocql v1.7.0 panics (nil session) in GetRoutingKey on a batch made by the package-level NewBatch once it has an entry; the shim returns nil, nil (docs/deviations.md G28)."},
		{"session/await_schema_agreement_after_close", "gocql v1.7.0 polls a closed session until MaxWaitSchemaAgreement ends and then fails with the last query's error; the shim returns ErrSessionClosed at once (docs/deviations.md G32)."},
		{"session/host_dialer_returns_nothing", "gocql v1.7.0 panics (nil pointer) when a HostDialer returns neither a connection nor an error; the shim fails CreateSession with an error saying so (docs/deviations.md G40)."},
		{"session/proto_version_3_date", "at protocol v3 a date column is described as a custom type (SimpleDateType); gocql v1.7.0 cannot bind a time.Time to it or scan it into one, the shim binds and reads it as a date (docs/deviations.md G25)."},
		{"session/proto_version_3_unset", "gocql v1.7.0 sends UnsetValue at protocol v3, which has no unset value, and the server reads it as NULL, silently overwriting the column; the shim refuses the statement before sending it (docs/deviations.md G42)."},
		{"session/proto_version_5", "gocql v1.7.0 sends protocol v5 frames flagged beta and without v5's segment framing, so CreateSession fails on a node that speaks v5; the shim speaks v5 (docs/deviations.md G46)."},
		{"session/scylla_rate_limit_error", "gocql v1.7.0 does not opt in to ScyllaDB's rate limit error, so a node sends a statement over its partition's rate limit a CONFIG_ERROR (0x2300); the shim opts in, as scylladb/gocql does, and gets the rate limit error (0xF000) with the same message (docs/deviations.md G47)."},
		{"session/scylla_tablets_routing", "gocql v1.7.0 routes queries on a table using tablets by the token ring, so on a ScyllaDB cluster (cqlsim with tablets, one replica per partition) most reach a node without their partition's replica; the shim learns the tablets from the nodes, as scylladb/gocql does, and its token-aware policy sends every query to its tablet's replica (docs/deviations.md G48)."},
		{"session/scylla_metadata_id", "gocql v1.7.0 executes a prepared statement with the result metadata it cached, so on ScyllaDB, after the table lost a column and gained one of another type and another client prepared the statement again, it reads the new text column as the old int one (a wrong value, no error); the shim opts in to ScyllaDB's result metadata ids, as scylladb/gocql does, and reads the new columns (docs/deviations.md G49)."},
		{"iter/mapscan_nil_map", "gocql v1.7.0 panics (assignment to entry in nil map) when MapScan is given a nil map for a row; the shim returns false and Close reports the error (docs/deviations.md G41)."},
		{"iter/scanner_next_after_err", "gocql v1.7.0 panics (nil pointer) when Scanner.Next is called after Scanner.Err; the shim returns false and Err reports the misuse (docs/deviations.md G41)."},
		{"batch/execute_nil", "gocql v1.7.0 panics (nil pointer) in ExecuteBatch(nil); the shim returns an error (docs/deviations.md G41)."},
		{"session/await_schema_agreement_nil_context", "gocql v1.7.0 panics (nil pointer) in AwaitSchemaAgreement(nil); the shim takes the nil context as context.Background (docs/deviations.md G41)."},
		{"session/unsolicited_error_frame", "gocql v1.7.0 takes an ERROR on stream -1 for an event, drops it, and the statement it concerns waits for its timeout; the shim closes the connection and the statement fails at once with ErrConnectionClosed (docs/deviations.md G43)."},
		{"session/write_failed_before_sending", "gocql v1.7.0 fails a non-idempotent INSERT whose connection's write failed before a byte was written (no retry policy); the shim knows it was not sent and sends it to the next node, where it succeeds (docs/deviations.md G44)."},
		{"paging/repeated_paging_state", "gocql v1.7.0 reads the same page again and again when a node answers a page with the paging state it was sent; the shim ends the iteration after the pages the node sent, and Close reports an error wrapping native.ErrPagingStateRepeated (docs/deviations.md G60)."},
		{"tuple/nil_first_destination_then_column", "gocql v1.7.0 skips one destination only for a nil first destination of a tuple column, so the next column's value lands in the tuple's second destination and the last destination is never set (a silent wrong value); the shim skips the whole tuple (docs/deviations.md G51)."},
		{"session/policy_nil_plan", "gocql v1.7.0 panics (a call of a nil function) on every query when a custom HostSelectionPolicy's Pick returns a nil NextHost; the shim fails the query with ErrNoConnections, as for an empty plan (docs/deviations.md G54)."},
		{"session/keyspace_metadata_without_schema_events", "gocql v1.7.0 caches a keyspace's metadata until a schema event, so with DisableSchemaEvents it never sees a table created after its first KeyspaceMetadata; the shim reads the schema on every call and sees it (docs/deviations.md G56)."},
		{"cas/lwt_iter_before_and_after_scancas", "gocql v1.7.0 executes a prepared conditional statement with skip-metadata until ScanCAS sets its query to ask for metadata, and the preparation described no column, so read through Iter its row has none ([applied] and the row's values lost, no error); the shim asks for the metadata whenever the preparation described no column and reads [applied] and the row's columns before ScanCAS as after it (docs/deviations.md G65, legacy-semantics C23)."},
		{"bind/use_statement_iter_and_case", "gocql v1.7.0 sends a USE statement that starts with spaces (or a comment) to one connection of its pool, whose keyspace then changes unknown to the driver; the shim refuses it with ErrUseStmt, as gocql refuses one that starts with use, since the native core would switch the whole session (docs/deviations.md G69)."},
		{"session/unprepared_again_after_reprepare", "gocql v1.7.0 prepares a statement again and resends it for as long as a node answers UNPREPARED, so against a node that never keeps it a query spins until its context ends; the shim prepares again up to ten times and then returns the UNPREPARED error (docs/deviations.md G73)."},
		{"iter/scan_after_close", "gocql v1.7.0 panics (nil framer) when Scan is called after Close with rows left; the shim returns false (legacy-semantics C19)."},
	}
}

// Expected reports whether a difference in scenario name is a pinned deviation, and why.
func Expected(name string) (string, bool) {
	for _, d := range Deviations() {
		if d.Scenario == name {
			return d.Reason, true
		}
	}
	return "", false
}
