package conn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Reading the socket.
//
// Exactly one goroutine at a time reads the socket: the one holding rmu. Usually that is the
// connection's reader goroutine (readLoop), which reads while requests are in flight and hands
// each response to its caller. A caller whose request is the only one in flight may instead
// take rmu itself and read its own response (Call.Pump): with nobody else waiting, this saves
// the reader-to-caller hand-off, two goroutine switches and the wake-up of an idle processor,
// which is most of a request's client-side latency at low concurrency.
//
// Under concurrency the pipeline can drain for a moment: the reader hands out the last
// responses of a read and nothing is in flight until those callers send again. The first of
// them would then find itself alone and write and read its own request, one system call each,
// while the others queue behind it. So a read that brings several frames at once marks a burst
// (Conn.burst), and while it lasts a lone request goes through the writer and reader goroutines,
// which batch it with the others; a read bringing a single frame ends the burst.
//
// So nobody reads while nothing is in flight, and a caller can take over at once. The reader
// goroutine is woken (kick) whenever a caller waits without reading (Call.Done, Call.Response,
// an abandoned call). A connection that stays idle for a whole idleReadInterval is read by the
// reader goroutine again, so a server that closes an idle connection is noticed within about
// two intervals. Connections that receive events (Config.OnEvent) are always read by the reader
// goroutine.
//
// Frames are read through frameReader, which keeps a partly read frame across reads: a caller
// reads with a deadline and may stop in the middle of a frame, which the next reader finishes.

const (
	// idleReadInterval is how long a connection must see no frame before the reader goroutine
	// reads it while idle.
	idleReadInterval = 100 * time.Millisecond
	// PumpSlice bounds how long Call.Pump reads in the caller's goroutine: the caller does not
	// watch its context while it reads, so a cancellation is seen at most this late. Pump
	// reads for at least half of it.
	PumpSlice = 2 * time.Millisecond
	// PumpLongSlice is PumpSlice for a caller with no context to watch, whose read only its
	// own deadline (Pump's until) has to bound: the read deadline, a runtime timer whose every
	// move wakes an idle processor, then moves about every PumpLongSlice/2 instead of every
	// PumpSlice/2.
	PumpLongSlice = 100 * time.Millisecond
)

// frameReader reads frames from the connection's buffered reader. A read that fails with a
// timeout leaves the partly read frame in place for the next call.
type frameReader struct {
	hb   [proto.HeaderSize]byte
	hn   int          // header bytes read
	h    proto.Header // parsed header, valid when hn == proto.HeaderSize
	body *[]byte      // body buffer once the header is parsed; len is the part allocated so far
	bn   int          // body bytes read
}

// isTimeout reports whether err is a read deadline passing.
func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// readFrame reads the rest of the current frame. It returns a timeout error (see isTimeout)
// when the read deadline passed first, keeping what was read.
func (c *Conn) readFrame() (proto.Header, *[]byte, error) {
	fr := &c.fr
	for fr.hn < proto.HeaderSize {
		n, err := c.br.Read(fr.hb[fr.hn:])
		fr.hn += n
		if fr.hn == proto.HeaderSize {
			break
		}
		if err != nil {
			if err == io.EOF && fr.hn > 0 {
				err = io.ErrUnexpectedEOF
			}
			return proto.Header{}, nil, err
		}
	}
	if fr.body == nil {
		h, err := proto.ParseHeader(fr.hb[:], c.maxFrame)
		if err != nil {
			if v := proto.Version(fr.hb[0] & 0x7f); fr.hb[0]&0x80 != 0 && (v == 1 || v == 2) {
				err = &oldFrameError{version: v, err: err} // see versionRefused
			}
			return proto.Header{}, nil, err
		}
		if !h.Response {
			return proto.Header{}, nil, fmt.Errorf("%w: received a %s frame without the response bit", proto.ErrMalformed, h.Opcode)
		}
		if h.Version != c.version && h.Opcode != proto.OpError {
			return proto.Header{}, nil, fmt.Errorf("%w: received a protocol v%d %s frame on a v%d connection", proto.ErrMalformed, h.Version, h.Opcode, c.version)
		}
		fr.h = h
		fr.body = proto.GetBuffer(min(h.Length, readChunk))
		*fr.body = (*fr.body)[:min(h.Length, readChunk)]
		fr.bn = 0
	}
	n := fr.h.Length
	for fr.bn < n {
		if fr.bn == len(*fr.body) {
			// Bodies above readChunk grow with the data actually received, so a header
			// claiming a huge length costs nothing until the data comes.
			grow := min(n-fr.bn, readChunk)
			if cap(*fr.body)-fr.bn < grow {
				nb := make([]byte, fr.bn, max(2*cap(*fr.body), fr.bn+grow))
				copy(nb, *fr.body)
				proto.PutBuffer(fr.body)
				fr.body = &nb
			}
			*fr.body = (*fr.body)[:fr.bn+grow]
		}
		m, err := c.br.Read((*fr.body)[fr.bn:])
		fr.bn += m
		if fr.bn == n {
			break
		}
		if m > 0 {
			// Part of a frame too large for one read arrived: count it as progress, so a
			// large response arriving slowly is not taken for a dead connection (see
			// heartbeatLoop). A frame read whole in one call never gets here.
			c.frames.Add(1)
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return proto.Header{}, nil, err
		}
	}
	h, body := fr.h, fr.body
	fr.hn, fr.body, fr.bn = 0, nil, 0
	return h, body, nil
}

