package native

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlbridge/cqlbridge/native/internal/conn"
	"github.com/cqlbridge/cqlbridge/native/internal/policy"
	"github.com/cqlbridge/cqlbridge/native/internal/ring"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// request is the pooled scratch state of one request: the protocol messages, the encoded
// values and the timeout timer, reused so that a request allocates almost nothing.
type request struct {
	query  proto.Query
	exec   proto.Execute
	batch  proto.Batch
	vals   encodedValues
	bvals  []encodedValues
	bstmts []proto.BatchStatement
	rk     []byte
	to     reqTimeout // owns the request's timer
}

var requestPool = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &request{to: reqTimeout{timer: t}}
}}

func getRequest() *request { return requestPool.Get().(*request) }

func putRequest(r *request) {
	r.to.stop()
	r.query = proto.Query{}
	r.exec = proto.Execute{}
	r.batch = proto.Batch{}
	r.vals.reset()
	for i := range r.bvals {
		r.bvals[i].reset()
	}
	clear(r.bstmts)
	r.bstmts = r.bstmts[:0]
	if cap(r.vals.buf) > 64<<10 {
		r.vals = encodedValues{} // do not keep huge buffers alive
	}
	requestPool.Put(r)
}

// reqInfo describes a request for the send loop.
type reqInfo struct {
	what         string // CQL text or "BATCH", for errors and observers
	msg          proto.Request
	consistency  *proto.Consistency // where to change the level on a downgrading retry
	prepared     *Prepared          // statement of an EXECUTE
	meta         *preparedMeta      // its metadata as bound for this request
	batch        *Batch             // a BATCH
	resumable    bool               // a statement (not a batch) whose next page can be fetched
	opts         options            // the statement's options, for the next page
	keyspace     string             // keyspace for token routing
	token        int64
	hasToken     bool
	lwt          bool         // a lightweight transaction the node flagged: replicas in ring order
	tablets      *tabletTable // the tablets of the statement's table (ScyllaDB); nil elsewhere
	tablet       *tabletNodes // the replicas of the partition's tablet, when known (see sendPlan)
	host         string       // Statement.WithHost
	idempotent   bool
	timeout      time.Duration
	values       *encodedValues
	retry        RetryPolicy
	observer     func(context.Context, Attempt)
	specDelay    time.Duration   // speculative execution: delay before each extra attempt
	specAttempts int             // extra attempts allowed (idempotent requests only)
	useLocked    bool            // a USE statement holding Session.useMu for writing
	async        bool            // run by ExecuteAsync or ExecuteBatchAsync, in a goroutine Close waits for
	started      *startedAttempt // the first attempt, sent by startDetached; nil otherwise
	cbDepth      *int            // shared by the speculative attempts of an asynchronous request (see goroutineSet.callback)
	// passable says that the next send may pass over its node when the connection has no free
	// stream id (errPassBusy), rather than wait for one: nextConn chose passNode from the plan
	// (not fixed, not held back as busy). The first send of an attempt clears it.
	passable bool
	passNode int
	// deadline is the request's, for its speculative attempts, which run with no reqTimeout
	// of their own (their re-preparing is bounded by it); zero when the request has none.
	deadline time.Time
	// numbers numbers the attempts of a request with speculative execution, shared by them
	// (nil otherwise): an attempt takes the next number when it starts on its connection
	// (number, -1 until then), and gives it back when its connection then fails before
	// writing it, unless another attempt took a number since (see takeNumber).
	numbers *atomic.Int32
	number  int
}

// takeNumber numbers the speculative attempt info is the branch of, started on its
// connection, unless it has its number already.
func (info *reqInfo) takeNumber() {
	if info.numbers != nil && info.number < 0 {
		info.number = int(info.numbers.Add(1) - 1)
	}
}

// dropNumber gives back the number of a speculative attempt that was not sent, when no other
// attempt has taken one since, so that the attempts sent are numbered without a gap.
func (info *reqInfo) dropNumber() {
	if info.numbers != nil && info.number >= 0 {
		info.numbers.CompareAndSwap(int32(info.number+1), int32(info.number))
		info.number = -1
	}
}

// policies sets the retry policy and observer of a request: the statement's, else the
// session's.
func (info *reqInfo) policies(cfg *Config, o *options) {
	info.retry, info.observer = cfg.RetryPolicy, cfg.Observer
	info.specDelay, info.specAttempts = cfg.SpeculativeDelay, cfg.SpeculativeAttempts
	if o.set&setSpeculative != 0 {
		info.specDelay, info.specAttempts = o.speculative()
	}
	if r := o.retry(); r != nil {
		info.retry = r
	}
	if f := o.observer(); f != nil {
		info.observer = f
	}
}

// run executes a statement.
func (s *Session) run(ctx context.Context, st *Statement) (*Result, error) {
	if err := s.checkStatement(ctx, st); err != nil {
		return nil, err
	}
	req := getRequest()
	defer putRequest(req)
	vals, err := bindStatement(st, req, s.refuseUnset)
	if err != nil {
		return nil, err
	}
	return s.runBound(ctx, st, req, vals, false)
}

// checkStatement refuses a statement that cannot run at all: the session is closed or was not
// made by Connect, ctx is nil, or it needs a protocol feature v4 lacks.
func (s *Session) checkStatement(ctx context.Context, st *Statement) error {
	if err := s.usable(); err != nil {
		return err
	}
	if ctx == nil {
		return errNilContext
	}
	if ks := st.opts.keyspace(); ks != "" {
		if s.cfg.ProtocolVersion < 5 {
			return fmt.Errorf("native: statement keyspace %q needs protocol v5: %w", ks, ErrUnsupported)
		}
		if st.prepared != nil {
			return fmt.Errorf("native: statement keyspace %q on a prepared statement, which runs in the keyspace it was prepared in (%q): %w", ks, st.prepared.keyspace, ErrUnsupported)
		}
	}
	if st.prepared != nil && st.prepared.m() == nil {
		return errUnusablePrepared
	}
	return nil
}

