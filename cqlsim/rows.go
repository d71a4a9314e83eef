package cqlsim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// Rows result flags (spec v4 §4.2.5.2).
const (
	rowsGlobalTableSpec int32 = 0x0001
	rowsHasMorePages    int32 = 0x0002
	rowsNoMetadata      int32 = 0x0004
	rowsMetadataChanged int32 = 0x0008 // v5, or useMetadataIDOption
)

// resultKindRows is the <kind> of a RESULT Rows message.
const resultKindRows int32 = 0x0002

// framePool recycles encoded frames once the writer has copied them into its write buffer.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// appendRowsFrame appends a complete RESULT Rows frame answering h to dst. It produces the same
// bytes as go-cassandra-native-protocol's codec for the same message (checked by tests) without
// building the intermediate message values: this is the hot path of every read. With noMetadata
// (an EXECUTE that asked to skip the metadata the client already has) the metadata is the column
// count alone, flagged NO_METADATA, as Cassandra answers. A non-nil newMetadataID (protocol v5,
// or ScyllaDB's useMetadataIDOption: the EXECUTE named an outdated result metadata id) is sent
// with the METADATA_CHANGED flag, so that the client replaces the metadata and id it cached.
func appendRowsFrame(dst []byte, h wire.Header, res *engine.Result, noMetadata bool, newMetadataID []byte) ([]byte, error) {
	start := len(dst)
	dst = wire.AppendHeader(dst, wire.Header{Response: true, Version: h.Version, Stream: h.Stream, Opcode: wire.OpResult}, 0)
	bodyStart := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(resultKindRows))

	cols := res.Columns
	global := !noMetadata
	for _, c := range cols {
		if c.Keyspace != cols[0].Keyspace || c.Table != cols[0].Table {
			global = false
			break
		}
	}
	var flags int32
	if global {
		flags |= rowsGlobalTableSpec
	}
	if res.PagingState != nil {
		flags |= rowsHasMorePages
	}
	if noMetadata {
		flags |= rowsNoMetadata
	}
	if newMetadataID != nil {
		flags |= rowsMetadataChanged
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(flags))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(cols)))
	if res.PagingState != nil {
		dst = appendBytes(dst, res.PagingState)
	}
	if newMetadataID != nil {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(newMetadataID)))
		dst = append(dst, newMetadataID...)
	}
	if global {
		dst = appendString(dst, cols[0].Keyspace)
		dst = appendString(dst, cols[0].Table)
	}
	var typeBuf bytes.Buffer
	for i, c := range cols {
		if noMetadata {
			break // the client has the column specs from PREPARE
		}
		if !global {
			dst = appendString(dst, c.Keyspace)
			dst = appendString(dst, c.Table)
		}
		dst = appendString(dst, c.Name)
		typeBuf.Reset()
		if err := datatype.WriteDataType(typeFor(c.Type, h.Version), &typeBuf, primitive.ProtocolVersion(h.Version)); err != nil {
			return dst[:start], fmt.Errorf("encoding the type of column %d (%s): %w", i, c.Name, err)
		}
		dst = append(dst, typeBuf.Bytes()...)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(res.Rows)))
	for i, row := range res.Rows {
		if len(row) != len(cols) {
			return dst[:start], fmt.Errorf("row %d has %d values for %d columns", i, len(row), len(cols))
		}
		for _, v := range row {
			dst = appendBytes(dst, v)
		}
	}
	binary.BigEndian.PutUint32(dst[bodyStart-4:bodyStart], uint32(len(dst)-bodyStart))
	return dst, nil
}

// appendString appends a [string].
func appendString(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// appendBytes appends [bytes]; nil is the null value (length -1).
func appendBytes(dst []byte, b []byte) []byte {
	if b == nil {
		return binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}
