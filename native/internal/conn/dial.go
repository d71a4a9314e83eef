package conn

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/native/proto"
)

// Dial connects to addr (host:port), over TLS when cfg.TLS is set, and performs the handshake:
// OPTIONS (the answer is kept, see Supported), STARTUP with CQL_VERSION 3.0.0 and the
// configured compression, SASL authentication when the server asks for it, and USE when
// cfg.Keyspace is set. cfg.DialTimeout bounds opening the network connection, and then the
// TLS and CQL handshake; ctx bounds the whole. Errors are *DialError values naming the
// address and the step that failed; a server that does not speak cfg.Version fails the
// OPTIONS step with a *VersionError.
func Dial(ctx context.Context, addr string, cfg Config) (*Conn, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, &DialError{Addr: addr, Step: "config", Err: err}
	}
	var nc net.Conn
	release := func() {} // ends the custom dialer's context
	if cfg.Dialer == nil {
		dctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
		var d net.Dialer
		target := addr
		if cfg.Port != 0 {
			host, _, serr := net.SplitHostPort(addr)
			if serr != nil {
				cancel()
				return nil, &DialError{Addr: addr, Step: "config", Err: serr}
			}
			target = net.JoinHostPort(host, strconv.Itoa(cfg.Port))
		}
		if cfg.LocalPort != 0 {
			d.LocalAddr = &net.TCPAddr{Port: cfg.LocalPort}
		}
		nc, err = d.DialContext(dctx, "tcp", target)
		cancel()
	} else {
		nc, release, err = dialCustom(ctx, cfg.Dialer, addr, cfg.DialTimeout)
	}
	if err != nil {
		return nil, &DialError{Addr: addr, Step: "connect", Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if cfg.TLS != nil {
		tcfg := cfg.TLS
		if tcfg.ServerName == "" && !tcfg.InsecureSkipVerify {
			host, _, _ := net.SplitHostPort(addr)
			tcfg = tcfg.Clone()
			tcfg.ServerName = host
		}
		tlsConn := tls.Client(nc, tcfg)
		if err := tlsConn.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			release()
			return nil, &DialError{Addr: addr, Step: "tls handshake", Err: err}
		}
		nc = tlsConn
	}
	c, err := newConn(nc, addr, cfg)
	if err != nil {
		_ = nc.Close()
		release()
		return nil, &DialError{Addr: addr, Step: "config", Err: err}
	}
	c.release = release
	c.start()
	if step, err := c.handshake(ctx); err != nil {
		_ = c.Close()
		return nil, &DialError{Addr: addr, Step: step, Err: err}
	}
	opts := c.dopts // final: nothing writes dopts after the handshake
	c.readerOpts.Store(&opts)
	if cfg.HeartbeatInterval > 0 {
		c.wg.Add(1)
		go c.heartbeatLoop(cfg.HeartbeatInterval, cfg.HeartbeatTimeout)
	}
	return c, nil
}

// dialCustom runs a Config.Dialer. The dialer's context carries ctx's values but neither its
// deadline nor timeout: it lasts as long as the connection (release ends it, called when the
// connection closes), as gocql's dialers get a context that lasts as long as the session, so
// that a dialer may tie the connection to it. Dial does not wait beyond timeout (or ctx)
// for a dialer, even one that ignores its context: it then ends the dialer's context,
// returns an error, and closes the connection the dialer returns afterwards, if any. A
// dialer that returns neither a connection nor an error, or panics, fails the dial too.
func dialCustom(ctx context.Context, dial func(ctx context.Context, network, addr string) (net.Conn, error), addr string, timeout time.Duration) (net.Conn, func(), error) {
	type dialed struct {
		nc  net.Conn
		err error
	}
	dctx, release := context.WithCancel(context.WithoutCancel(ctx))
	var (
		mu        sync.Mutex
		abandoned bool
	)
	ch := make(chan dialed, 1)
	go func() {
		var d dialed
		func() {
			defer func() {
				if p := recover(); p != nil {
					d = dialed{err: fmt.Errorf("the dialer panicked: %v", p)}
				}
			}()
			d.nc, d.err = dial(dctx, "tcp", addr)
		}()
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			if d.nc != nil {
				_ = d.nc.Close()
			}
			return
		}
		ch <- d
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case d := <-ch:
		switch {
		case d.err != nil:
			if d.nc != nil {
				_ = d.nc.Close()
			}
			release()
			return nil, nil, d.err
		case d.nc == nil:
			release()
			return nil, nil, errNilDialedConn
		}
		return d.nc, release, nil
	case <-t.C:
	case <-ctx.Done():
	}
	mu.Lock()
	abandoned = true
	select {
	case d := <-ch: // it returned just now
		if d.nc != nil {
			_ = d.nc.Close()
		}
	default:
	}
	mu.Unlock()
	release()
	err := ctx.Err()
	if err == nil {
		err = context.DeadlineExceeded
	}
	return nil, nil, fmt.Errorf("the dialer did not return in time: %w", err)
}