// errUnusablePrepared is the error of a Statement that Bind made on a nil or zero *Prepared
// (a Prepare whose error was not checked, say). A statement with an empty CQL text goes to
// the server, which answers with its syntax error, as gocql's does.
var errUnusablePrepared = &BindError{Index: -1, Err: errors.New("Bind was called on a nil or zero *Prepared (was the Prepare error checked?)")}

// bindStatement returns the encoded values of st: those it carries already (the next page of
// a Result), or its values encoded into req.vals. With refuseUnset (a protocol v3 session), a
// value bound to Unset is an error. The error is a *BindError.
func bindStatement(st *Statement, req *request, refuseUnset bool) (*encodedValues, error) {
	if enc := st.opts.encoded(); enc != nil {
		return enc, nil // checked when its first page was bound
	}
	vals := &req.vals
	var m *preparedMeta // nil for a simple statement
	switch {
	case st.prepared != nil:
		m = st.prepared.m()
		if err := bindPrepared(st.prepared, m, st.values, vals); err != nil {
			return nil, err
		}
	case len(st.values) > 0:
		if err := bindSimple(st.cql, st.values, vals); err != nil {
			return nil, err
		}
	default:
		return vals, nil
	}
	if refuseUnset {
		return vals, vals.refuseUnset(st.cql, m)
	}
	return vals, nil
}

// runBound executes a statement whose values bindStatement encoded into vals (req.vals, or
// the statement's own); the caller owns req. async is set in ExecuteAsync's goroutine.
func (s *Session) runBound(ctx context.Context, st *Statement, req *request, vals *encodedValues, async bool) (*Result, error) {
	var info reqInfo
	if st.prepared == nil && isUseStatement(st.cql) {
		// A keyspace change: USE statements run one at a time, each with its propagation to
		// every connection (see useKeyspace), and no PREPARE or new connection sees the
		// connections half-way between two keyspaces.
		if err := s.lockUse(ctx); err != nil {
			return nil, err
		}
		defer s.useMu.Unlock()
		info.useLocked = true
	}
	if err := s.initRequest(&info, st, req, vals, async); err != nil {
		return nil, err
	}
	res, err := s.send(ctx, req, &info)
	if err == nil && res.kind == ResultSchemaChange {
		s.awaitAfterSchemaChange(ctx, res)
	}
	return res, err
}

// initRequest fills info, and req's message, for a statement whose values bindStatement encoded
// into vals; info.useLocked is kept.
func (s *Session) initRequest(info *reqInfo, st *Statement, req *request, vals *encodedValues, async bool) error {
	*info = reqInfo{what: st.cql, resumable: true, opts: st.opts, prepared: st.prepared, host: st.opts.host, idempotent: st.opts.idempotent, values: vals, async: async, useLocked: info.useLocked}
	routingKeyspace, routingKey := st.opts.routingKey()
	payload := st.opts.payload()
	info.timeout = s.cfg.Timeout
	if st.opts.set&setTimeout != 0 {
		info.timeout = st.opts.timeout
	}
	info.policies(&s.cfg, &st.opts)
	var params *proto.QueryParams
	if p := st.prepared; p != nil {
		m := p.m()
		if enc := st.opts.encoded(); enc != nil && enc.meta != m {
			if err := enc.checkEncodedFor(p.cql, m); err != nil {
				return err
			}
		}
		info.meta = m
		info.lwt = m.lwt
		req.exec.ID = m.id
		req.exec.ResultMetadataID = m.resultMetadataID
		params = &req.exec.Params
		req.exec.FrameOptions = proto.FrameOptions{Tracing: st.opts.tracing, CustomPayload: payload}
		params.SkipMetadata = len(m.columns) > 0 && (st.opts.set&setSkipMetadata == 0 || st.opts.skipMetadata)
		info.msg = &req.exec
		if s.wantToken() && len(m.pkIndexes) > 0 && routingKey == nil {
			info.token, info.hasToken = vals.token(m.pkIndexes, &req.rk)
			info.keyspace = m.routingKeyspace
		}
		info.tablets = m.tablets
	} else {
		req.query.Query = st.cql
		params = &req.query.Params
		params.Keyspace = st.opts.keyspace() // checked: only on v5
		req.query.FrameOptions = proto.FrameOptions{Tracing: st.opts.tracing, CustomPayload: payload}
		info.msg = &req.query
	}
	if routingKey != nil && s.wantToken() {
		info.token, info.hasToken = ring.Token(routingKey), true
		switch {
		case routingKeyspace != "":
			info.keyspace = routingKeyspace
		case st.prepared != nil:
			info.keyspace = st.prepared.m().routingKeyspace
		case st.opts.keyspace() != "":
			info.keyspace = st.opts.keyspace()
		default:
			info.keyspace = s.Keyspace()
		}
	}
	if vals.n > 0 || vals.named {
		params.Values = vals
		params.NamedValues = vals.named
	}
	params.Consistency = proto.Consistency(s.cfg.Consistency)
	if st.opts.set&setConsistency != 0 {
		if !st.opts.consistency.valid() {
			return fmt.Errorf("native: %s is not a consistency level", st.opts.consistency)
		}
		params.Consistency = proto.Consistency(st.opts.consistency)
	}
	info.consistency = &params.Consistency
	params.SerialConsistency = proto.Consistency(s.cfg.SerialConsistency)
	if st.opts.set&setSerialConsistency != 0 {
		if !st.opts.serialConsistency.IsSerial() {
			return fmt.Errorf("native: serial consistency must be SERIAL or LOCAL_SERIAL, not %s", st.opts.serialConsistency)
		}
		params.SerialConsistency = proto.Consistency(st.opts.serialConsistency)
	}
	params.PageSize = int32(s.cfg.PageSize)
	if st.opts.set&setPageSize != 0 {
		params.PageSize = st.opts.pageSize
	}
	params.PagingState = st.opts.pagingState()
	if st.opts.set&setTimestamp != 0 {
		params.Timestamp, params.HasTimestamp = st.opts.timestamp, true
	} else if s.cfg.ClientTimestamps {
		params.Timestamp, params.HasTimestamp = time.Now().UnixMicro(), true
	}
	return nil
}

