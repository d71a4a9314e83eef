package cqlsim

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// Connection states: a connection starts new, may authenticate, and then serves statements.
const (
	stateNew = iota
	stateAuthenticating
	stateReady
)

// outQueueLen bounds the frames waiting for the writer goroutine.
const outQueueLen = 256

// maxWriteBatch is how many bytes the writer coalesces into one write at most.
const maxWriteBatch = 1 << 20

// maxWorkers bounds the goroutines serving one connection's statements concurrently; further
// requests wait for a free worker (backpressure on the reader).
const maxWorkers = 128

// conn is one client connection. Its reader goroutine decodes frames and handles the handshake
// in order; statements run concurrently on worker goroutines (one request, i.e. one stream id,
// per worker at a time; workers are started on demand and kept, so their stacks stay grown);
// every response goes through the writer goroutine, which writes all frames already queued with
// one write call.
type conn struct {
	node *node
	nc   net.Conn
	log  *slog.Logger

	out  chan outFrame // encoded frames; a zero outFrame asks the writer to flush and close
	done chan struct{}
	once sync.Once
	reqs sync.WaitGroup // worker goroutines

	work     chan job     // statements for idle workers; closed by the reader when it stops
	inFlight atomic.Int32 // statements received and not yet answered

	// Owned by the reader goroutine.
	state        int
	compressor   compression.Compressor // legacy (v3, v4) frame body compression
	readSegments bool                   // set when the next frames arrive in v5 segments
	segmentsLZ4  bool                   // the v5 segments are LZ4-compressed
	inSegments   bool                   // frames arrive in v5 segments
	workers      int

	shard int // the connection's shard (Options.Shards), fixed when accepted; else 0
	// lwtMark is set when the client's STARTUP opted in to ScyllaDB's LWT mark (see
	// lwtMarkOption): PREPARED then flags conditional statements.
	lwtMark atomic.Bool
	// rateLimit is set when the client's STARTUP opted in to ScyllaDB's rate limit error
	// (see RateLimitReached).
	rateLimit atomic.Bool
	// tabletsRouting is set when the client's STARTUP opted in to ScyllaDB's tablets routing
	// (see tabletsOption): results of EXECUTEs that missed the tablet's replica then carry
	// its routing information.
	tabletsRouting atomic.Bool
	// metadataID is set when the client's STARTUP opted in to ScyllaDB's result metadata ids
	// (see useMetadataIDOption): before v5, PREPARED, EXECUTE and the rows answering it then
	// carry them as in v5.
	metadataID atomic.Bool

	version  atomic.Uint32 // the protocol version of the connection's STARTUP; 0 before it
	keyspace atomic.Pointer[string]
	events   atomic.Uint32 // bit set of registered event types (eventTopology, ...)
}

func newConn(n *node, nc net.Conn) *conn {
	return &conn{
		node: n,
		nc:   nc,
		log:  n.cluster.opts.Logger.With("node", n.addr, "client", nc.RemoteAddr().String()),
		out:  make(chan outFrame, outQueueLen),
		done: make(chan struct{}),
		work: make(chan job),
	}
}

// job is one statement request for a worker.
type job struct {
	h   wire.Header
	req *wire.Request
}

// dispatch hands a statement to an idle worker, starts a new worker when none is idle, or waits
// for one when maxWorkers are busy. Only the reader goroutine calls it.
func (c *conn) dispatch(j job) {
	c.inFlight.Add(1)
	select {
	case c.work <- j:
		return
	default:
	}
	if c.workers < maxWorkers {
		c.workers++
		c.reqs.Add(1)
		go c.worker(j)
		return
	}
	select {
	case c.work <- j:
	case <-c.done:
		c.inFlight.Add(-1)
	}
}

// worker serves its first job, then further jobs until the reader closes the work channel or the
// connection shuts down.
func (c *conn) worker(first job) {
	defer c.reqs.Done()
	c.serve(first.h, first.req)
	for {
		select {
		case j, ok := <-c.work:
			if !ok {
				return
			}
			c.serve(j.h, j.req)
		case <-c.done:
			return
		}
	}
}

// outFrame is an encoded frame queued for the writer. A pooled frame came from framePool and
// goes back there once written; other frames (events) may be shared between connections.
type outFrame struct {
	b      []byte
	pooled *[]byte
	// segments, when set, switches the connection's output to v5 segments with this codec
	// after this frame.
	segments segment.Codec
	// compress, when set, makes the writer compress the body of this frame and of every
	// later one (the answer to a STARTUP that negotiated v3/v4 compression).
	compress compression.Compressor
}

// shutdown closes the connection at once; pending frames are dropped.
func (c *conn) shutdown() {
	c.once.Do(func() {
		close(c.done)
		_ = c.nc.Close()
	})
}

