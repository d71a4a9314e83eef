// Package engine is cqlsim's CQL engine: the in-memory store, the system and schema tables, and
// statement execution (the parser lives in package cql). It knows nothing of frames or
// connections; the protocol layer (package cqlsim) decodes requests, calls the engine, and
// encodes its results.
//
// Values cross the API in their protocol (v4) encoding: a nil []byte is NULL, and Unset marks an
// unset bind value. Partitions are kept in Murmur3 token order (Cassandra's x64_128 variant,
// including its signed-byte tail quirk) and rows in clustering order, so scans return rows in
// the order a real node does. Writes carry timestamps (last write wins per cell) and TTLs
// (expiry follows Options.Now). Errors are *Error values with Cassandra's codes and wording.
package engine