// runBatch executes a batch (ExecuteBatch).
func (s *Session) runBatch(ctx context.Context, b *Batch) (*Result, error) {
	req := getRequest()
	defer putRequest(req)
	var info reqInfo
	if err := s.bindBatch(ctx, b, false, req, &info); err != nil {
		return nil, err
	}
	return s.send(ctx, req, &info)
}

// bindBatch checks a batch, encodes the values of its statements into req and fills in
// info, for runBatch and ExecuteBatchAsync; async says the batch is run by
// ExecuteBatchAsync. Nothing is sent. The batch's values are read here only, so that a
// caller of ExecuteBatchAsync may reuse what it bound once the call has returned.
func (s *Session) bindBatch(ctx context.Context, b *Batch, async bool, req *request, info *reqInfo) error {
	if err := s.usable(); err != nil {
		return err
	}
	if ctx == nil {
		return errNilContext
	}
	if ks := b.opts.keyspace(); ks != "" && s.cfg.ProtocolVersion < 5 {
		return fmt.Errorf("native: batch keyspace %q needs protocol v5: %w", ks, ErrUnsupported)
	}
	if b.typ > CounterBatch {
		return fmt.Errorf("native: batch: %s is not a batch type (LoggedBatch, UnloggedBatch or CounterBatch)", b.typ)
	}
	if cap(req.bvals) < len(b.stmts) {
		req.bvals = make([]encodedValues, len(b.stmts))
	}
	req.bvals = req.bvals[:len(b.stmts)]
	*info = reqInfo{what: "BATCH", batch: b, host: b.opts.host, idempotent: b.opts.idempotent, async: async}
	for i := range b.stmts {
		st := &b.stmts[i]
		if st.prepared != nil && st.prepared.m() == nil {
			return &batchStatementError{index: i, err: errUnusablePrepared}
		}
		if ks := st.opts.keyspace(); ks != "" {
			return fmt.Errorf("native: batch statement %d: its own keyspace %q is not sent in a batch (set it on the batch with Batch.WithKeyspace): %w", i, ks, ErrUnsupported)
		}
		ev := &req.bvals[i]
		bs := proto.BatchStatement{Values: ev}
		var m *preparedMeta // nil for a simple statement
		var err error
		if p := st.prepared; p != nil {
			m = p.m()
			err = bindPrepared(p, m, st.values, ev)
		} else {
			err = bindSimple(st.cql, st.values, ev)
		}
		if err == nil && s.refuseUnset {
			err = ev.refuseUnset(st.cql, m)
		}
		if err != nil {
			return &batchStatementError{index: i, err: err}
		}
		if m != nil {
			bs.ID = m.id
			info.lwt = info.lwt || m.lwt
			if !info.hasToken && s.wantToken() && len(m.pkIndexes) > 0 {
				info.token, info.hasToken = ev.token(m.pkIndexes, &req.rk)
				info.keyspace = m.routingKeyspace
				info.tablets = m.tablets
			}
		} else {
			if ev.named {
				return fmt.Errorf("native: batch statement %d: named values in a batch need a prepared statement: %w", i, ErrUnsupported)
			}
			bs.Query = st.cql
		}
		if ev.n == 0 {
			bs.Values = nil
		}
		req.bstmts = append(req.bstmts, bs)
	}
	bt := &req.batch
	bt.FrameOptions = proto.FrameOptions{Tracing: b.opts.tracing, CustomPayload: b.opts.payload()}
	bt.Type = proto.BatchType(b.typ)
	bt.Statements = req.bstmts
	bt.Keyspace = b.opts.keyspace() // checked: only on v5
	bt.Consistency = proto.Consistency(s.cfg.Consistency)
	if b.opts.set&setConsistency != 0 {
		if !b.opts.consistency.valid() {
			return fmt.Errorf("native: batch: %s is not a consistency level", b.opts.consistency)
		}
		bt.Consistency = proto.Consistency(b.opts.consistency)
	}
	bt.SerialConsistency = proto.Consistency(s.cfg.SerialConsistency)
	if b.opts.set&setSerialConsistency != 0 {
		if !b.opts.serialConsistency.IsSerial() {
			return fmt.Errorf("native: batch: serial consistency must be SERIAL or LOCAL_SERIAL, not %s", b.opts.serialConsistency)
		}
		bt.SerialConsistency = proto.Consistency(b.opts.serialConsistency)
	}
	if b.opts.set&setTimestamp != 0 {
		bt.Timestamp, bt.HasTimestamp = b.opts.timestamp, true
	} else if s.cfg.ClientTimestamps {
		bt.Timestamp, bt.HasTimestamp = time.Now().UnixMicro(), true
	}
	info.msg = bt
	info.consistency = &bt.Consistency
	info.timeout = s.cfg.Timeout
	if b.opts.set&setTimeout != 0 {
		info.timeout = b.opts.timeout
	}
	info.policies(&s.cfg, &b.opts)
	return nil
}

