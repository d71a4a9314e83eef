package conn

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/rawio"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Defaults applied by Dial for zero Config fields.
const (
	DefaultMaxStreams        = 32768
	DefaultHeartbeatInterval = 30 * time.Second
	DefaultDialTimeout       = 10 * time.Second
	// MaxStreams is the largest number of stream ids a protocol v3+ connection can use.
	MaxStreams = 32768
	// directWriteMax is the largest frame Start writes in the caller's goroutine; it is well
	// below the smallest default TCP send buffer (net.ipv4.tcp_wmem: 16 KiB).
	directWriteMax = 4 << 10
)

// Config configures a connection. The zero value is usable: no compression, no
// authentication, plain TCP, DefaultMaxStreams, DefaultHeartbeatInterval.
type Config struct {
	// Version is the native protocol version the connection speaks: proto.Version3,
	// proto.Version4 or proto.Version5; 0 means proto.Version4. Every frame is sent with it,
	// and a response frame of another version is refused (an ERROR excepted: a server answers
	// a version it does not speak with an ERROR frame of its own version). With v5 the frames
	// after the handshake travel in segments (see segment.go), and Compression (lz4 only)
	// compresses segments instead of frames.
	Version proto.Version
	// Compression is "", "lz4" or "snappy".
	Compression string
	// Authenticator answers the server's AUTHENTICATE; nil fails the dial when the server
	// requires authentication.
	Authenticator proto.Authenticator
	// TLS, when non-nil, wraps the connection in TLS. An empty ServerName is set to the host
	// of the address.
	TLS *tls.Config
	// Keyspace, when not empty, is selected with USE after the handshake.
	Keyspace string
	// HeartbeatInterval is how often an idle connection sends OPTIONS. 0 means
	// DefaultHeartbeatInterval; a negative value disables heartbeats.
	HeartbeatInterval time.Duration
	// HeartbeatTimeout is how long a heartbeat may wait for its answer before the connection
	// is closed as dead; 0 means HeartbeatInterval.
	HeartbeatTimeout time.Duration
	// DialTimeout bounds connecting and the whole handshake; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// MaxStreams is the number of stream ids (concurrent requests), 1 to 32768; 0 means
	// DefaultMaxStreams.
	MaxStreams int
	// MaxFrameSize bounds the body of a received frame; 0 means proto.DefaultMaxFrameSize.
	MaxFrameSize int
	// StartupOptions are extra STARTUP options (e.g. DRIVER_NAME); CQL_VERSION and
	// COMPRESSION are set by Dial unless given here.
	StartupOptions map[string]string
	// CompressionFallback connects uncompressed, instead of failing the dial, when the
	// server's SUPPORTED does not list the requested compression (or lists none), as gocql
	// does.
	CompressionFallback bool
	// OnEvent receives the events the connection was registered for (see Register). It is
	// called from a goroutine of its own, one event at a time; events that arrive while 256
	// are waiting are dropped, and so are those still waiting when the connection closes
	// (only a call in progress may outlast Close). nil ignores events.
	OnEvent func(proto.Event)
	// RateLimitErrorCode is the code of ScyllaDB's rate limit error; 0 takes it from the
	// SCYLLA_RATE_LIMIT_ERROR option of SUPPORTED, else proto.ErrCodeRateLimit.
	RateLimitErrorCode proto.ErrorCode
	// Dialer opens the network connection (TLS, when set, runs over it); nil uses a
	// net.Dialer. Its context lasts as long as the connection; a dial that outlives
	// DialTimeout is abandoned (see dialCustom).
	Dialer func(ctx context.Context, network, addr string) (net.Conn, error)
	// Port, when not 0, is the port connected to instead of the address's own (a ScyllaDB
	// node's shard-aware port); the address still names the connection (Addr). Only without
	// Dialer.
	Port int
	// LocalPort, when not 0, is the connection's local (source) port, which a ScyllaDB
	// node's shard-aware port maps to a shard. Only without Dialer; a port in use fails the
	// dial's "connect" step with an error matching syscall.EADDRINUSE.
	LocalPort int
}