// readOne reads one frame (or the rest of one) and dispatches it: events to the event loop,
// responses to the call waiting on their stream. It returns a timeout error when the read
// deadline passed first, and any other error when the connection is unusable.
func (c *Conn) readOne() error {
	fresh := c.buffered() == 0
	h, body, err := c.readFrame()
	if err != nil {
		return err
	}
	if fresh {
		// This frame came with a new read: it brought others too, or came alone.
		if burst := c.buffered() > 0; c.burst.Load() != burst {
			c.burst.Store(burst)
		}
	}
	c.frames.Add(1)
	if !c.segmented && c.version >= proto.Version5 && (h.Opcode == proto.OpReady || h.Opcode == proto.OpAuthenticate) {
		c.startSegments()
	}
	if h.Stream < 0 {
		if h.Opcode == proto.OpError {
			return c.unsolicitedError(h, body)
		}
		c.handleEvent(h, body)
		return nil
	}
	if int(h.Stream) >= len(c.slots) {
		proto.PutBuffer(body)
		return fmt.Errorf("%w: response on stream %d, beyond the %d streams in use", proto.ErrMalformed, h.Stream, len(c.slots))
	}
	call := c.slots[h.Stream].Swap(nil)
	if call == nil {
		// No request is waiting on this stream (a server bug): drop the frame.
		proto.PutBuffer(body)
		return nil
	}
	c.streams <- h.Stream
	if h.Opcode == proto.OpError && !c.segmented && c.refusedTooBig(h, *body) {
		c.nudge()
	}
	if call == interruptedSlot {
		proto.PutBuffer(body) // the late response of an interrupted call
		return nil
	}
	call.deliver(h, body, nil)
	return nil
}

// unsolicitedError decodes an ERROR frame on a negative stream id. Those ids are the server's
// own messages (EVENT); an ERROR there answers no request and reports a failure of the
// connection itself (a server may refuse the protocol version of the connection's first
// frame this way). The reader returns it, so the connection fails at once and every waiting
// call, the handshake's OPTIONS included, gets the server's message instead of waiting for
// its timeout.
func (c *Conn) unsolicitedError(h proto.Header, body *[]byte) error {
	opts := c.readerOpts.Load()
	if opts == nil {
		opts = &c.earlyOpts // during the handshake, which writes c.dopts
	}
	resp := proto.AcquireResponse()
	err := resp.Decode(h, *body, body, opts)
	if err == nil {
		err = resp.Err()
	}
	resp.Release()
	var er *proto.ErrorResponse
	if !errors.As(err, &er) {
		return fmt.Errorf("an ERROR frame on stream %d: %w", h.Stream, err)
	}
	return &UnsolicitedError{Stream: h.Stream, Version: h.Version, Server: er}
}

