// Package proto holds the frames and messages of the CQL native protocol (v4): encoding into
// pooled buffers with a single write per frame, decoding in place (values are sub-slices of the
// frame until the caller converts them), compression, and the protocol error codes.
package proto