// Conn is one connection to a CQL server. Its methods are safe for concurrent use.
type Conn struct {
	addr    string
	cfg     Config
	nc      net.Conn
	version proto.Version
	comp    proto.Compressor // compresses requests; set once the handshake agreed on it
	dopts   proto.DecodeOptions
	// readerOpts is dopts for the reader goroutine's own decoding (EVENT frames, and ERROR
	// frames on a negative stream): the handshake writes dopts while the reader runs, so the
	// reader uses earlyOpts (dopts as newConn made it) until Dial publishes the final copy here.
	readerOpts atomic.Pointer[proto.DecodeOptions]
	earlyOpts  proto.DecodeOptions

	supported map[string][]string
	lwtMask   uint32                 // see LWTMask; set by the handshake
	tablets   bool                   // see TabletRouting; set by the handshake
	keyspace  atomic.Pointer[string] // the keyspace of the last USE seen on this connection
	// metadataID is set by the handshake when it opted in to ScyllaDB's result metadata ids
	// before v5 (see MetadataID): EXECUTE is then encoded with its result metadata id.
	metadataID bool

	streams chan int16 // free stream ids
	slots   []atomic.Pointer[Call]
	writeCh chan *[]byte
	// batch lists the frames of the writer's current write, by their offset in it: when the
	// write fails, those it did not reach were not sent (see failWrite). The writer
	// goroutine's alone.
	batch []queuedFrame
	// wmu is held around every Write to nc, by the writer goroutine or by a caller writing its
	// own frame (see Start), so frames never interleave.
	wmu sync.Mutex
	w   io.Writer   // writes to nc: a rawio.Conn for TCP on Linux, else nc itself
	raw *rawio.Conn // nc's rawio.Conn, nil when there is none
	// segmented is set (under wmu and rmu, once) when a protocol v5 connection's handshake
	// reaches READY or AUTHENTICATE: from then on frames travel in segments (see segment.go).
	segmented bool
	// segCompress says that the segments are lz4-compressed: set by the handshake before
	// STARTUP, read by the reader when it switches to segments and by every segmented write.
	segCompress atomic.Bool
	segBuf      []byte        // the writer's segments, under wmu
	frames      atomic.Uint64 // frames (and parts of large frames) read, for idle detection
	// burst reports that the last read of the socket brought several frames at once: other
	// callers are about to send, so a request alone in flight is not written or read by its
	// caller but left to the writer and reader goroutines, which batch it with the others.
	burst atomic.Bool

	// rmu is held by the goroutine reading the socket: the reader goroutine or a caller in
	// Pump (see reader.go). br, segReader, segSrc, fr and deadlineSet are used only under it.
	rmu          sync.Mutex
	br           *bufio.Reader
	segReader    *proto.SegmentReader // with segments: what br reads (see segment.go)
	segSrc       *bufio.Reader        // with segments: the socket's buffer, what segReader reads
	fr           frameReader
	deadlineSet  bool          // a read deadline may be set on nc
	pumpDeadline time.Time     // the read deadline set by the last Pump
	rkick        chan struct{} // wakes the reader goroutine
	alwaysRead   bool          // events are expected: the reader goroutine always reads
	pumpSlice    time.Duration // PumpSlice; tests lengthen it
	events       chan proto.Event
	maxFrame     int

	done      chan struct{}
	closeOnce sync.Once
	release   func() // ends the custom dialer's context (see dialCustom); nil for none
	err       error  // set before done is closed
	wg        sync.WaitGroup
}

func newConn(nc net.Conn, addr string, cfg Config) (*Conn, error) {
	version := cfg.Version
	if version == 0 {
		version = proto.Version4
	}
	c := &Conn{
		addr:      addr,
		cfg:       cfg,
		nc:        nc,
		version:   version,
		streams:   make(chan int16, cfg.MaxStreams),
		slots:     make([]atomic.Pointer[Call], cfg.MaxStreams),
		writeCh:   make(chan *[]byte, cfg.MaxStreams),
		maxFrame:  cfg.MaxFrameSize,
		done:      make(chan struct{}),
		rkick:     make(chan struct{}, 1),
		pumpSlice: PumpSlice,
	}
	for i := 0; i < cfg.MaxStreams; i++ {
		c.streams <- int16(i)
	}
	var rd io.Reader = nc
	c.w = nc
	if raw := rawio.New(nc); raw != nil {
		rd, c.w, c.raw = raw, raw, raw
	}
	c.br = bufio.NewReaderSize(rd, readBufferSize)
	c.dopts.MaxBodySize = cfg.MaxFrameSize
	c.dopts.RateLimitCode = cfg.RateLimitErrorCode
	if cfg.Compression != "" {
		comp, err := proto.NewCompressor(cfg.Compression)
		if err != nil {
			return nil, err
		}
		c.dopts.Compressor = comp
	}
	c.earlyOpts = c.dopts
	if cfg.OnEvent != nil {
		c.events = make(chan proto.Event, 256)
		c.alwaysRead = true
	}
	return c, nil
}