// send runs the attempts of a request along its query plan. A request that Close cut off
// fails with an error matching ErrSessionClosed (and the connection's error).
func (s *Session) send(ctx context.Context, req *request, info *reqInfo) (*Result, error) {
	res, err := s.sendPlan(ctx, req, info)
	if err != nil && s.closed.Load() {
		err = closedError(err)
	}
	return res, err
}

// closedError makes err, the failure of a request in flight when the session closed, match
// ErrSessionClosed, unless the server's answer decided it (a *RequestError).
func closedError(err error) error {
	var re *RequestError
	if errors.Is(err, ErrSessionClosed) || errors.As(err, &re) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrSessionClosed, err)
}

// sendPlan is send without the translation of errors after Close.
func (s *Session) sendPlan(ctx context.Context, req *request, info *reqInfo) (*Result, error) {
	to := &req.to
	var st *clusterState
	var plan policy.Plan
	fixed := -1
	started := info.started // the first attempt, already sent (see startDetached)
	if started != nil {
		st, plan, fixed = started.st, started.plan, started.fixed
	} else {
		to.start(info.timeout)
		st = s.state.Load()
		var err error
		if fixed, err = s.planFor(info, st, &plan); err != nil {
			return nil, err
		}
		if info.specAttempts > 0 && info.idempotent && fixed < 0 {
			timeoutC := to.C()
			info.deadline = to.deadline()
			return s.sendSpeculative(ctx, info, &plan, st, timeoutC)
		}
	}
	var failed []HostError
	var last HostError   // the last attempt's failure, when the request is retried
	var unsent HostError // the last failure of a connection before it wrote the request
	var busy []int       // nodes passed over because their connection had no free stream id
	held := -1           // the plan's next node, held back while a busy local node is tried
	number := 0
	for {
		if number >= maxAttempts {
			return nil, fmt.Errorf("native: %q: gave up after %d attempts: %w", abbreviate(info.what), number, &NoHostAvailableError{Errors: failed})
		}
		var c *conn.Conn
		if started != nil {
			c, started = started.c, nil // roundTrip takes its call
			info.passable = false
		} else {
			var ok bool
			if c, ok = s.nextConn(info, st, &plan, fixed, &failed, &busy, &held); !ok {
				return nil, &NoHostAvailableError{Errors: failed}
			}
			if c == nil {
				continue
			}
		}
		// Attempts on this node: one, plus any the retry policy sends to the same node. Each
		// attempt sent that failed is in failed, a retried one too: it may have run, so a
		// *NoHostAvailableError made of failed must not match ErrNotSent, whatever happened
		// to the retry (not sent, or its EXECUTE sent again after an UNPREPARED answer never
		// left the client).
		for {
			if err := retryTimedOut(to, info, number, last, unsent); err != nil {
				return nil, err
			}
			res, err := s.attempt(ctx, c, info, to, number)
			if err == errPassBusy {
				// Nothing was sent: the node is busy, as if nextConn had seen it so.
				busy = append(busy, info.passNode)
				break
			}
			if nh, ok := err.(*nextHostError); ok && nh.unsent {
				// Nothing was sent (see attempt), which, as when nextConn finds no open
				// connection, is not an attempt.
				if ctx.Err() != nil {
					// The caller no longer waits: nothing more is sent. The error matches
					// ErrNotSent only when nothing was sent before.
					if number > 0 {
						return nil, fmt.Errorf("native: %s: %w", abbreviate(info.what), ctx.Err())
					}
					return nil, nh.err
				}
				unsent = HostError{Host: c.Addr(), Err: nh.err}
				failed = append(failed, unsent)
				break
			}
			number++
			if err == nil {
				return res, nil
			}
			var nextHost *nextHostError
			var retry *retryError
			switch {
			case errors.As(err, &nextHost):
				last = HostError{Host: c.Addr(), Err: nextHost.err}
				failed = append(failed, last)
			case errors.As(err, &retry):
				last = HostError{Host: c.Addr(), Err: retry.err}
				failed = append(failed, last)
				if retry.sameHost && number < maxAttempts {
					continue
				}
			default:
				return nil, sentBefore(err, number)
			}
			break
		}
	}
}

// sentBefore returns err, the error of the last of number attempts of a request, hiding
// ErrNotSent when an attempt was sent before it (number > 1): err matches ErrNotSent when its
// own attempt did not run (the node answered UNPREPARED and the PREPARE sent again there, or
// the EXECUTE after it, never left the client), but an earlier attempt may have run.
func sentBefore(err error, number int) error {
	if number > 1 && errors.Is(err, ErrNotSent) {
		return attemptError{err}
	}
	return err
}

// planFor sets plan to the query plan of info's request on st, or returns the index of the
// node the request is fixed to (WithHost; -1 otherwise).
func (s *Session) planFor(info *reqInfo, st *clusterState, plan *policy.Plan) (fixed int, err error) {
	fixed = -1
	if info.hasToken && info.tablets != nil {
		// A table using tablets (ScyllaDB): the replicas of the partition's tablet, on their
		// shard, once a node has described the tablet; until then the token ring's.
		if tb := info.tablets.find(info.token); tb != nil {
			info.tablet = tb.resolve(st.snap)
		}
	}
	if info.host != "" {
		fixed = st.snap.Index(info.host)
		if fixed < 0 {
			return fixed, &NoHostAvailableError{Errors: []HostError{{Host: info.host, Err: notSentError{errors.New("not a node of the cluster (see Session.Hosts)")}}}}
		}
	} else {
		var replicas []int32
		if info.hasToken && s.cfg.Routing == TokenAware {
			if info.tablet != nil {
				replicas = info.tablet.nodes
			} else {
				replicas = st.snap.Replicas(info.keyspace, info.token)
			}
		}
		*plan = policy.NewPlan(replicas, len(st.pools), st.remote, s.rr.Add(1))
		if info.lwt {
			plan.InOrder()
		}
	}
	return fixed, nil
}

