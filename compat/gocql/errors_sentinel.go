package gocql

import "errors"

// The sentinel errors of gocql v1.7.0, with the same messages. Compare with
// errors.Is.
var (
	// ErrNotFound is returned by Query.Scan and Query.MapScan when the result has no rows.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable is gocql's generic unavailability error. Neither gocql v1.7.0 nor the
	// shim returns it (an UNAVAILABLE answer is a *RequestErrUnavailable).
	ErrUnavailable = errors.New("unavailable")
	// ErrUnsupported is gocql's error for a feature the negotiated protocol lacks (a batch
	// at protocol v1). The shim never returns it: it refuses v1 and v2 (docs/deviations.md
	// G25), and what v3 lacks fails with an error wrapping native.ErrUnsupported.
	ErrUnsupported = errors.New("feature not supported")
	// ErrTooManyStmts is returned for a batch of more than 65535 statements.
	ErrTooManyStmts = errors.New("too many statements")
	// ErrUseStmt is returned for a USE statement run through Query.
	//lint:ignore ST1005 gocql v1.7.0's message, kept verbatim
	ErrUseStmt = errors.New("use statements aren't supported. Please see https://github.com/apache/cassandra-gocql-driver for explanation.")
	// ErrSessionClosed is returned by a closed session.
	ErrSessionClosed = errors.New("session has been closed")
	// ErrNoConnections is returned when no host could be tried.
	ErrNoConnections = errors.New("gocql: no hosts available in the pool")
	// ErrNoKeyspace is returned when a keyspace is required and none was given.
	ErrNoKeyspace = errors.New("no keyspace provided")
	// ErrKeyspaceDoesNotExist is returned for metadata of an unknown keyspace.
	ErrKeyspaceDoesNotExist = errors.New("keyspace does not exist")
	// ErrNoMetadata is returned when schema metadata is not available.
	ErrNoMetadata = errors.New("no metadata available")

	// ErrNoHosts is returned by CreateSession when the configuration has no hosts.
	ErrNoHosts = errors.New("no hosts provided")
	// ErrNoConnectionsStarted is returned when no connection could be made at session creation.
	ErrNoConnectionsStarted = errors.New("no connections were made when creating the session")
	// ErrHostQueryFailed is gocql's error for hosts that could not be discovered. Neither
	// gocql v1.7.0 nor the shim returns it.
	ErrHostQueryFailed = errors.New("unable to populate Hosts")

	// ErrQueryArgLength is gocql's error for a query given the wrong number of values.
	// Neither gocql v1.7.0 nor the shim returns it: both fail such a query with an error
	// naming the two counts.
	ErrQueryArgLength = errors.New("gocql: query argument length mismatch")
	// ErrTimeoutNoResponse is returned when an attempt got no response within ClusterConfig.Timeout.
	ErrTimeoutNoResponse = errors.New("gocql: no response received from cassandra within timeout period")
	// ErrTooManyTimeouts is gocql's error for a connection closed after more than
	// TimeoutLimit timeouts. The shim never returns it: the native core reclaims a timed-out
	// request's stream instead of closing the connection (TimeoutLimit has no effect).
	ErrTooManyTimeouts = errors.New("gocql: too many query timeouts on the connection")
	// ErrConnectionClosed is returned when the connection closed while waiting for a response.
	ErrConnectionClosed = errors.New("gocql: connection closed waiting for response")
	// ErrNoStreams is gocql's error for a connection with no free stream id. The shim never
	// returns it: the native core waits, within the query's timeout, for a free stream id.
	ErrNoStreams = errors.New("gocql: no streams available on connection")

	// ErrFrameTooBig is gocql's error for a frame longer than the protocol allows. The shim
	// never returns it (the native core's own error reports such a frame).
	ErrFrameTooBig = errors.New("frame length is bigger than the maximum allowed")

	// ErrorUDTUnavailable is returned when marshalling a user-defined type over protocol 2 or lower.
	ErrorUDTUnavailable = errors.New("UDT are not available on protocols less than 3, please update config")
)
