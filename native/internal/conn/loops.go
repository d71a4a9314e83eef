package conn

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"syscall"
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

// writeLoop writes every queued frame: it takes one (blocking), then, holding the write lock,
// everything else already queued without blocking, yielding first while other requests are in
// flight (see below), and writes the lot with one Write call.
func (c *Conn) writeLoop() {
	defer c.wg.Done()
	buf := make([]byte, 0, 64<<10)
	for {
		var f *[]byte
		select {
		case f = <-c.writeCh:
		case <-c.done:
			return
		}
		// The write lock is taken before gathering: while another Write is in progress
		// (a caller writing its own frame), frames keep queuing and this Write takes them all.
		c.wmu.Lock()
		c.batch = c.batch[:0]
		buf = c.appendFrame(buf[:0], f)
		// Other requests in flight, or a burst (see reader.go): their callers, readied by the
		// reader, are likely about to queue frames. Yielding lets them run first, so that one write carries them all; the
		// writer yields again as long as a yield brought new frames. This trades no timer and
		// no idle wait (the writer is runnable again at once) for far fewer write calls under
		// concurrency.
		if c.InFlight() > 1 || c.burst.Load() {
			for n := len(buf); ; n = len(buf) {
				runtime.Gosched()
				if buf = c.gather(buf); len(buf) == n || len(buf) >= writeBatchLimit {
					break
				}
			}
		} else {
			buf = c.gather(buf)
		}
		c.markSent()
		n, err := c.writeFrames(buf)
		var unsent []*Call
		if err != nil {
			// Claimed under wmu: a sweep, which takes wmu, cannot take them for requests in
			// flight.
			unsent = c.claimBatchUnsent(n)
		}
		c.wmu.Unlock()
		if err != nil {
			c.failWrite(err, unsent)
			return
		}
		if cap(buf) > writeBufferKeep {
			buf = make([]byte, 0, 64<<10)
		}
	}
}

// gather appends the frames already queued to buf, without blocking, until buf holds
// writeBatchLimit bytes.
func (c *Conn) gather(buf []byte) []byte {
	for len(buf) < writeBatchLimit {
		select {
		case f := <-c.writeCh:
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
	c.fail(c.writeFailure(err))
	c.completeUnsent(unsent)
}

// resetGrace bounds how long a connection whose write was reset waits for what the server sent
// before (see writeFailure).
const resetGrace = 200 * time.Millisecond

// writeFailure returns the cause to fail the connection with after a write failed with err.
// A server that refuses a connection often says why and closes it: a TLS node that requires a
// client certificate sends an alert ("certificate required") once the client's side of the
// handshake is done (at TLS 1.3), and a write after the close is reset. What it sent is still
// to be read, and says far more than "connection reset by peer": after a reset, a goroutine
// reading meets it at once and fails the connection with it, so this waits for that (at most
// resetGrace); with no goroutine reading, this reads it, and returns a TLS alert found there.
// Only connections over TLS (Config.TLS) wait or read.
func (c *Conn) writeFailure(err error) error {
	if c.cfg.TLS == nil || !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		// Only a TLS alert is looked for: a plain connection fails at once (a Dialer's
		// connection may report a reset while its socket still reads nothing).
		return fmt.Errorf("writing: %w", err)
	}
	// With the read lock free, the read runs on its own, holding the lock until it returns: a
	// Dialer's connection might not honour the deadline, and failing the connection (which
	// closes it) ends the read. Without it (read stays nil), the goroutine reading fails the
	// connection with what it meets.
	var read chan error
	if c.rmu.TryLock() {
		read = make(chan error, 1)
		go func() {
			defer c.rmu.Unlock()
			if derr := c.nc.SetReadDeadline(time.Now().Add(resetGrace)); derr != nil {
				read <- derr
				return
			}
			c.deadlineSet = true
			var b [256]byte
			_, rerr := c.nc.Read(b[:])
			read <- rerr
		}()
	}
	t := time.NewTimer(resetGrace)
	defer t.Stop()
	select {
	case rerr := <-read:
		if op := (*net.OpError)(nil); errors.As(rerr, &op) && op.Op == "remote error" {
			return fmt.Errorf("reading: %w", rerr) // crypto/tls's error for an alert
		}
	case <-c.done:
	case <-t.C:
	}
	return fmt.Errorf("writing: %w", err)
}

// drainQueued takes the frames still queued for the writer, which no write carried, and
// appends their calls to unsent (see claimUnsent).
func (c *Conn) drainQueued(unsent []*Call) []*Call {
	for {
		select {
		case f := <-c.writeCh:
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
// Close); it exits as soon as the connection is closed, dropping the events still queued: once
// Close has returned, only the call of OnEvent in progress, if any, may still run.
func (c *Conn) eventLoop() {
	for {
		select {
		case e := <-c.events:
			// select picks at random among ready cases: an event queued before the close
			// must not be taken for one to deliver.
			select {
			case <-c.done:
				return
			default:
			}
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
