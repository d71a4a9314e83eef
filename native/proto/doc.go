// Package proto holds the frames and messages of the CQL native protocol (v4, with the few v5
// message fields that fit the v4 frame layout): encoding into pooled buffers with a single
// write per frame, decoding in place, lz4 and snappy compression, SASL authentication, and the
// protocol error codes.
//
// # Requests
//
// Every request message (Startup, Options, Query, Prepare, Execute, Batch, Register,
// AuthResponse) implements Request. AppendFrame appends a whole frame — header, optional
// custom payload, body — to a buffer, typically one from GetBuffer, and fills in the length
// afterwards, so a frame is built in one pass without intermediate slices. Bound values reach
// the frame through the ValueWriter interface: the caller appends each [value] straight into
// the frame buffer (see AppendValue, BeginValue and EndValue), so encoding Go values needs no
// allocation.
//
// # Responses
//
// ParseHeader validates a frame header (version, and a body length within the configured
// maximum); Response.Decode then decodes the body without copying: a RowsResult keeps its rows
// as a sub-slice of the frame and iterates them cell by cell with Next and Cell. Responses and
// their buffers are pooled (AcquireResponse, Release); the documentation of each message says
// which of its fields alias the frame. Server errors decode to *ErrorResponse, which carries
// every code-specific field (including ScyllaDB's rate limit error) and implements error.
//
// # Malformed input
//
// Decoding never panics and never trusts a length or count before checking it against the
// bytes actually present: a truncated body, a negative or impossible count, an unknown kind
// or a decompressed size beyond the limit all return an error wrapping ErrMalformed or
// ErrFrameTooLarge. Fuzz targets (FuzzDecodeResponse, FuzzDecompress) exercise this.
package proto