// errNilDialedConn is the error of a dialer that returned a nil connection and a nil error.
var errNilDialedConn = errors.New("the dialer returned no connection and no error")

// handshake runs OPTIONS, STARTUP, authentication and USE, returning the failed step's name.
func (c *Conn) handshake(ctx context.Context) (string, error) {
	resp, answered, err := c.do(ctx, &proto.Options{})
	if err != nil {
		if verr := versionRefused(c.version, answered, err); verr != nil {
			return "OPTIONS", verr
		}
		return "OPTIONS", err
	}
	sup, ok := resp.Msg.(*proto.Supported)
	if !ok {
		op := resp.Header.Opcode // read before Release, which clears the header
		resp.Release()
		return "OPTIONS", fmt.Errorf("expected SUPPORTED, got %s", op)
	}
	c.supported = sup.Options
	resp.Release()
	if c.cfg.RateLimitErrorCode == 0 {
		c.dopts.RateLimitCode = rateLimitCode(c.supported)
	}

	opts := map[string]string{proto.StartupCQLVersion: proto.DefaultCQLVersion}
	if c.cfg.Compression != "" {
		opts[proto.StartupCompression] = c.cfg.Compression
	}
	if _, ok := c.supported[proto.StartupRateLimitError]; ok {
		// ScyllaDB: without opting in, a rate limit error comes as a CONFIG_ERROR.
		opts[proto.StartupRateLimitError] = ""
	}
	if v := c.supported[proto.StartupLWTMark]; len(v) == 1 && proto.ParseLWTMark(v[0]) != 0 {
		// ScyllaDB: opting in gets conditional statements flagged in PREPARED (LWTMask).
		opts[proto.StartupLWTMark] = v[0]
	}
	if _, ok := c.supported[proto.StartupTabletsRouting]; ok && c.version >= proto.Version4 {
		// ScyllaDB: opting in gets the tablet of a misrouted request described in the
		// RESULT's custom payload (TabletRouting), which v3 frames cannot carry.
		opts[proto.StartupTabletsRouting] = ""
	}
	if _, ok := c.supported[proto.StartupUseMetadataID]; ok && c.version < proto.Version5 {
		// ScyllaDB: opting in gets result metadata ids as in v5 (PREPARED, EXECUTE and
		// Metadata_changed rows), so that a statement whose result columns changed is told
		// so with its new columns. At v5 they are there anyway.
		opts[proto.StartupUseMetadataID] = ""
	}
	for k, v := range c.cfg.StartupOptions {
		opts[k] = v
	}
	_, c.tablets = opts[proto.StartupTabletsRouting]           // as sent
	c.lwtMask = proto.ParseLWTMark(opts[proto.StartupLWTMark]) // as sent (StartupOptions may change it)
	if _, ok := opts[proto.StartupUseMetadataID]; ok && c.version < proto.Version5 {
		c.metadataID = true // as sent
		c.dopts.MetadataID = true
	}
	// The COMPRESSION sent (Config.Compression, or StartupOptions' when given there) is the
	// one the server compresses its responses with once it has accepted STARTUP, READY
	// included: both directions use its codec. An empty one in StartupOptions turns
	// compression off (servers refuse an empty name).
	if name, ok := opts[proto.StartupCompression]; ok && name == "" {
		delete(opts, proto.StartupCompression)
		c.dopts.Compressor = nil
	} else if ok {
		if c.cfg.CompressionFallback && !c.serverCompresses(name) {
			delete(opts, proto.StartupCompression) // Config.CompressionFallback
			c.dopts.Compressor = nil
		} else if step, err := c.useCompression(name); err != nil {
			return step, err
		}
	}
	if c.version >= proto.Version5 && c.dopts.Compressor != nil {
		// v5 compresses segments (with lz4 only), never frames.
		if name := c.dopts.Compressor.Name(); name != "lz4" {
			return "STARTUP", fmt.Errorf("STARTUP option %s=%q: protocol v5 compresses only with lz4", proto.StartupCompression, name)
		}
		c.segCompress.Store(true)
		c.dopts.Compressor = nil
	}
	resp, err = c.Do(ctx, &proto.Startup{Options: opts})
	if err != nil {
		return "STARTUP", err
	}
	msg := resp.Msg
	resp.Release()
	switch m := msg.(type) {
	case *proto.Ready:
	case *proto.Authenticate:
		if err := c.authenticate(ctx, m.Authenticator); err != nil {
			return "authentication", err
		}
	default:
		return "STARTUP", fmt.Errorf("expected READY or AUTHENTICATE, got %s", msg.Opcode())
	}
	c.comp = c.dopts.Compressor

	if c.cfg.Keyspace != "" {
		if err := c.UseKeyspace(ctx, c.cfg.Keyspace); err != nil {
			return "USE", err
		}
	}
	return "", nil
}