// failRead closes the connection after a read error and completes every pending call with
// the connection's error.
func (c *Conn) failRead(err error) {
	c.fail(readError(err))
	c.sweep()
}

// sweep completes every pending call with the connection's error: as requests in flight for
// those whose frames a write carried or is carrying (Call.sent), with a *NotSentError for the
// others (still queued for the writer, gathered by it, or started as the connection failed),
// whose callers may send them elsewhere: the socket is closed, so a frame no write had started
// on never goes out. It first waits, briefly, for a write in progress to end (see
// lockWriterBriefly), so that the frames that write did not carry are claimed as not sent by
// the writer rather than taken here for requests in flight. It runs after done is closed, so
// no new call can take a slot without seeing done (see Start); it may run more than once, and
// each call is completed exactly once.
func (c *Conn) sweep() {
	locked := c.lockWriterBriefly()
	unsent := c.drainQueued(nil)
	var inFlight []*Call
	for i := range c.slots {
		call := c.slots[i].Swap(nil)
		switch {
		case call == nil || call == interruptedSlot:
		case call.sent.Load():
			inFlight = append(inFlight, call)
		default:
			unsent = append(unsent, call)
		}
	}
	if locked {
		c.wmu.Unlock()
	}
	c.completeUnsent(unsent)
	for _, call := range inFlight {
		call.deliver(proto.Header{}, nil, c.err)
	}
}

// sweepWriteWait bounds how long a sweep waits for a write in progress to end.
const sweepWriteWait = time.Second

// lockWriterBriefly takes wmu for a sweep, waiting up to sweepWriteWait for a write in progress
// to end: the socket is closed, so a write on a real connection ends at once. It reports false
// when the write outlives the wait (a net.Conn whose Write does not end when it is closed); the
// sweep then goes on without it, taking the frames of that write for requests in flight.
func (c *Conn) lockWriterBriefly() bool {
	deadline := time.Now().Add(sweepWriteWait)
	for !c.wmu.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
	return true
}

// kick makes sure the reader goroutine reads while requests are in flight. It never blocks.
func (c *Conn) kick() {
	select {
	case c.rkick <- struct{}{}:
	default: // a kick is already pending
	}
}

// readLoop is the reader goroutine: woken by kick, it reads until nothing is in flight; after an
// idle interval it also reads an idle connection, to notice a server closing it. When reading
// fails it closes the connection and completes every pending call with its error.
func (c *Conn) readLoop() {
	defer c.wg.Done()
	defer c.sweep()
	t := time.NewTicker(idleReadInterval)
	defer t.Stop()
	seen := c.frames.Load()
	for {
		idle := false
		select {
		case <-c.rkick:
		case <-t.C:
			if n := c.frames.Load(); n != seen || c.InFlight() > 0 {
				seen = n
				continue
			}
			idle = true
		case <-c.done:
			return
		}
		if !c.readWhileNeeded(idle) {
			return
		}
		seen = c.frames.Load()
	}
}

// readWhileNeeded takes the read lock and reads frames while requests are in flight (or, when
// idle, until one frame arrives and nothing is in flight). It returns false once the
// connection has failed.
func (c *Conn) readWhileNeeded(idle bool) bool {
	if idle {
		if !c.rmu.TryLock() {
			return true // a caller is reading
		}
	} else {
		c.rmu.Lock()
	}
	if c.deadlineSet {
		// A caller read with a deadline; the reader goroutine reads without one.
		if err := c.nc.SetReadDeadline(time.Time{}); err != nil {
			c.rmu.Unlock()
			c.failRead(err)
			return false
		}
		c.deadlineSet = false
	}
	for c.alwaysRead || idle || c.InFlight() > 0 {
		if err := c.readOne(); err != nil {
			c.rmu.Unlock()
			c.failRead(err)
			return false
		}
		idle = false
	}
	c.rmu.Unlock()
	if c.InFlight() > 0 {
		// A request started after the check above and its caller may be waiting: read again.
		c.kick()
	}
	return true
}

