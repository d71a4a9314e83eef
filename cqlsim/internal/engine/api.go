// This file is the contract between the engine and the protocol layer. Values cross it in their
// protocol (v4) encoding: a nil []byte is NULL, and Unset marks an unset bind value.

package engine

import (
	"time"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
)

// Value is one bind value in its protocol encoding: Bytes nil is NULL; Unset marks a value the
// client left unset (protocol v4 length -2), which the statement must treat as not given.
type Value struct {
	Bytes []byte
	Unset bool
}

// NodeInfo describes one simulated node; the engine serves it in system.local (for the node
// executing the request) and system.peers / system.peers_v2 (for the others).
type NodeInfo struct {
	Addr       string   // IP address, e.g. "127.0.0.2"
	Port       int      // native port, e.g. 9042
	HostID     [16]byte // uuid
	DataCenter string   // "datacenter1" by default
	Rack       string   // "rack1" by default
	Tokens     []string // Murmur3 tokens owned by the node (decimal strings)
}

// Options configures an Engine.
type Options struct {
	Nodes          []NodeInfo
	ClusterName    string // "cqlsim" by default
	ReleaseVersion string // "5.0.0" by default (served in release_version)
	// Now returns the current time; nil means time.Now. Tests use it to drive TTL expiry.
	Now func() time.Time
	// SchemaPropagationDelay is how long, after a schema change, system.peers keeps reporting
	// the previous schema version for the other nodes (see cqlsim.Options).
	SchemaPropagationDelay time.Duration
}

// Column is one column of bind-variable or result metadata.
type Column struct {
	Keyspace string
	Table    string
	Name     string
	Type     datatype.DataType
}

// Prepared is the outcome of preparing a statement.
type Prepared struct {
	ID        []byte // stable: derived from keyspace and query text
	Query     string
	Keyspace  string   // keyspace the statement was prepared in (may be "")
	Vars      []Column // bind variables, in marker order (named markers carry their name)
	PKIndexes []uint16 // indexes into Vars of the partition key columns, in key order (v4)
	Result    []Column // result metadata (nil for statements that return no rows)
	// Conditional marks a lightweight transaction (INSERT ... IF NOT EXISTS, UPDATE or
	// DELETE ... IF ...), which ScyllaDB flags in PREPARED for drivers that ask.
	Conditional bool
	// TableKeyspace and Table name the table of a statement on one table (INSERT, UPDATE,
	// DELETE, SELECT): the keyspace is the table's own, which differs from Keyspace when the
	// query names ks.tbl. Both are "" for other statements (BATCH, DDL, USE, ...).
	TableKeyspace string
	Table         string
}

// Values are the bind values of a request: positional, or named (never both).
type Values struct {
	Positional []Value
	Named      map[string]Value
}

// Request is one statement to execute (QUERY or EXECUTE).
type Request struct {
	Node        int    // index into Options.Nodes of the node serving the request
	Keyspace    string // the connection's current keyspace (USE), or the per-query keyspace
	Query       string // used when Prepared is nil
	Prepared    *Prepared
	Values      Values
	PageSize    int32  // <= 0: no paging
	PagingState []byte // opaque, as returned in an earlier Result
	Timestamp   int64  // default timestamp in microseconds; 0 means "now"
	// Consistency is the protocol code of the consistency level (0 is ANY, 1 ONE, ...):
	// statements reject the levels Cassandra rejects for them (ANY for reads, ...).
	Consistency uint16
	Serial      uint16 // serial consistency code; 0 when the request gave none
}

// BatchRequest is a BATCH message: statements are Query strings or Prepared statements.
type BatchRequest struct {
	Node        int
	Keyspace    string
	Type        uint8 // 0 logged, 1 unlogged, 2 counter
	Statements  []Request
	Timestamp   int64
	Consistency uint16
	Serial      uint16
}

// ResultKind tells which fields of a Result are meaningful.
type ResultKind int

// The result kinds, as in the protocol's RESULT message.
const (
	ResultVoid ResultKind = iota + 1
	ResultRows
	ResultSetKeyspace
	ResultSchemaChange
)

// SchemaChange describes a DDL outcome (RESULT SCHEMA_CHANGE and the SCHEMA_CHANGE event).
type SchemaChange struct {
	Change   string // "CREATED", "UPDATED", "DROPPED"
	Target   string // "KEYSPACE", "TABLE", "TYPE"
	Keyspace string
	Name     string // table or type name; "" for keyspaces
}

// Result is the outcome of Execute or Batch. Rows results always carry at least one column.
type Result struct {
	Kind         ResultKind
	Columns      []Column   // ResultRows
	Rows         [][][]byte // ResultRows: row-major encoded values
	PagingState  []byte     // ResultRows: nil on the last page
	Keyspace     string     // ResultSetKeyspace
	SchemaChange *SchemaChange
	Warnings     []string
}

// ErrorCode is a protocol error code (0x2000 syntax, 0x2200 invalid, 0x2400 already exists, ...).
type ErrorCode int32

// Error is a CQL error as the server sends it. Fields beyond Code and Message are filled for the
// codes that carry them.
type Error struct {
	Code     ErrorCode
	Message  string
	Keyspace string // AlreadyExists
	Table    string // AlreadyExists
	ID       []byte // Unprepared
	// FunctionFailure (0x1400): the function (in Keyspace) and its argument types.
	Function string
	ArgTypes []string
	// Unavailable (0x1000): the consistency level asked for, and the replicas it needs and has.
	Consistency uint16
	Required    int32
	Alive       int32
}

// Error returns the message, as Cassandra words it.
func (e *Error) Error() string { return e.Message }