// serverCompresses reports whether the server's SUPPORTED lists compression name.
func (c *Conn) serverCompresses(name string) bool {
	return slices.ContainsFunc(c.supported[proto.StartupCompression], func(a string) bool { return strings.EqualFold(a, name) })
}

// useCompression makes name (STARTUP's COMPRESSION, compared like Cassandra does, ignoring
// case) the codec of the connection's responses, and of its requests once the handshake is
// done. It fails, naming the step, when the client has no codec for name or when the server's
// SUPPORTED lists compressions without it.
func (c *Conn) useCompression(name string) (string, error) {
	alg := strings.ToLower(name)
	comp, err := proto.NewCompressor(alg)
	if err != nil {
		return "STARTUP", fmt.Errorf("STARTUP option %s=%q: %w", proto.StartupCompression, name, err)
	}
	if algs, ok := c.supported[proto.StartupCompression]; ok && !slices.ContainsFunc(algs, func(a string) bool { return strings.EqualFold(a, alg) }) {
		return "OPTIONS", fmt.Errorf("server does not support compression %q (it supports %v)", name, algs)
	}
	c.dopts.Compressor = comp
	return "", nil
}

func (c *Conn) authenticate(ctx context.Context, class string) error {
	if c.cfg.Authenticator == nil {
		return fmt.Errorf("server requires authentication with %s but no Authenticator is configured", class)
	}
	var named any = c.cfg.Authenticator
	if u, ok := named.(interface{ Unwrap() proto.Authenticator }); ok {
		named = u.Unwrap() // the user's authenticator, not the session's binding of it to a node
	}
	var (
		ex    proto.AuthExchange
		token []byte
	)
	err := authCall(named, func() (err error) {
		ex, token, err = c.cfg.Authenticator.Start(class)
		return err
	})
	if err != nil {
		return err
	}
	if ex == nil {
		return fmt.Errorf("the Authenticator (%T) returned no AuthExchange for %s", named, class)
	}
	for {
		resp, err := c.Do(ctx, &proto.AuthResponse{Token: token})
		if err != nil {
			return err
		}
		msg := resp.Msg
		resp.Release()
		switch m := msg.(type) {
		case *proto.AuthSuccess:
			return authCall(named, func() error { return ex.Success(m.Token) })
		case *proto.AuthChallenge:
			if err := authCall(named, func() (err error) {
				token, err = ex.Challenge(m.Token)
				return err
			}); err != nil {
				return err
			}
		default:
			return fmt.Errorf("expected AUTH_CHALLENGE or AUTH_SUCCESS, got %s", msg.Opcode())
		}
	}
}

// authCall runs f, a call of the application's Authenticator (named) or of its exchange, and
// turns a panic into an error that fails the connection, as a Dialer's panic does: the
// handshake runs in Connect's goroutine or in a pool's background one, where a panic (a typed
// nil *PasswordAuthenticator, say) would end the program.
func authCall(named any, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the Authenticator (%T) panicked: %v", named, p)
		}
	}()
	return f()
}

// UseKeyspace selects keyspace on the connection with a USE statement (the name is quoted, so
// it is case-sensitive).
func (c *Conn) UseKeyspace(ctx context.Context, keyspace string) error {
	resp, err := c.Do(ctx, &proto.Query{
		Query:  "USE " + QuoteIdentifier(keyspace),
		Params: proto.QueryParams{Consistency: proto.One},
	})
	if err != nil {
		return fmt.Errorf("USE %q: %w", keyspace, err)
	}
	defer resp.Release()
	if _, ok := resp.Msg.(*proto.SetKeyspaceResult); !ok {
		return fmt.Errorf("USE %q: unexpected result %T", keyspace, resp.Msg)
	}
	return nil
}

// QuoteIdentifier returns name as a double-quoted CQL identifier (inner quotes doubled).
func QuoteIdentifier(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// rateLimitCode returns the rate limit error code a ScyllaDB server announced, else ScyllaDB's
// default.
func rateLimitCode(supported map[string][]string) proto.ErrorCode {
	if code, ok := proto.RateLimitCode(supported); ok {
		return code
	}
	return proto.ErrCodeRateLimit
}