// nextConn chooses the connection of sendPlan's next attempt: on the fixed node (WithHost;
// fixed >= 0), or on the next node of plan, holding back a node whose connection is saturated
// (busy, and held: see sendPlan). ok is false when no node is left (the request fails with
// failed); c is nil, with ok, when this node is passed over (its pool had no connection, which
// failed records, or its connection is saturated): the caller asks again.
func (s *Session) nextConn(info *reqInfo, st *clusterState, plan *policy.Plan, fixed int, failed *[]HostError, busy *[]int, held *int) (c *conn.Conn, ok bool) {
	var node int
	fromBusy := false
	if fixed >= 0 {
		if len(*failed) > 0 {
			// The node's attempt failed and was not retried on it, or nothing could be
			// sent to it.
			return nil, false
		}
		node = fixed
	} else {
		n, ok := *held, *held >= 0
		if ok {
			*held = -1
		} else {
			n, ok = plan.Next()
		}
		b := *busy
		switch {
		case !ok && len(b) == 0:
			return nil, false
		case !ok:
			// Every other node failed or was busy too: wait for a stream id on a busy
			// one (no longer than the request's timeout, see startSaturated).
			n, *busy, fromBusy = b[0], b[1:], true
		case len(b) > 0 && st.remote != nil && st.remote[n] && !st.remote[b[0]]:
			// The plan moves on to another data center: a busy local node first, as
			// LOCAL_* consistencies mean the coordinator's data center.
			*held = n
			n, *busy, fromBusy = b[0], b[1:], true
		}
		node = n
	}
	pool := st.pools[node]
	c, err := pool.pickFor(info.token, info.hasToken, info.tablet.shardOn(node))
	if err != nil {
		// Nothing was sent: not an attempt (Attempt.Number, which retry policies count
		// their retries with, counts the attempts made), and the plan moves on.
		*failed = append(*failed, HostError{Host: pool.addr, Err: err})
		return nil, fixed < 0
	}
	if fixed < 0 && !fromBusy && c.Saturated() {
		// Every stream id of the connection is in use (a slow node, or requests that
		// timed out waiting for its late answers): try the other nodes first.
		*busy = append(*busy, node)
		return nil, true
	}
	// Other requests may take the last free ids before this one starts: sendAndWait then
	// passes the node over as above (errPassBusy) instead of waiting.
	info.passable, info.passNode = fixed < 0 && !fromBusy, node
	return c, true
}

// errPassBusy is sendAndWait's error when the connection of a node the request may pass over
// (reqInfo.passable) has no free stream id: nothing was sent, and sendPlan moves on to the
// plan's next node, coming back to this one when every other is busy or fails, or before the
// plan moves on to another data center (see nextConn).
var errPassBusy = errors.New("native: no free stream id on the connection (passed over)")

// startSaturated starts info.msg on c, every stream id of which is in use (the node is slow
// to answer, or requests that timed out wait for their late answers): it waits for one no
// longer than the request's timeout, then returns a *nextHostError whose error matches
// ErrNotSent (nothing was sent) as well as ErrTimeout.
func startSaturated(ctx context.Context, c *conn.Conn, info *reqInfo, to *reqTimeout) (*conn.Call, error) {
	to.fix()
	sctx, cancel := context.WithDeadline(ctx, to.end)
	defer cancel()
	call, err := c.Start(sctx, info.msg)
	if err != nil && ctx.Err() == nil && sctx.Err() != nil {
		return nil, &nextHostError{err: notSentError{fmt.Errorf("%w after %s waiting for a free stream id on %s (all in use): %w", ErrTimeout, to.d, c.Addr(), err)}}
	}
	return call, err
}

// contextNotSent is the error of a request whose context ended before it was sent on a
// connection (while it waited for a free stream id, or before it started): a *nextHostError
// matching ErrNotSent and the context's error err. It is not an attempt (see attempt), and
// sendPlan returns it as it is only when no attempt of the request was sent.
func contextNotSent(info *reqInfo, err error) error {
	return &nextHostError{err: notSentError{fmt.Errorf("native: %s: %w", abbreviate(info.what), err)}}
}

// retryTimedOut returns the timeout error of a request whose timeout passed before it could
// be sent again: before its attempt number (not the first; the error wraps last, the failure
// that caused the retry), or, when no attempt was sent yet, after a connection failed before
// writing it (unsent, that failure; its Err nil when none did). A request is not sent once the
// caller is no longer waiting for it, whether or not an attempt was sent before.
func retryTimedOut(to *reqTimeout, info *reqInfo, number int, last, unsent HostError) error {
	if !to.expired() {
		return nil
	}
	switch {
	case number > 0 && last.Err != nil:
		return fmt.Errorf("%w after %s: %q not retried (%d attempts, the last on %s failed: %w): %w",
			ErrTimeout, info.timeout, abbreviate(info.what), number, last.Host, sentBefore(last.Err, number), context.DeadlineExceeded)
	case number == 0 && unsent.Err != nil:
		return fmt.Errorf("%w after %s: %q not sent (on %s: %w): %w",
			ErrTimeout, info.timeout, abbreviate(info.what), unsent.Host, unsent.Err, context.DeadlineExceeded)
	}
	return nil
}