// send queues an encoded frame for the writer; it returns false when the connection is closed.
func (c *conn) send(frame outFrame) bool {
	select {
	case c.out <- frame:
		return true
	case <-c.done:
		return false
	}
}

// trySend queues frame unless the queue is full or the connection is closed: events must not
// block the request that caused them on a client that does not read.
func (c *conn) trySend(frame outFrame) bool {
	select {
	case c.out <- frame:
		return true
	default:
		return false
	}
}

func (c *conn) writeLoop() {
	defer c.node.wg.Done()
	buf := make([]byte, 0, 64<<10)
	var ends []int             // end offset of each frame in buf (segment boundaries)
	var segCodec segment.Codec // non-nil once the connection uses v5 segments
	var segOut bytes.Buffer    // buf wrapped in segments
	var comp *frameCompressor  // non-nil once STARTUP negotiated frame compression
	for {
		var f outFrame
		select {
		case f = <-c.out:
		case <-c.done:
			return
		}
		if frozen := c.node.frozen.Load(); frozen != nil {
			// A frozen node (Cluster.FreezeNode) sends nothing, as a paused process.
			select {
			case <-*frozen:
			case <-c.done:
				return
			}
		}
		closing := f.b == nil
		if !closing && c.inFlight.Load() > 0 {
			// More responses are being computed: let their workers run first so that one
			// write carries them all, instead of one system call per response.
			runtime.Gosched()
		}
		buf, ends = buf[:0], ends[:0]
		var switchTo segment.Codec
		var compErr error
		add := func(f outFrame) {
			if f.compress != nil {
				comp = newFrameCompressor(f.compress)
			}
			if comp != nil && compErr == nil {
				buf, compErr = comp.appendFrame(buf, f.b)
				f.recycle()
			} else {
				buf = f.appendTo(buf)
			}
			ends = append(ends, len(buf))
			switchTo = f.segments
		}
		if !closing {
			add(f)
		}
	drain:
		for !closing && switchTo == nil && len(buf) < maxWriteBatch {
			select {
			case f = <-c.out:
				if f.b == nil {
					closing = true
					break drain
				}
				add(f)
			default:
				break drain
			}
		}
		if compErr != nil {
			c.log.Warn("cqlsim: cannot compress a response; closing connection", "err", compErr)
			c.shutdown()
			return
		}
		if len(buf) > 0 {
			out := buf
			if segCodec != nil {
				segOut.Reset()
				if err := appendSegments(&segOut, segCodec, buf, ends); err != nil {
					c.log.Warn("cqlsim: cannot encode v5 segments; closing connection", "err", err)
					c.shutdown()
					return
				}
				out = segOut.Bytes()
			}
			if _, err := c.nc.Write(out); err != nil {
				c.log.Debug("cqlsim: write failed; closing connection", "err", err)
				c.shutdown()
				return
			}
		}
		if switchTo != nil {
			// The frame that carried the switch (READY or AUTHENTICATE) went out in the legacy
			// framing; everything after it is wrapped in segments.
			segCodec = switchTo
		}
		if closing {
			c.shutdown()
			return
		}
		if cap(buf) > 4*maxWriteBatch {
			buf = make([]byte, 0, 64<<10)
		}
	}
}

// appendTo appends the frame to dst and recycles a pooled frame.
func (f outFrame) appendTo(dst []byte) []byte {
	dst = append(dst, f.b...)
	f.recycle()
	return dst
}

// recycle returns a pooled frame to framePool once its bytes have been copied out.
func (f outFrame) recycle() {
	if f.pooled != nil && cap(f.b) <= 64<<10 {
		*f.pooled = f.b[:0]
		framePool.Put(f.pooled)
	}
}

// errFatal marks a protocol error after which the connection is closed (the frame stream can no
// longer be trusted).
var errFatal = errors.New("fatal protocol error")

func (c *conn) readLoop() {
	defer c.node.wg.Done()
	defer c.node.forget(c)
	defer c.node.cluster.events.remove(c)
	br := bufio.NewReaderSize(c.nc, 64<<10)
	var src io.Reader = br
	var hdr [wire.MaxHeaderLen]byte
	for {
		err := c.readFrame(src, hdr[:])
		if err == nil && c.readSegments {
			// STARTUP of a v5 connection was answered: the client's next bytes are segments.
			src = &segmentReader{lz4: c.segmentsLZ4, src: br}
			c.readSegments = false
			c.inSegments = true
		}
		if err != nil {
			var mismatch *crcMismatch
			if errors.As(err, &mismatch) {
				// As Cassandra 5.0: a fatal PROTOCOL_ERROR on stream 0, naming the
				// connection by an id (Netty's channel id there).
				id := fmt.Sprintf("%08x", rand.Uint32())
				c.protocolError(wire.Header{Version: uint8(c.version.Load())}, mismatch.message(id))
			}
			if errors.Is(err, errFatal) {
				c.log.Debug("cqlsim: closing connection after protocol error", "err", err)
			} else if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.log.Debug("cqlsim: read failed; closing connection", "err", err)
			}
			break
		}
	}
	// Let in-flight requests answer, then have the writer flush and close.
	close(c.work)
	c.reqs.Wait()
	if !c.send(outFrame{}) {
		c.shutdown()
	}
}

