package conn

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

const (
	// writeBatchLimit stops the writer from gathering more queued frames once its buffer
	// holds this many bytes.
	writeBatchLimit = 256 << 10
	// writeBufferKeep is the largest write buffer kept between batches.
	writeBufferKeep = 1 << 20
	readBufferSize  = 64 << 10
	// readChunk bounds how much of a large frame body is allocated ahead of the bytes that
	// actually arrived, so a header claiming a huge length costs nothing until the data comes.
	readChunk = 1 << 20
)

func (c *Conn) start() {
	c.wg.Add(2)
	go c.writeLoop()
	go c.readLoop()
	if c.alwaysRead {
		c.kick()
	}
	if c.events != nil {
		go c.eventLoop()
	}
}

// Writing the socket.
//
// A caller that queues a frame then flushes the queue itself (flush), unless another goroutine
// already owns the flush, which then takes the frame too: the owner takes the write lock,
// gathers the queued frames, yielding first while other requests are in flight (see
// gatherBatch), and writes the lot with one system call. No frame is left behind: a caller
// counts its frame (queued) after queuing it, then tries to take the ownership (flushing); an
// owner lets go of it, then reads the count. Atomics being sequentially consistent, either the
// caller takes the ownership or the owner that kept it from doing so sees the frame counted.
// This saves waking a writer goroutine for every write (a hand-off between goroutines that,
// with an idle processor, also wakes that processor and its thread).
//
// A caller never waits for the network: on a plain TCP connection the owner writes what the
// socket's send buffer takes at once (rawio.Conn.TryWrite) and hands the rest, with the write
// lock and the ownership, to the connection's writer goroutine, which waits for room. Where
// there is no such non-blocking write (TLS and other net.Conns, and protocol v5 segments), the
// owner hands every write to the writer goroutine, as it gathered it.

// callerFlushes bounds the writes a caller makes in flush, so that a caller whose frame went out
// is not kept writing others' frames for as long as they keep coming: after that many, the
// flush goes on in the writer goroutine.
const callerFlushes = 2

// writeLoop is the writer goroutine: it finishes the writes handed to it (see handOff), or
// flushes when handed the ownership alone, then flushes what was queued meanwhile.
func (c *Conn) writeLoop() {
	defer c.wg.Done()
	for {
		select {
		case <-c.handoff:
		case <-c.done:
			// A write handed over as the connection failed is still ended here, so that its
			// frames are claimed and the write lock and the ownership are let go.
			c.hmu.Lock()
			c.writerGone = true
			pending := false
			select {
			case <-c.handoff:
				pending = true
			default:
			}
			c.hmu.Unlock()
			if pending {
				if c.pend != nil {
					c.writePending()
				} else {
					c.flushing.Store(false) // the sweep completes the queued frames' calls
				}
			}
			return
		}
		var ok bool
		if c.pend != nil {
			ok = c.writePending()
		} else {
			ok = c.flushQueued()
		}
		if ok {
			c.flushUpTo(-1)
		}
	}
}

// flush writes the queued frames, unless another goroutine owns the writing (and so takes
// them). It is called by a caller that queued a frame, and by an owner letting go.
func (c *Conn) flush() { c.flushUpTo(callerFlushes) }

// flushUpTo is flush making at most limit writes (no bound when limit is negative) before it hands
// the ownership to the writer goroutine.
func (c *Conn) flushUpTo(limit int) {
	for i := 0; c.queued.Load() > 0 && c.flushing.CompareAndSwap(false, true); i++ {
		if i == limit {
			c.handOff(nil, 0)
			return
		}
		if !c.flushQueued() {
			return
		}
	}
}

// flushQueued gathers the queued frames and writes them, as the owner. It reports false when
// it handed the write to the writer goroutine (which owns the writing from then on) or the
// connection failed; it lets go of the ownership otherwise.
func (c *Conn) flushQueued() bool {
	select {
	case <-c.done:
		// The sweep completes the calls of the frames still queued.
		c.flushing.Store(false)
		return false
	default:
	}
	c.wmu.Lock()
	buf := c.gatherBatch(c.wbuf[:0])
	if len(buf) == 0 {
		c.wmu.Unlock()
		c.flushing.Store(false)
		return true
	}
	c.markSent()
	if c.raw == nil || c.segmented {
		c.handOff(buf, 0)
		return false
	}
	n, err := c.raw.TryWrite(buf)
	if err == nil && n < len(buf) {
		c.handOff(buf, n)
		return false
	}
	return c.endWrite(buf, n, err)
}

