// Package proto holds the frames and messages of the CQL native protocol, versions 3, 4 and 5:
// encoding into pooled buffers with a single write per frame, decoding in place, lz4 and snappy
// compression, v5's checksummed segments, SASL authentication, and the protocol error codes.
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
// # Protocol v5 segments
//
// After the handshake, a v5 connection carries its frames in segments, each with a CRC24 over
// its header and a CRC32 over its payload: AppendSegments wraps encoded frames in them (lz4
// compressing each payload when the connection agreed on it), and SegmentReader returns the
// frames' bytes once a whole segment has arrived and its checksums match. SegmentReader also
// checks that the segments carry whole frames, or one frame split over consecutive segments
// that are not self-contained, and fails with an error wrapping ErrMalformed (and
// ErrSegmentChecksum, for a checksum) otherwise.
//
// # Malformed input
//
// Decoding never panics and never trusts a length or count before checking it against the
// bytes actually present: a truncated body, a negative or impossible count, an unknown kind
// or a decompressed size beyond the limit all return an error wrapping ErrMalformed or
// ErrFrameTooLarge. Fuzz targets (FuzzDecodeResponse, FuzzDecompress, FuzzSegmentReader,
// FuzzDecodeTablet) exercise this.
package proto
