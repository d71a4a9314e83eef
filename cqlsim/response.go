package cqlsim

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// codec encodes response frames. It holds no compressor: on a connection that negotiated v3/v4
// compression the writer goroutine compresses each frame's body (see frameCompressor).
var codec = frame.NewCodec()

// encodeFrame encodes msg as a response to a request with header h (same version and stream).
// Warnings are attached for protocol v4 and later.
func encodeFrame(h wire.Header, msg message.Message, warnings []string) ([]byte, error) {
	if h.Version < 3 {
		// go-cassandra-native-protocol cannot encode v1 headers; the only message cqlsim sends in
		// v1/v2 is the protocol error rejecting them, whose body is version independent.
		e, ok := msg.(*message.ProtocolError)
		if !ok {
			return nil, fmt.Errorf("cannot encode %T in protocol v%d", msg, h.Version)
		}
		var body []byte
		body = append(body, 0, 0, 0, 0x0A)
		body = append(body, byte(len(e.ErrorMessage)>>8), byte(len(e.ErrorMessage)))
		body = append(body, e.ErrorMessage...)
		out := wire.AppendHeader(nil, wire.Header{Response: true, Version: h.Version, Stream: h.Stream, Opcode: wire.OpError}, len(body))
		return append(out, body...), nil
	}
	if e, ok := msg.(ownError); ok {
		return encodeOwnError(h, e, warnings)
	}
	if sp, ok := msg.(scyllaPrepared); ok {
		b, err := encodeFrame(h, sp.PreparedResult, warnings)
		if err == nil {
			b = sp.patch(b, h.Version)
		}
		return b, err
	}
	hdr := &frame.Header{
		IsResponse: true,
		Version:    primitive.ProtocolVersion(h.Version),
		StreamId:   h.Stream,
		OpCode:     msg.GetOpCode(),
	}
	body := &frame.Body{Message: msg}
	if len(warnings) > 0 && h.Version >= 4 {
		hdr.Flags |= primitive.HeaderFlagWarning
		body.Warnings = warnings
	}
	var buf bytes.Buffer
	if err := codec.EncodeFrame(&frame.Frame{Header: hdr, Body: body}, &buf); err != nil {
		return nil, fmt.Errorf("encoding %s response on stream %d: %w", wire.OpcodeName(byte(msg.GetOpCode())), h.Stream, err)
	}
	return buf.Bytes(), nil
}

// ownError is an ERROR message cqlsim encodes itself, one that go-cassandra-native-protocol's
// codec has no encoder for (CDCWriteFailure, CASWriteUnknown).
type ownError interface {
	message.Error
	// appendFields appends the body that follows the error code and message.
	appendFields(dst []byte) []byte
}

// encodeOwnError encodes e as the response to a request with header h (protocol v3 or
// later): the body is the warnings (v4 and later, when there are some), the error code, the
// message and e's own fields. It is the same in every version.
func encodeOwnError(h wire.Header, e ownError, warnings []string) ([]byte, error) {
	for _, s := range append([]string{e.GetErrorMessage()}, warnings...) {
		if len(s) > 0xFFFF {
			return nil, fmt.Errorf("encoding error 0x%04x on stream %d: a string of %d bytes is longer than a [string] can be", uint32(e.GetErrorCode()), h.Stream, len(s))
		}
	}
	out := wire.Header{Response: true, Version: h.Version, Stream: h.Stream, Opcode: wire.OpError}
	var body []byte
	if len(warnings) > 0 && h.Version >= 4 {
		out.Flags |= wire.FlagWarning
		body = binary.BigEndian.AppendUint16(body, uint16(len(warnings)))
		for _, w := range warnings {
			body = appendString(body, w)
		}
	}
	body = binary.BigEndian.AppendUint32(body, uint32(e.GetErrorCode()))
	body = appendString(body, e.GetErrorMessage())
	body = e.appendFields(body)
	return append(wire.AppendHeader(nil, out, len(body)), body...), nil
}

// reply encodes msg as the response to h and queues it. A message that cannot be encoded (a
// cqlsim bug, e.g. a value the codec rejects) becomes a SERVER_ERROR so the client never hangs.
func (c *conn) reply(h wire.Header, msg message.Message, warnings []string) {
	b, err := encodeFrame(h, msg, warnings)
	if err != nil {
		c.log.Warn("cqlsim: cannot encode response", "err", err)
		if b, err = encodeFrame(h, &message.ServerError{ErrorMessage: err.Error()}, nil); err != nil {
			c.shutdown()
			return
		}
	}
	c.send(outFrame{b: b})
}