// readFrame reads and handles one frame. It returns an error when the connection must close.
func (c *conn) readFrame(br io.Reader, hdr []byte) error {
	if _, err := io.ReadFull(br, hdr[:1]); err != nil {
		return err
	}
	n := wire.HeaderLen(hdr[0] & 0x7f)
	if _, err := io.ReadFull(br, hdr[1:n]); err != nil {
		return fmt.Errorf("reading frame header: %w", err)
	}
	h, err := wire.ParseHeader(hdr[:n])
	if err != nil {
		return err
	}
	if h.Length < 0 {
		// Cassandra reads the length as unsigned and waits for those gigabytes; a client that
		// sends this has lost track of its own framing.
		c.protocolError(h, fmt.Sprintf("Invalid frame body length %d", h.Length))
		return fmt.Errorf("%w: body length %d", errFatal, h.Length)
	}
	_, segmented := br.(*segmentReader)
	if msg := c.tooBig(h, segmented); msg != "" {
		return c.refuseTooBig(br, h, msg)
	}
	body, err := readBody(br, int(h.Length))
	if err != nil {
		return fmt.Errorf("reading frame body (%d bytes): %w", h.Length, err)
	}
	return c.handleFrame(h, body)
}

// readBody reads exactly n bytes, growing the buffer as data arrives so that a header claiming a
// huge body costs memory only for the bytes actually sent. Every frame gets a fresh buffer: bind
// values are passed to the engine as sub-slices of the body, and the engine may keep them.
func readBody(r io.Reader, n int) ([]byte, error) {
	const chunk = 1 << 20
	if n <= chunk {
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	b := make([]byte, 0, chunk)
	for len(b) < n {
		want := min(n-len(b), chunk)
		b = append(b, make([]byte, want)...)
		if _, err := io.ReadFull(r, b[len(b)-want:]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// tooBig returns the error message of Cassandra 5.0 for a request frame over
// Options.MaxFrameLength (its native_transport_max_frame_size), or "" when the frame is within
// it. In the legacy framing (v3, v4, and v5 before its segments start) the limit applies to
// the whole frame as sent, header included and body compressed or not; a v5 frame that
// travels in segments is measured by its body alone.
func (c *conn) tooBig(h wire.Header, segmented bool) string {
	limit := int64(c.node.cluster.opts.MaxFrameLength)
	if segmented {
		if int64(h.Length) > limit {
			return fmt.Sprintf("CQL Message of size %d bytes exceeds allowed maximum of %d bytes", h.Length, limit)
		}
		return ""
	}
	if total := int64(wire.HeaderLen(h.Version)) + int64(h.Length); total > limit {
		return fmt.Sprintf("Request is too big: length %d exceeds maximum allowed length %d.", total, limit)
	}
	return ""
}

// refuseTooBig skips the body of a frame over the limit, as it arrives, and then answers the
// frame with msg, an Invalid error on its stream, as Cassandra does; the connection goes on
// with the next frame. A frame in a version cqlsim does not serve (bytes that are no CQL
// frame, such as an HTTP request, among them) gets the refusal of that version, which
// Cassandra checks before the length, and the connection is closed: its length cannot be
// trusted.
func (c *conn) refuseTooBig(br io.Reader, h wire.Header, msg string) error {
	if maxV := uint8(c.node.cluster.opts.MaxProtocolVersion); h.Version < 3 || h.Version > maxV {
		c.unsupportedVersion(h, maxV)
		return fmt.Errorf("%w: a frame of %d bytes in protocol version %d", errFatal, h.Length, h.Version)
	}
	if _, err := io.CopyN(io.Discard, br, int64(h.Length)); err != nil {
		return fmt.Errorf("skipping a frame body over the limit (%d bytes): %w", h.Length, err)
	}
	c.log.Debug("cqlsim: request over the frame limit", "stream", h.Stream, "opcode", wire.OpcodeName(h.Opcode), "msg", msg)
	c.reply(h, &message.Invalid{ErrorMessage: msg}, nil)
	return nil
}