// handOff passes the ownership of the writing to the writer goroutine, with the write of buf,
// of which from bytes are written, and the write lock; with a nil buf, the ownership alone,
// for the writer goroutine to flush. When the writer goroutine has ended (the connection
// failed), the write ends here as failed after from bytes.
func (c *Conn) handOff(buf []byte, from int) {
	c.hmu.Lock()
	if c.writerGone {
		c.hmu.Unlock()
		if buf == nil {
			c.flushing.Store(false) // the sweep completes the queued frames' calls
			return
		}
		c.endWrite(buf, from, net.ErrClosed)
		return
	}
	c.pend, c.pendFrom = buf, from
	c.handoff <- struct{}{} // never blocks: only the owner sends, and the writer took the last
	c.hmu.Unlock()
}

// writePending finishes the write handed over by handOff, waiting for room in the socket's
// send buffer, and reports whether it succeeded.
func (c *Conn) writePending() bool {
	buf, from := c.pend, c.pendFrom
	c.pend = nil
	var n int
	var err error
	if from == 0 {
		n, err = c.writeFrames(buf)
	} else {
		var m int
		m, err = c.w.Write(buf[from:])
		n = from + m
	}
	return c.endWrite(buf, n, err)
}

// endWrite ends the owner's write of buf, n bytes of which were sent before err: it keeps the
// buffer, lets go of the write lock and the ownership and, after a failed write, closes the
// connection, completing the calls whose frames were not sent with a *NotSentError. It
// reports whether the write succeeded.
func (c *Conn) endWrite(buf []byte, n int, err error) bool {
	var unsent []*Call
	if err != nil {
		// Claimed under wmu: a sweep, which takes wmu, cannot take them for requests in
		// flight.
		unsent = c.claimBatchUnsent(n)
	}
	if cap(buf) > writeBufferKeep {
		buf = nil
	}
	c.wbuf = buf[:0]
	c.wmu.Unlock()
	c.flushing.Store(false)
	if err != nil {
		c.failWrite(err, unsent)
		return false
	}
	return true
}

// gatherBatch starts a write: it takes the queued frames into buf and, when other requests
// are in flight or a burst is on (see reader.go), yields first to the goroutines that can
// run here, whose callers, readied by the reader, are likely about to queue frames, and
// yields again as long as a yield brought new frames, so that one write carries them all.
// This trades no timer and no idle wait for far fewer write calls under concurrency. c.wmu
// is held.
func (c *Conn) gatherBatch(buf []byte) []byte {
	c.batch = c.batch[:0]
	buf = c.gather(buf)
	if len(buf) == 0 || (c.InFlight() <= 1 && !c.burst.Load()) {
		return buf
	}
	for n := len(buf); len(buf) < writeBatchLimit; n = len(buf) {
		yield()
		if buf = c.gather(buf); len(buf) == n {
			break
		}
	}
	return buf
}

// gather appends the frames already queued to buf, without blocking, until buf holds
// writeBatchLimit bytes.
func (c *Conn) gather(buf []byte) []byte {
	for len(buf) < writeBatchLimit {
		select {
		case f := <-c.writeCh:
			c.queued.Add(-1)
			buf = c.appendFrame(buf, f)
		default:
			return buf
		}
	}
	return buf
}

// queuedFrame is a frame of the writer's current write: its offset in the write and its
// stream id.
type queuedFrame struct {
	start  int
	stream int16
}

// appendFrame appends the frame f to the writer's buffer, records it in c.batch and gives f
// back to the pool.
func (c *Conn) appendFrame(buf []byte, f *[]byte) []byte {
	c.batch = append(c.batch, queuedFrame{start: len(buf), stream: frameStream(*f)})
	buf = append(buf, *f...)
	proto.PutBuffer(f)
	return buf
}

// frameStream returns the stream id of an encoded request frame (protocol v3 and later: the
// header's bytes 2 and 3).
func frameStream(f []byte) int16 { return int16(binary.BigEndian.Uint16(f[2:4])) }

// markSent marks the calls of the writer's batch as sent (Call.sent), before the write that
// carries their frames: the frames a failed write did not carry are claimed by
// claimBatchUnsent. c.wmu is held.
func (c *Conn) markSent() {
	for _, f := range c.batch {
		if f.stream < 0 || int(f.stream) >= len(c.slots) {
			continue
		}
		if call := c.slots[f.stream].Load(); call != nil && call != interruptedSlot {
			call.sent.Store(true)
		}
	}
}

// claimBatchUnsent claims the calls of the writer's batch whose frames start at byte n or
// later, which a write that carried only the first n bytes did not send (a frame written in
// part counts as sent). c.wmu is held.
func (c *Conn) claimBatchUnsent(n int) []*Call {
	var unsent []*Call
	for _, f := range c.batch {
		if f.start >= n {
			unsent = c.claimUnsent(unsent, f.stream)
		}
	}
	return unsent
}