// encodeResult encodes the answer to a statement request: msg, or the rows when msg is nil
// (see rowsReply), with warnings and, when payload is set, that custom payload (an encoded
// [bytes map], counted in Cluster.TabletStats). An answer that cannot be encoded becomes a
// SERVER_ERROR without the payload; when even that fails the connection is shut down and
// encodeResult returns nil.
func (c *conn) encodeResult(h wire.Header, msg message.Message, rows rowsReply, warnings []string, payload []byte) []byte {
	var (
		b   []byte
		err error
	)
	if msg == nil && rows.res != nil {
		b, err = appendRowsFrame(nil, h, rows.res, rows.noMetadata, rows.newMetadataID)
	} else {
		b, err = encodeFrame(h, msg, warnings)
	}
	if err != nil {
		c.log.Warn("cqlsim: cannot encode response", "err", err)
		if b, err = encodeFrame(h, &message.ServerError{ErrorMessage: "internal error in cqlsim: " + err.Error()}, nil); err != nil {
			c.shutdown()
			return nil
		}
		return b
	}
	if payload != nil {
		var ok bool
		if b, ok = withCustomPayload(b, payload); ok {
			c.node.cluster.tablets.payloads.Add(1)
		} else {
			c.log.Warn("cqlsim: cannot add a custom payload to a response", "opcode", wire.OpcodeName(b[4]))
		}
	}
	return b
}

// replyCompressing replies msg (the answer to STARTUP) and, when comp is non-nil, has the writer
// compress that answer and every later frame of the connection with it.
func (c *conn) replyCompressing(h wire.Header, msg message.Message, comp compression.Compressor) {
	b, err := encodeFrame(h, msg, nil)
	if err != nil {
		c.log.Warn("cqlsim: cannot encode response", "err", err)
		c.shutdown()
		return
	}
	c.send(outFrame{b: b, compress: comp})
}

// replyThenSegments replies msg in the legacy framing and switches the connection's output to v5
// segments encoded with codec for everything after it.
func (c *conn) replyThenSegments(h wire.Header, msg message.Message, codec segment.Codec) {
	b, err := encodeFrame(h, msg, nil)
	if err != nil {
		c.log.Warn("cqlsim: cannot encode response", "err", err)
		c.shutdown()
		return
	}
	c.send(outFrame{b: b, segments: codec})
}

// replyRows encodes a rows result straight into a pooled frame and queues it; with noMetadata
// without the column specs, with newMetadataID flagged METADATA_CHANGED (see appendRowsFrame).
func (c *conn) replyRows(h wire.Header, res *engine.Result, noMetadata bool, newMetadataID []byte) {
	p := framePool.Get().(*[]byte)
	b, err := appendRowsFrame((*p)[:0], h, res, noMetadata, newMetadataID)
	if err != nil {
		framePool.Put(p)
		c.log.Warn("cqlsim: cannot encode rows", "err", err)
		c.reply(h, &message.ServerError{ErrorMessage: "internal error in cqlsim: " + err.Error()}, nil)
		return
	}
	c.send(outFrame{b: b, pooled: p})
}

// protocolError replies PROTOCOL_ERROR with msg on h's stream, in h's version when cqlsim speaks
// it (or v1/v2, whose layout it can write), else in the server's highest version.
func (c *conn) protocolError(h wire.Header, msg string) {
	c.log.Debug("cqlsim: protocol error", "stream", h.Stream, "opcode", wire.OpcodeName(h.Opcode), "msg", msg)
	if maxV := uint8(c.node.cluster.opts.MaxProtocolVersion); h.Version > maxV {
		h.Version = maxV
	}
	c.reply(h, &message.ProtocolError{ErrorMessage: msg}, nil)
}

// messageStart returns the offset of the message in the response frame b (protocol v3 or
// later, uncompressed): after the header, the tracing id and the warnings, where a custom
// payload would go. It reports false when b is shorter than its flags say.
func messageStart(b []byte) (int, bool) {
	off := wire.MaxHeaderLen
	if len(b) < off {
		return 0, false
	}
	if b[1]&wire.FlagTracing != 0 {
		off += 16
	}
	if b[1]&wire.FlagWarning != 0 {
		if off+2 > len(b) {
			return 0, false
		}
		n := int(binary.BigEndian.Uint16(b[off:]))
		off += 2
		for range n {
			if off+2 > len(b) {
				return 0, false
			}
			off += 2 + int(binary.BigEndian.Uint16(b[off:]))
		}
	}
	return off, off <= len(b)
}