// maxAttempts bounds the attempts of one request, whatever the retry policy says.
const maxAttempts = 64

// nextHostError says the request was not sent and can go to the next node. unsent, set by
// attempt, says that nothing at all was sent on the node for this attempt (no re-prepare
// either): it is not an attempt, and sendPlan does not number it.
type nextHostError struct {
	err    error
	unsent bool
}

func (e *nextHostError) Error() string { return e.err.Error() }

// retryError carries a retry policy's decision to retry.
type retryError struct {
	err      error
	sameHost bool
}

func (e *retryError) Error() string { return e.err.Error() }

// wantToken reports whether requests compute their partition's token: to route to its
// replicas (Config.Routing TokenAware), or to the connection of its shard on a sharded node.
func (s *Session) wantToken() bool { return s.cfg.Routing == TokenAware || s.sharded.Load() }

// reprepareAgain is how many more times than reprepareBudget's base one attempt prepares
// again and resends when the node answers UNPREPARED once more right after the PREPARE: its
// prepared statement cache, churned by other clients' statements, can forget the statement
// between the two. gocql v1.7.0 prepares again as long as the node answers UNPREPARED.
const reprepareAgain = 9

// reprepareBudget is how many times one attempt may prepare again and resend after
// UNPREPARED: once for a statement, once per statement for a batch, and reprepareAgain
// more for a node that forgets a statement again.
func reprepareBudget(info *reqInfo) int {
	if info.batch != nil {
		return max(len(info.batch.stmts), 1) + reprepareAgain
	}
	return 1 + reprepareAgain
}

// observe tells the request's observer of an attempt. An asynchronous request's goroutine is
// one Close waits for: Close does not wait for it while the observer runs, so that the
// observer may call Close.
func (s *Session) observe(ctx context.Context, info *reqInfo, a Attempt) {
	s.wg.callback(info.async, info.cbDepth, func() { info.observer(ctx, a) })
}

// attempt sends the request once on c and waits for the outcome.
func (s *Session) attempt(ctx context.Context, c *conn.Conn, info *reqInfo, to *reqTimeout, number int) (*Result, error) {
	var start time.Time
	if info.observer != nil {
		start = time.Now()
	}
	res, err := s.roundTrip(ctx, c, info, to)
	if info.passable {
		// A re-prepared or retried send on this node waits for a stream id (bounded).
		info.passable = false
		if err == errPassBusy {
			return nil, err // nothing was sent: not an attempt
		}
	}
	// Only a failed attempt is looked at: nh, whose address errors.As takes, lives on the heap,
	// and declared on every attempt it cost a successful request an allocation.
	if err != nil {
		if nh := (*nextHostError)(nil); errors.As(err, &nh) && errors.Is(nh.err, ErrNotSent) {
			// Nothing was sent (the connection failed before writing the request, or the request's
			// timeout or context ended while it waited for a free stream id or before it started),
			// as when nextConn finds the node without an open connection, so this is not an
			// attempt. It is neither observed nor numbered, and the retry policy is not asked: the
			// request goes to the next node (sendPlan), unless its timeout has passed meanwhile,
			// which starts now if no wait has started it yet.
			to.fix()
			nh.unsent = true
			info.dropNumber()
			return nil, nh
		}
	}
	if info.numbers != nil {
		// A speculative attempt: numbered when it started on the connection (or now, when
		// it failed to start for a reason that no node would accept either).
		info.takeNumber()
		number = info.number
	}
	// A node that does not know a prepared statement answers UNPREPARED with its id: the
	// statement is prepared again on this connection and the request sent again. A batch can
	// hold several statements the node does not know, reported one per answer, so this repeats
	// up to once per statement, and a node may forget a statement again right after its
	// PREPARE, so reprepareAgain more times. Rows the prepared metadata does not describe (errStaleMetadata)
	// are prepared again alike, but they say that the statement ran (ran).
	ran := false
	for left := reprepareBudget(info); err != nil && left > 0; left-- {
		up := (*UnpreparedError)(nil)
		if !errors.As(err, &up) && !errors.Is(err, errStaleMetadata) {
			break
		}
		ran = ran || up == nil
		var id []byte
		if up != nil {
			id = up.ID
		}
		rstart := time.Now()
		rerr := s.reprepare(ctx, c, info, to, id)
		if info.observer != nil {
			s.observe(ctx, info, Attempt{Statement: info.what, Host: c.Addr(), Number: number, Reprepare: true, Start: rstart, End: time.Now(), Err: rerr})
		}
		if rerr != nil {
			// The re-prepare's failure comes first (errors.As finds it before the UNPREPARED):
			// it is the answer that matters, the server's refusal of the statement (its table
			// was dropped, say), as the legacy drivers report it.
			err = fmt.Errorf("%w (re-preparing, after the node answered: %v)", rerr, err)
			break
		}
		res, err = s.roundTrip(ctx, c, info, to)
	}
	if ran {
		// The PREPARE sent again, or the request after it, never left the client, but the
		// request ran before: its error is that of a request sent (which may have run), not
		// one for the next node whatever its idempotence.
		if nh, ok := err.(*nextHostError); ok && errors.Is(nh.err, ErrNotSent) {
			err = attemptError{nh.err}
		} else if errors.Is(err, ErrNotSent) {
			err = attemptError{err}
		}
	}
	if info.observer != nil {
		a := Attempt{Statement: info.what, Host: c.Addr(), Number: number, Consistency: Consistency(*info.consistency),
			Idempotent: info.idempotent, Start: start, End: time.Now(), Err: err}
		if res != nil {
			a.Rows = res.rowCount
		}
		s.observe(ctx, info, a)
	}
	if err == nil {
		if res.kind == ResultSetKeyspace {
			if uerr := s.useKeyspace(res.keyspace, info.useLocked); uerr != nil {
				return res, fmt.Errorf("native: USE %s succeeded on %s but not on every connection: %w", res.keyspace, c.Addr(), uerr)
			}
		}
		return res, nil
	}
	// The timeout spans the retries: a coarse one that no wait has started yet (the attempt
	// was answered while its caller read the socket) starts now, not at the next attempt's
	// wait, after the retry policy (which may back off) has run.
	to.fix()
	var nh *nextHostError
	if errors.As(err, &nh) || info.retry == nil || ctx.Err() != nil || errors.Is(err, ErrTimeout) {
		return nil, err
	}
	var re *RequestError
	var closed bool
	if !errors.As(err, &re) {
		closed = errors.Is(err, ErrConnClosed)
		if !closed {
			return nil, err // not a server error nor a broken connection: nothing to retry
		}
	}
	a := &Attempt{Statement: info.what, Host: c.Addr(), Number: number, Consistency: Consistency(*info.consistency), Idempotent: info.idempotent, Err: err}
	deadline := to.deadline() // fixed above
	if to == nil {
		deadline = info.deadline // a speculative attempt's: the request's
	}
	d := s.askRetryPolicy(ctx, info, a, deadline)
	if s.ctx.Err() != nil {
		return nil, err // the session closed meanwhile: no retry
	}
	if d.SetConsistency {
		*info.consistency = proto.Consistency(d.Consistency)
	}
	switch d.Action {
	case RetrySameHost:
		return nil, &retryError{err: err, sameHost: !closed}
	case RetryNextHost:
		return nil, &retryError{err: err}
	case Ignore:
		return &Result{kind: ResultVoid, host: c.Addr(), sess: s}, nil
	}
	return nil, err
}