func (cfg Config) withDefaults() (Config, error) {
	if cfg.MaxStreams == 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	if cfg.MaxStreams < 1 || cfg.MaxStreams > MaxStreams {
		return cfg, fmt.Errorf("conn: MaxStreams %d out of range 1..%d", cfg.MaxStreams, MaxStreams)
	}
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if cfg.HeartbeatTimeout <= 0 {
		cfg.HeartbeatTimeout = cfg.HeartbeatInterval
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.MaxFrameSize <= 0 {
		cfg.MaxFrameSize = proto.DefaultMaxFrameSize
	}
	switch cfg.Version {
	case 0:
		cfg.Version = proto.Version4
	case proto.Version3, proto.Version4, proto.Version5:
	default:
		return cfg, fmt.Errorf("conn: protocol version %d is not supported (want 3, 4 or 5)", cfg.Version)
	}
	switch cfg.Compression {
	case "", "lz4":
	case "snappy":
		if cfg.Version >= proto.Version5 {
			return cfg, errors.New("conn: protocol v5 compresses only with lz4, not snappy")
		}
	default:
		return cfg, fmt.Errorf("conn: unknown compression %q (want \"\", \"lz4\" or \"snappy\")", cfg.Compression)
	}
	if cfg.Port < 0 || cfg.Port > 65535 || cfg.LocalPort < 0 || cfg.LocalPort > 65535 {
		return cfg, fmt.Errorf("conn: port %d or local port %d out of range 0..65535", cfg.Port, cfg.LocalPort)
	}
	if cfg.Dialer != nil && (cfg.Port != 0 || cfg.LocalPort != 0) {
		return cfg, errors.New("conn: Port and LocalPort need the built-in dialer (Dialer is set)")
	}
	return cfg, nil
}

// Addr returns the address the connection was dialed with.
func (c *Conn) Addr() string { return c.addr }

// LocalAddr returns the local network address of the connection.
func (c *Conn) LocalAddr() net.Addr { return c.nc.LocalAddr() }

// Keyspace returns the connection's current keyspace: the one set by the last successful USE
// (through Config.Keyspace, UseKeyspace or a USE query), or "" if none.
func (c *Conn) Keyspace() string {
	if ks := c.keyspace.Load(); ks != nil {
		return *ks
	}
	return ""
}

// Version returns the protocol version in use.
func (c *Conn) Version() proto.Version { return c.version }

// Supported returns the options of the server's SUPPORTED answer to the handshake's OPTIONS.
// The map must not be modified.
func (c *Conn) Supported() map[string][]string { return c.supported }

// LWTMask returns the bit that marks a lightweight transaction in a PREPARED answer's bind
// metadata flags (proto.PreparedResult.Flags) on this connection: ScyllaDB offers the mark
// (SCYLLA_LWT_ADD_METADATA_MARK) and the handshake opts in. It is 0 on other servers.
func (c *Conn) LWTMask() uint32 { return c.lwtMask }

// TabletRouting reports whether the handshake opted in to ScyllaDB's tablets routing
// (proto.StartupTabletsRouting, sent at protocol v4 or later when the node offers it, or
// through Config.StartupOptions): the node then describes, in a custom payload of the RESULT,
// the tablet of a request that reached a node or shard holding no replica of it.
func (c *Conn) TabletRouting() bool { return c.tablets }

// MetadataID reports whether result metadata ids are in use on the connection: at protocol v5,
// or when the handshake opted in to ScyllaDB's proto.StartupUseMetadataID (sent at v3 or v4
// when the node offers it, or through Config.StartupOptions). PREPARED then carries the
// statement's result metadata id, EXECUTE sends it back (empty when the statement has none)
// and rows answering an outdated one carry the new one with the full metadata.
func (c *Conn) MetadataID() bool { return c.metadataID || c.version >= proto.Version5 }

// InFlight returns the number of stream ids in use: requests sent or being sent whose response
// has not arrived yet, including abandoned ones.
func (c *Conn) InFlight() int { return cap(c.streams) - len(c.streams) }

// Saturated reports whether every stream id is in use, so that Start would wait for one.
func (c *Conn) Saturated() bool { return len(c.streams) == 0 }

// Done returns a channel closed when the connection is closed or broken.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns nil while the connection is open, then a *ClosedError (matching ErrConnClosed)
// saying why it closed.
func (c *Conn) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close closes the connection, fails every pending request with an error matching
// ErrConnClosed, and waits for the connection's reader, writer and heartbeat goroutines to
// exit. It is safe to call more than once.
func (c *Conn) Close() error {
	c.fail(ErrClosedByClient)
	c.wg.Wait()
	return nil
}

// fail closes the connection with cause, once. It does not wait.
func (c *Conn) fail(cause error) {
	c.closeOnce.Do(func() {
		c.err = &ClosedError{Addr: c.addr, Cause: cause}
		close(c.done)
		_ = c.nc.Close()
		if c.release != nil {
			c.release()
		}
	})
}

// Register subscribes the connection to server events of the given types
// (proto.EventTopologyChange, proto.EventStatusChange, proto.EventSchemaChange). Events are
// delivered to Config.OnEvent.
func (c *Conn) Register(ctx context.Context, eventTypes ...string) error {
	resp, err := c.Do(ctx, &proto.Register{EventTypes: eventTypes})
	if err != nil {
		return fmt.Errorf("conn %s: REGISTER %v: %w", c.addr, eventTypes, err)
	}
	defer resp.Release()
	if _, ok := resp.Msg.(*proto.Ready); !ok {
		return fmt.Errorf("conn %s: REGISTER %v: unexpected %s response", c.addr, eventTypes, resp.Header.Opcode)
	}
	return nil
}

// acquireStream takes a free stream id, waiting for one when all are in use.
func (c *Conn) acquireStream(ctx context.Context) (int16, error) {
	select {
	case id := <-c.streams:
		return id, nil
	default:
	}
	select {
	case id := <-c.streams:
		return id, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("conn %s: waiting for a free stream id (all %d in use): %w", c.addr, cap(c.streams), ctx.Err())
	case <-c.done:
		return 0, &NotSentError{Err: c.err} // the request never took a stream id
	}
}

// tryAcquireStream takes a free stream id, or fails at once when every one is in use.
func (c *Conn) tryAcquireStream() (int16, error) {
	select {
	case id := <-c.streams:
		return id, nil
	default:
		return 0, fmt.Errorf("conn %s: %w (all %d in use)", c.addr, ErrNoFreeStream, cap(c.streams))
	}
}

// Start encodes req in the caller's goroutine and queues it for the writer; when it is the only
// request in flight, its frame is small (at most directWriteMax bytes) and the last read brought
// a lone response (no burst of callers is about to send), Start writes it itself, which cannot
// block since the server has read everything sent before. It waits only for a free stream id
// (respecting ctx), never for the network. The returned Call completes when the response
// arrives or the connection fails; call Release when done with it. When Start returns an error,
// nothing was sent.
func (c *Conn) Start(ctx context.Context, req proto.Request) (*Call, error) {
	return c.startCall(ctx, req, nil, true)
}

// TryStart is Start without the wait for a stream id: when every stream id is in use it fails
// at once with an error matching ErrNoFreeStream, having sent nothing. Saturated cannot tell a
// caller that Start will not wait: other goroutines may take the last free ids in between.
func (c *Conn) TryStart(req proto.Request) (*Call, error) {
	return c.startCall(context.Background(), req, nil, false)
}

// StartNotify is Start for a caller that does not wait: onDone.CallDone is called once when the
// call completes (with its response, the connection's error or Interrupt's), in the goroutine
// that completes it (the connection's reader or writer, a caller reading the socket, the caller
// of Interrupt or Close), possibly before StartNotify returns. Done is not used: from that call,
// onDone owns the Call (Response, then Release). CallDone must not block, nor wait for another
// request on this connection. StartNotify never waits: it fails when every stream id is in use
// (ErrNoFreeStream).
// When it returns an error, nothing was sent and CallDone is never called.
func (c *Conn) StartNotify(req proto.Request, onDone Notified) (*Call, error) {
	call, err := c.startCall(context.Background(), req, onDone, false)
	if err == nil {
		c.kick() // nobody waits on Done, which would make the reader read
	}
	return call, err
}

// startCall starts req, waiting for a stream id (respecting ctx) when wait is set, failing with
// ErrNoFreeStream otherwise; onDone, when set, is told of the completion (see StartNotify).
func (c *Conn) startCall(ctx context.Context, req proto.Request, onDone Notified, wait bool) (*Call, error) {
	select {
	case <-c.done:
		return nil, &NotSentError{Err: c.err}
	default:
	}
	var stream int16
	var err error
	if wait {
		stream, err = c.acquireStream(ctx)
	} else {
		stream, err = c.tryAcquireStream()
	}
	if err != nil {
		return nil, err
	}
	if c.InFlight() == 1 && c.peerClosedWhileIdle() {
		// Nothing was in flight, so nobody was reading the socket, and the server closed it
		// meanwhile (a node going down): only this check sees it. The request is not sent, so
		// its caller may send it to another node whatever its idempotence.
		c.fail(ErrClosedByServer)
		return nil, &NotSentError{Err: c.err}
	}
	if c.metadataID {
		req = proto.WithMetadataID(req) // an EXECUTE carries its result metadata id
	}
	f := proto.GetBuffer(512)
	*f, err = proto.AppendFrame((*f)[:0], c.version, stream, req, c.comp)
	if err != nil {
		proto.PutBuffer(f)
		c.streams <- stream
		return nil, fmt.Errorf("conn %s: encoding %s request: %w", c.addr, req.Opcode(), err)
	}
	call := getCall()
	call.c = c
	call.stream = stream
	call.onDone = onDone
	c.slots[stream].Store(call)
	// The store above happens before this check; the reader sweeps the slots only after done
	// is closed. So either the check sees done closed, or the sweep sees the call.
	select {
	case <-c.done:
		proto.PutBuffer(f)
		return c.withdraw(call)
	default:
	}
	if len(*f) <= directWriteMax && c.InFlight() == 1 && !c.burst.Load() && c.wmu.TryLock() {
		// Nothing else is in flight, so every byte written before was read by the server and
		// the socket's send buffer is empty: this small write cannot wait for the network.
		// Writing here saves the hand-off to the writer goroutine (two goroutine switches).
		call.sent.Store(true)
		n, err := c.writeFrames(*f)
		if err != nil && n == 0 {
			call.sent.Store(false) // under wmu, so that a sweep knows it was not sent
		}
		c.wmu.Unlock()
		proto.PutBuffer(f)
		if err != nil {
			c.fail(c.writeFailure(err))
			if n == 0 {
				// Not a byte of the request was sent: the caller may send it elsewhere.
				return c.withdraw(call)
			}
			// Part of it was sent: it completes with the connection's error, as a request
			// in flight.
		}
		return call, nil
	}
	select {
	case c.writeCh <- f: // the common case: room in the queue (no two-way select)
		return call, nil
	default:
	}
	select {
	case c.writeCh <- f:
	case <-c.done:
		// Closed after the check above, and the frame was not queued: nothing was sent.
		proto.PutBuffer(f)
		return c.withdraw(call)
	}
	return call, nil
}

// withdraw takes call, whose request was not sent, back from its slot after the connection
// failed, and returns a *NotSentError. When the sweep claimed the call first, it returns the
// call instead, which the sweep completes with the connection's error.
func (c *Conn) withdraw(call *Call) (*Call, error) {
	if !c.slots[call.stream].CompareAndSwap(call, nil) {
		return call, nil
	}
	call.recycle(false)
	return nil, &NotSentError{Err: c.err}
}

// peerClosedWhileIdle reports whether the server has closed (or reset) the connection, with a
// non-blocking peek at the socket that consumes nothing. It checks only plain TCP connections
// on Linux (see rawio), and only when no write is in progress; it reports false otherwise.
func (c *Conn) peerClosedWhileIdle() bool {
	if c.raw == nil || !c.wmu.TryLock() {
		return false
	}
	closed := c.raw.PeerClosed()
	c.wmu.Unlock()
	return closed
}

// Do sends req and waits for its response. A server ERROR is returned as the error (a
// *proto.ErrorResponse) with a nil Response. When ctx ends first Do returns ctx.Err() at once;
// the stream id is reclaimed when the late response arrives. The caller owns the returned
// Response and should Release it when done with its contents.
func (c *Conn) Do(ctx context.Context, req proto.Request) (*proto.Response, error) {
	resp, _, err := c.do(ctx, req)
	return resp, err
}

// do is Do, also returning the protocol version of the response frame (0 when none arrived),
// which an ERROR frame may carry in another version than the connection's.
func (c *Conn) do(ctx context.Context, req proto.Request) (*proto.Response, proto.Version, error) {
	call, err := c.Start(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	select {
	case <-call.Done():
		call.Received()
	case <-ctx.Done():
		if call.state.CompareAndSwap(statePending, stateAbandoned) {
			return nil, 0, ctx.Err()
		}
		// The response arrived at the same time: use it.
	}
	resp, err := call.Response()
	version := call.hdr.Version
	call.resp = nil // owned by the caller now
	call.Release()
	return resp, version, err
}