// failWrite closes the connection after the writer's write failed with err. The requests
// claimed by claimBatchUnsent, and those still queued for the writer, were not sent: they are
// completed with a *NotSentError, so that their callers may send them elsewhere.
func (c *Conn) failWrite(err error, unsent []*Call) {
	unsent = c.drainQueued(unsent)
	c.fail(fmt.Errorf("writing: %w", err))
	c.completeUnsent(unsent)
}

// drainQueued takes the frames still queued for the writer, which no write carried, and
// appends their calls to unsent (see claimUnsent).
func (c *Conn) drainQueued(unsent []*Call) []*Call {
	for {
		select {
		case f := <-c.writeCh:
			c.queued.Add(-1)
			unsent = c.claimUnsent(unsent, frameStream(*f))
			proto.PutBuffer(f)
		default:
			return unsent
		}
	}
}

// claimUnsent claims the call waiting on stream, whose frame was not sent, and appends it to
// unsent, to be completed by completeUnsent; it does nothing when the call completed already
// (the reader, the sweep or Interrupt claimed it).
func (c *Conn) claimUnsent(unsent []*Call, stream int16) []*Call {
	if stream < 0 || int(stream) >= len(c.slots) {
		return unsent
	}
	if call := c.slots[stream].Swap(nil); call != nil && call != interruptedSlot {
		unsent = append(unsent, call)
	}
	return unsent
}

// completeUnsent completes calls claimed by claimUnsent with a *NotSentError wrapping the
// connection's error; the connection has failed.
func (c *Conn) completeUnsent(unsent []*Call) {
	for _, call := range unsent {
		call.deliver(proto.Header{}, nil, &NotSentError{Err: c.err})
	}
}

func readError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("reading: connection closed in the middle of a frame (or, at v5, of a segment): %w", err)
	}
	if errors.Is(err, net.ErrClosed) {
		return ErrClosedByClient
	}
	return fmt.Errorf("reading: %w", err)
}

// handleEvent decodes an EVENT frame and queues it for OnEvent.
func (c *Conn) handleEvent(h proto.Header, body *[]byte) {
	if c.events == nil || h.Opcode != proto.OpEvent {
		proto.PutBuffer(body)
		return
	}
	opts := c.readerOpts.Load()
	if opts == nil {
		// Still in the handshake, which may change how frames decode: events come only after
		// a REGISTER, which follows the handshake, so none is lost in practice.
		proto.PutBuffer(body)
		return
	}
	resp := proto.AcquireResponse()
	err := resp.Decode(h, *body, body, opts)
	if err != nil {
		resp.Release()
		return
	}
	ev, ok := resp.Msg.(*proto.Event)
	if !ok {
		resp.Release()
		return
	}
	e := *ev
	resp.Release()
	select {
	case c.events <- e:
	default: // OnEvent is behind: drop rather than stall the reader.
	}
}

// eventLoop calls OnEvent for each queued event. Close does not wait for it (OnEvent may call
// Close); it exits as soon as the connection is closed.
func (c *Conn) eventLoop() {
	for {
		select {
		case e := <-c.events:
			c.cfg.OnEvent(e)
		case <-c.done:
			return
		}
	}
}

// heartbeatLoop sends OPTIONS when no frame arrived during a whole interval, and closes the
// connection when the answer does not come within timeout.
func (c *Conn) heartbeatLoop(interval, timeout time.Duration) {
	defer c.wg.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	seen := c.frames.Load()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		if n := c.frames.Load(); n != seen {
			seen = n
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		resp, err := c.Do(ctx, &proto.Options{})
		cancel()
		var er *proto.ErrorResponse
		switch {
		case err == nil:
			resp.Release()
		case c.Err() != nil:
			return
		case errors.As(err, &er):
			// The server answered, with an error (overloaded, ...): it is alive, which is
			// all a heartbeat asks.
		default:
			c.fail(fmt.Errorf("%w: OPTIONS got no answer within %s: %v", ErrHeartbeat, timeout, err))
			return
		}
		seen = c.frames.Load()
	}
}

// Probe sends OPTIONS and closes the connection, with ErrHeartbeat as the cause, when no answer
// comes within timeout, as a failed heartbeat does; ctx ending first stops the probe and leaves
// the connection as it is. It reports whether the connection is still open.
func (c *Conn) Probe(ctx context.Context, timeout time.Duration) bool {
	pctx, cancel := context.WithTimeout(ctx, timeout)
	resp, err := c.Do(pctx, &proto.Options{})
	cancel()
	var er *proto.ErrorResponse
	switch {
	case err == nil:
		resp.Release()
	case c.Err() != nil:
	case errors.As(err, &er):
		// An error answer is an answer: the node is alive.
	case ctx.Err() != nil:
	default:
		c.fail(fmt.Errorf("%w: OPTIONS got no answer within %s: %v", ErrHeartbeat, timeout, err))
	}
	return c.Err() == nil
}