// askRetryPolicy calls the request's retry policy with a context that also ends when the
// session closes (cause ErrSessionClosed), so that a policy backing off does not hold Close
// up, and at deadline, the request's (none when zero), after which no retry is sent: a policy
// backing off does not hold the caller past the request's timeout either. The context costs
// a few allocations, on the retry path only. As with the Observer (see observe), Close does
// not wait for an asynchronous request while its policy decides, so that the policy may call
// Close.
func (s *Session) askRetryPolicy(ctx context.Context, info *reqInfo, a *Attempt, deadline time.Time) (d RetryDecision) {
	pctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.ctx, func() { cancel(ErrSessionClosed) })
	defer func() {
		stop()
		cancel(nil)
	}()
	if !deadline.IsZero() {
		var cancelDeadline context.CancelFunc
		pctx, cancelDeadline = context.WithDeadline(pctx, deadline)
		defer cancelDeadline()
	}
	s.wg.callback(info.async, info.cbDepth, func() { d = info.retry.Retry(pctx, a) })
	return d
}

// neverEnds reports whether ctx is context.Background() or context.TODO(), which never end. It
// does not call ctx.Done, which allocates the channel of a cancellable context that nothing
// has waited on yet.
func neverEnds(ctx context.Context) bool {
	return ctx == context.Background() || ctx == context.TODO()
}

// roundTrip sends info.msg on c and converts the response.
func (s *Session) roundTrip(ctx context.Context, c *conn.Conn, info *reqInfo, to *reqTimeout) (*Result, error) {
	if a := info.started; a != nil && a.call != nil {
		// The first attempt, sent and answered without a goroutine (see startDetached).
		call := a.call
		a.call, info.started = nil, nil
		return s.convertResponse(c, call, info)
	}
	call, err := s.sendAndWait(ctx, c, info, to)
	if err != nil {
		return nil, err
	}
	return s.convertResponse(c, call, info)
}