// Pump reads the socket in the caller's goroutine until the call completes or until passes,
// when the call is the only request in flight, no other goroutine is reading and no burst is
// under way (see the top of this file); otherwise it
// returns at once. The read stops at until (or within PumpSlice, whichever is first; within
// PumpLongSlice when watch is false: the caller has no context that can end) even if the
// response has not arrived, so the caller can then watch its context: wait on Done afterwards
// in every case. Pump is an optimisation for the caller that would otherwise block on Done
// right away.
func (call *Call) Pump(until time.Time, watch bool) {
	c := call.c
	if c.alwaysRead || call.state.Load() != statePending || c.InFlight() != 1 || c.burst.Load() {
		return
	}
	if !c.rmu.TryLock() {
		return
	}
	slice := c.pumpSlice
	if !watch {
		slice = max(slice, PumpLongSlice)
	}
	// The read deadline is moved only when less than half a slice is left (or more than a
	// slice, left by a caller that had no context to watch), so most pumps reuse it: each
	// move is a runtime timer change, which wakes an idle processor.
	now := time.Now()
	dl := c.pumpDeadline
	if left := dl.Sub(now); !c.deadlineSet || left < slice/2 || left > slice {
		dl = now.Add(slice)
	}
	if !until.IsZero() && until.Before(dl) {
		dl = until
	}
	if !c.deadlineSet || !dl.Equal(c.pumpDeadline) {
		if err := c.nc.SetReadDeadline(dl); err != nil {
			c.rmu.Unlock()
			c.failRead(err)
			return
		}
		c.pumpDeadline, c.deadlineSet = dl, true
	}
	var err error
	for err == nil && call.state.Load() == statePending {
		err = c.readOne()
	}
	c.rmu.Unlock()
	switch {
	case err != nil && !isTimeout(err):
		c.failRead(err)
	case c.InFlight() > 0:
		c.kick() // requests started meanwhile, or this one is still waiting
	}
}

// Cassandra's answer to a request frame over its native_transport_max_frame_size in the
// legacy framing (v3 and v4): an INVALID error whose message starts with tooBigPrefix and
// holds tooBigMiddle ("Request is too big: length N exceeds maximum allowed length M.").
const (
	tooBigPrefix = "Request is too big: length "
	tooBigMiddle = " exceeds maximum allowed length "
)

// refusedTooBig reports whether the ERROR frame h, body is Cassandra's refusal of a request
// over its frame limit in the legacy framing. Only ERROR frames are decoded here (the
// reader otherwise leaves decoding to callers), and only those whose code, when the body is
// not compressed, is INVALID.
func (c *Conn) refusedTooBig(h proto.Header, body []byte) bool {
	if h.Flags&proto.FlagCompression == 0 && (len(body) < 4 || proto.ErrorCode(binary.BigEndian.Uint32(body)) != proto.ErrCodeInvalid) {
		return false
	}
	opts := c.readerOpts.Load()
	if opts == nil {
		return false // still in the handshake, which sends no request of that size
	}
	resp := proto.AcquireResponse()
	defer resp.Release()
	if resp.Decode(h, body, nil, opts) != nil {
		return false
	}
	er, ok := resp.Msg.(*proto.ErrorResponse)
	return ok && er.Code == proto.ErrCodeInvalid && strings.HasPrefix(er.Message, tooBigPrefix) && strings.Contains(er.Message, tooBigMiddle)
}

// nudge sends an OPTIONS whose answer is discarded, after Cassandra refused a request over
// its frame limit. Cassandra 5.0 (up to 5.0.9 at least) skips such a frame as it arrives and
// throws the refusal from its decoder once the frame's end is read, leaving the frames that
// came in the same read as that end undecoded until more bytes arrive: the requests behind
// the oversized one would wait for the next request or heartbeat. The OPTIONS is those
// bytes. It takes a stream id of its own, freed when its answer arrives, like any request;
// when none is free, more requests are in flight and their writes do the same.
func (c *Conn) nudge() {
	_, _ = c.StartNotify(&proto.Options{}, discardAnswer{})
}

// discardAnswer releases a call's answer unread (see nudge).
type discardAnswer struct{}

// CallDone releases call.
func (discardAnswer) CallDone(call *Call) { call.Release() }