// sendAndWait sends info.msg on c and waits for the response, its timeout or ctx; it returns
// the completed call, or an error (the call released).
func (s *Session) sendAndWait(ctx context.Context, c *conn.Conn, info *reqInfo, to *reqTimeout) (*conn.Call, error) {
	if err := ctx.Err(); err != nil {
		// Already over: nothing is sent (the response could otherwise be read below
		// before the context is looked at).
		return nil, contextNotSent(info, err)
	}
	var call *conn.Call
	var err error
	if info.passable || (to != nil && to.d > 0) {
		// A request with a timeout never waits for a stream id beyond it, and one that may
		// pass its node over does not wait at all. The stream ids may run out between
		// nextConn's look at the connection and this start (other requests take them), so
		// only a start that cannot wait is safe here.
		if h := s.cfg.beforeTryStart; h != nil {
			h(c.Addr())
		}
		call, err = c.TryStart(info.msg)
		if errors.Is(err, conn.ErrNoFreeStream) {
			if info.passable {
				return nil, errPassBusy
			}
			call, err = startSaturated(ctx, c, info, to)
		}
	} else {
		call, err = c.Start(ctx, info.msg)
	}
	if err != nil {
		if ctx.Err() != nil {
			// It ended while the request waited for a free stream id: Start sends
			// nothing when it fails.
			return nil, contextNotSent(info, ctx.Err())
		}
		var nh *nextHostError
		if errors.As(err, &nh) {
			return nil, err
		}
		if c.Err() != nil || errors.Is(err, conn.ErrConnClosed) {
			// Start sends nothing when it fails.
			return nil, &nextHostError{err: notSentError{fmt.Errorf("%w: %w", ErrConnClosed, err)}}
		}
		return nil, fmt.Errorf("native: sending %q: %w", abbreviate(info.what), err)
	}
	if h := s.cfg.afterStart; h != nil {
		h(ctx, c.Addr())
	}
	info.takeNumber()
	// Alone on the connection, read the response in this goroutine (for a millisecond or
	// two at most, then watch ctx and the timeout below as usual). With a context that never
	// ends, only the timeout bounds the read: a coarse one starts now (it would otherwise
	// start at the first wait, after the read), and the read may last longer.
	watch := !neverEnds(ctx)
	if !watch {
		to.fix()
	}
	until, ok := ctx.Deadline()
	if d := to.deadline(); !d.IsZero() && (!ok || d.Before(until)) {
		until = d
	}
	call.Pump(until, watch)
	if call.Completed() {
		// The deadline passed first from the caller's view: the timeout wins, as in the
		// legacy drivers, whose timer drops a late response.
		if !to.coarse() && to.expired() {
			call.Release()
			return nil, timeoutError(c, info)
		}
	} else if to.coarse() {
		if err := s.waitCoarse(ctx, c, call, info, to); err != nil {
			return nil, err
		}
	} else {
		timeoutC := to.C()
		select {
		case <-call.Done():
			call.Received()
			// select picks at random among ready cases: when the deadline had passed too by
			// the time this goroutine ran, the timeout wins deterministically. The clock
			// decides, not the timer's channel, which may not have received yet although its
			// time has passed (the runtime runs timers in the heap when it gets to them).
			if to.expired() {
				call.Release()
				return nil, timeoutError(c, info)
			}
		case <-ctx.Done():
			call.Release()
			return nil, fmt.Errorf("native: %s on %s: %w", abbreviate(info.what), c.Addr(), ctx.Err())
		case <-timeoutC:
			call.Release()
			return nil, timeoutError(c, info)
		}
	}
	return call, nil
}

// convertResponse converts the response of call, a completed attempt on c, and releases call.
func (s *Session) convertResponse(c *conn.Conn, call *conn.Call, info *reqInfo) (*Result, error) {
	resp, err := call.Response()
	if err != nil {
		call.Release()
		if err == errCoarseTimeout {
			return nil, timeoutError(c, info)
		}
		var er *proto.ErrorResponse
		if errors.As(err, &er) {
			return nil, serverError(er, c.Addr(), c)
		}
		if errors.Is(err, conn.ErrNotSent) {
			// The connection failed before the request was written: it can go to the next
			// node whatever its idempotence, as when Start finds the connection closed.
			return nil, &nextHostError{err: notSentError{fmt.Errorf("%w: %w", ErrConnClosed, err)}}
		}
		return nil, fmt.Errorf("%w: %s during %q: %w", ErrConnClosed, c.Addr(), abbreviate(info.what), err)
	}
	if resp.CustomPayload != nil && info.tablets != nil {
		learnTablet(info, resp.CustomPayload)
	}
	res, err := s.buildResult(resp, info, c.Addr())
	call.Release()
	return res, err
}

// waitCoarse waits for call or its context, with its coarse timeout registered on the
// session's clock, which interrupts the call (Response then returns errCoarseTimeout) when the
// timeout passes. Without a cancellable context it waits on the call's channel alone, the
// cheapest wait there is. When ctx ends first it releases call and returns the context's error.
func (s *Session) waitCoarse(ctx context.Context, c *conn.Conn, call *conn.Call, info *reqInfo, to *reqTimeout) error {
	to.beginWait()
	w := &to.wait
	w.call, w.end = call, to.end
	s.clock.add(w)
	var cancelled bool
	if done := ctx.Done(); done == nil {
		<-call.Done()
	} else {
		select {
		case <-call.Done():
		case <-done:
			cancelled = true
		}
	}
	// Unregistered before the call may be released (the clock must not touch a released call).
	s.clock.remove(w)
	if cancelled {
		call.Release()
		return fmt.Errorf("native: %s on %s: %w", abbreviate(info.what), c.Addr(), ctx.Err())
	}
	call.Received()
	return nil
}

// timeoutError is the error of a request whose timeout passed while waiting on c.
func timeoutError(c *conn.Conn, info *reqInfo) error {
	return fmt.Errorf("%w after %s waiting for %s (%q): %w", ErrTimeout, info.timeout, c.Addr(), abbreviate(info.what), context.DeadlineExceeded)
}

// runOn runs a simple statement on one connection, for the control connection and USE.
func (s *Session) runOn(ctx context.Context, c *conn.Conn, cql string) (*Result, error) {
	q := &proto.Query{Query: cql, Params: proto.QueryParams{Consistency: proto.One, PageSize: -1}}
	resp, err := c.Do(ctx, q)
	if err != nil {
		var er *proto.ErrorResponse
		if errors.As(err, &er) {
			return nil, serverError(er, c.Addr(), c)
		}
		return nil, err
	}
	defer resp.Release()
	return s.buildResult(resp, &reqInfo{what: cql}, c.Addr())
}

// batchStatementError is the error of a batch statement whose values could not be
// bound: err (a *BindError, mostly) with the statement's index in front, and without
// err's own "native: " prefix, which the batch's message already has.
type batchStatementError struct {
	index int
	err   error
}

func (e *batchStatementError) Error() string {
	return fmt.Sprintf("native: batch statement %d: %s", e.index, strings.TrimPrefix(e.err.Error(), "native: "))
}

func (e *batchStatementError) Unwrap() error { return e.err }
