package native

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
	"github.com/cqlbridge/cqlbridge/native/internal/conn"
	"github.com/cqlbridge/cqlbridge/native/internal/policy"
	"github.com/cqlbridge/cqlbridge/native/proto"
)

// prepKey identifies a cached prepared statement.
type prepKey struct{ keyspace, cql string }

// prepEntry is a cache slot; done is closed once p or err is set, so concurrent Prepare
// calls for the same text share one round trip.
type prepEntry struct {
	done chan struct{}
	p    *Prepared
	err  error
	key  prepKey
}

// Prepare prepares cql in the session keyspace, or returns the cached prepared statement
// when the same text was prepared before in the same keyspace. A failed PREPARE is not
// cached; successful ones stay cached until the cache holds more than
// Config.MaxPreparedStatements (it then drops ones neither prepared nor bound lately), until
// DropPrepared, or until the server refuses to prepare them again (see Prepared.Evicted).
// Prepare statement texts, not texts with literal values built per request: each of those
// costs a PREPARE.
func (s *Session) Prepare(ctx context.Context, cql string) (*Prepared, error) {
	p, _, err := s.prepare(ctx, cql, false)
	return p, err
}

// PrepareTraced is Prepare with request tracing: when this call sends the PREPARE (the
// statement is not cached and no other call is preparing it), the request asks the server to
// trace it, and traceID is the tracing session id of the server's answer (16 bytes). traceID is
// nil when no PREPARE was sent by this call or the server sent no id. When the server refuses
// the statement, traceID is also in the returned error's RequestError (TraceID, Traced).
func (s *Session) PrepareTraced(ctx context.Context, cql string) (p *Prepared, traceID []byte, err error) {
	return s.prepare(ctx, cql, true)
}

func (s *Session) prepare(ctx context.Context, cql string, trace bool) (*Prepared, []byte, error) {
	if ctx == nil {
		return nil, nil, errNilContext
	}
	if err := s.usable(); err != nil {
		return nil, nil, err
	}
	for {
		if s.closed.Load() {
			return nil, nil, ErrSessionClosed
		}
		key := prepKey{keyspace: s.Keyspace(), cql: cql}
		s.prepMu.Lock()
		e := s.prepared[key]
		s.prepMu.Unlock()
		if e == nil {
			// Not cached: the key's keyspace is read again under useMu, which the PREPARE
			// holds (for reading) until it is answered, so that no keyspace change can move
			// the connections to another keyspace in between.
			s.useMu.RLock()
			key.keyspace = s.Keyspace()
			s.prepMu.Lock()
			e = s.prepared[key]
			if e == nil {
				e = &prepEntry{done: make(chan struct{}), key: key}
				s.cachePrepared(e)
				s.prepMu.Unlock()
				p, traceID, err := s.prepareEntry(ctx, e, key, trace)
				s.useMu.RUnlock()
				if err != nil && s.closed.Load() {
					err = closedError(err)
				}
				return p, traceID, err
			}
			s.prepMu.Unlock()
			s.useMu.RUnlock()
		}
		select {
		case <-e.done:
			if e.err == nil {
				e.p.markUsed()
				return e.p, nil, nil
			}
			// The first caller's failure is not cached: try again ourselves.
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("native: preparing %q: %w", abbreviate(cql), ctx.Err())
		}
	}
}

// prepareEntry prepares key.cql for the new cache entry e, which it completes. The caller
// holds useMu for reading. Config.Timeout bounds the whole search for a node that answers.
func (s *Session) prepareEntry(ctx context.Context, e *prepEntry, key prepKey, trace bool) (*Prepared, []byte, error) {
	defer close(e.done)
	if d := s.cfg.Timeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errPrepareTimeout)
		defer cancel()
	}
	var traceID []byte
	var pool *hostPool
	e.p, pool, traceID, e.err = s.prepareAnywhere(ctx, key.cql, key.keyspace, trace)
	switch {
	case e.err != nil:
		if context.Cause(ctx) == errPrepareTimeout {
			e.err = fmt.Errorf("%w after %s preparing %q: %w", ErrTimeout, s.cfg.Timeout, abbreviate(key.cql), e.err)
		}
		s.prepMu.Lock()
		delete(s.prepared, key) // still in flight (done is closed on return), so still e
		s.prepMu.Unlock()
	case !s.cfg.PrepareOnOneNode:
		s.prepareOnOthers(pool, key.cql, key.keyspace)
	}
	return e.p, traceID, e.err
}

// ErrBindTypesChanged is wrapped by the error of a request whose prepared statement the server
// had forgotten and, prepared again, takes other types of values than it was bound with (its
// table was dropped and created again with other column types). The request is not sent with
// the values encoded for the old types; the statement's metadata now describes the new ones,
// so binding the same values again and executing the new Statement encodes them for those.
// Result.NextPage (and All, Iter) fails the same way, without fetching the page, when the
// statement was prepared again with other types since its first page (the values of that
// page go with every next one): execute the statement again.
var ErrBindTypesChanged = errors.New("native: the bind markers of the prepared statement changed types on the server")

// ErrPreparedKeyspaceChanged is wrapped by the error of a request whose prepared statement a
// node did not know (it answered UNPREPARED) after a USE had moved the session to another
// keyspace than the one the statement was prepared in, and which could not be prepared again
// in its own keyspace there. Such a statement is prepared again on a short-lived connection to
// that node in the statement's keyspace (prepared on the session's connections its unqualified
// tables would be the other keyspace's), one for all the requests that need it at the same
// time; this error says that connection could not be opened or could not use the keyspace (it
// was dropped, say). On a cluster the case arises for a statement prepared just before a USE,
// on the nodes that had not been sent it yet (see Config.PrepareOnOneNode), and after a node
// restarted and forgot its prepared statements.
var ErrPreparedKeyspaceChanged = errors.New("native: prepared statement's keyspace is no longer the session's")

// errPrepareTimeout is the cause of a Prepare's context when Config.Timeout passed.
var errPrepareTimeout = errors.New("prepare timeout")

// prepareAnywhere prepares cql on the first node of a round-robin plan that answers and
// returns that node's pool. With trace, each PREPARE sent asks for
// tracing, and the tracing id of the answer that ends the search (the success, or the
// server's refusal) is returned.
func (s *Session) prepareAnywhere(ctx context.Context, cql, keyspace string, trace bool) (*Prepared, *hostPool, []byte, error) {
	st := s.state.Load()
	plan := policy.NewPlan(nil, len(st.pools), st.remote, s.rr.Add(1))
	var failed []HostError
	for {
		node, ok := plan.Next()
		if !ok {
			return nil, nil, nil, &NoHostAvailableError{Errors: failed}
		}
		c, err := st.pools[node].pick()
		if err != nil {
			failed = append(failed, HostError{Host: st.pools[node].addr, Err: err})
			continue
		}
		if err := s.alignKeyspace(ctx, c, keyspace); err != nil {
			if ctx.Err() != nil {
				return nil, nil, nil, err
			}
			failed = append(failed, HostError{Host: c.Addr(), Err: err})
			continue
		}
		p, traceID, err := s.prepareOn(ctx, c, cql, keyspace, trace)
		if err == nil {
			if c.Version() < proto.Version4 {
				s.keyFromSchema(ctx, c, p.m()) // v3 has no partition key indexes
			}
			return p, st.pools[node], traceID, nil
		}
		var re *RequestError
		if errors.As(err, &re) || ctx.Err() != nil {
			return nil, nil, traceID, err // the server refused the statement: another node will too
		}
		failed = append(failed, HostError{Host: c.Addr(), Err: err})
	}
}

// prepareOnOthers sends the PREPARE of cql, in the background, to an open connection of every
// node except done (the one that prepared it). Nothing waits for the answers and failures are
// ignored: a node that does not know the statement answers UNPREPARED and gets it then. Each
// request is bounded by Config.Timeout, or DefaultTimeout when that is disabled, and ends when
// the session closes.
func (s *Session) prepareOnOthers(done *hostPool, cql, keyspace string) {
	for _, p := range s.state.Load().pools {
		if p == done {
			continue
		}
		c, err := p.pick()
		if err != nil {
			continue // no open connection: the node gets the statement on demand
		}
		s.goBackground(func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, s.backgroundTimeout())
			defer cancel()
			s.useMu.RLock()
			defer s.useMu.RUnlock()
			if s.Keyspace() != keyspace || s.alignKeyspace(ctx, c, keyspace) != nil {
				return // a USE came in between: the statement is prepared again on demand
			}
			_, _, _ = s.prepareOn(ctx, c, cql, keyspace, false)
		})
	}
}

// backgroundTimeout bounds a request the session makes on its own: Config.Timeout, or
// DefaultTimeout when that is disabled.
func (s *Session) backgroundTimeout() time.Duration {
	if s.cfg.Timeout > 0 {
		return s.cfg.Timeout
	}
	return DefaultTimeout
}

// prepareOn sends PREPARE on c, with the tracing flag when trace is set, and returns the
// tracing id of the answer (nil when there is none), also when the answer is an error. The
// statement resolves in c's keyspace, which the caller made sure is keyspace.
func (s *Session) prepareOn(ctx context.Context, c *conn.Conn, cql, keyspace string, trace bool) (*Prepared, []byte, error) {
	resp, err := c.Do(ctx, &proto.Prepare{FrameOptions: proto.FrameOptions{Tracing: trace}, Query: cql})
	if err != nil {
		var er *proto.ErrorResponse
		if errors.As(err, &er) {
			var traceID []byte
			if er.HasTracingID {
				traceID = bytes.Clone(er.TracingID[:])
			}
			return nil, traceID, serverError(er, c.Addr(), c)
		}
		if errors.Is(err, conn.ErrConnClosed) {
			// As for any request (roundTrip): callers match ErrConnClosed, and ErrNotSent
			// when the PREPARE never left.
			err = fmt.Errorf("native: preparing %q on %s: %w: %w", abbreviate(cql), c.Addr(), ErrConnClosed, err)
			if errors.Is(err, conn.ErrNotSent) {
				err = notSentError{err}
			}
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("native: preparing %q on %s: %w", abbreviate(cql), c.Addr(), err)
	}
	defer resp.Release()
	var traceID []byte
	if resp.HasTracingID {
		traceID = bytes.Clone(resp.TracingID[:])
	}
	pr, ok := resp.Msg.(*proto.PreparedResult)
	if !ok {
		return nil, traceID, fmt.Errorf("native: preparing %q on %s: unexpected %s response", abbreviate(cql), c.Addr(), resp.Header.Opcode)
	}
	m := &preparedMeta{
		id:               bytes.Clone(pr.ID),
		resultMetadataID: bytes.Clone(pr.ResultMetadataID),
		params:           columnsOf(pr.Bind),
		columns:          columnsOf(pr.Result.Columns),
		lwt:              uint32(pr.Flags)&c.LWTMask() != 0, // the mask is 0 unless the node marks LWTs
	}
	if len(pr.PKIndexes) > 0 {
		m.pkIndexes = make([]int, len(pr.PKIndexes))
		for i, x := range pr.PKIndexes {
			if int(x) >= len(m.params) {
				m.pkIndexes = nil
				break
			}
			m.pkIndexes[i] = int(x)
		}
	}
	// The routing keyspace is the one the key columns live in.
	m.routingKeyspace = keyspace
	if len(m.params) > 0 && m.params[0].Keyspace != "" {
		m.routingKeyspace = m.params[0].Keyspace
	}
	if c.TabletRouting() && len(m.pkIndexes) > 0 {
		if key := m.params[m.pkIndexes[0]]; key.Table != "" {
			m.tablets = s.tablets.table(m.routingKeyspace, key.Table)
		}
	}
	p := &Prepared{cql: cql, keyspace: keyspace}
	p.meta.Store(m)
	return p, traceID, nil
}

// reprepare handles an UNPREPARED answer on c: it prepares again, on c, the statement with
// the unknown id (the EXECUTE's, or one of a batch's) and updates the id if it changed. The
// request's timeout bounds it: to, or info.deadline for a speculative attempt (to is nil);
// nothing but ctx when the request has no timeout, as for its other waits.
func (s *Session) reprepare(ctx context.Context, c *conn.Conn, info *reqInfo, to *reqTimeout, id []byte) error {
	var target *Prepared
	switch {
	case info.prepared != nil:
		target = info.prepared
	case info.batch != nil:
		for i := range info.batch.stmts {
			if p := info.batch.stmts[i].prepared; p != nil && (len(id) == 0 || bytes.Equal(p.ID(), id)) {
				target = p
				break
			}
		}
	}
	if target == nil {
		return fmt.Errorf("native: the server does not know prepared statement id %x", id)
	}
	parent := ctx
	end := info.deadline
	if to != nil && to.d > 0 {
		to.fix()
		end = to.end
	}
	if !end.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, end)
		defer cancel()
	}
	s.useMu.RLock()
	defer s.useMu.RUnlock()
	var fresh *Prepared
	var err error
	if ks := c.Keyspace(); target.keyspace != "" && ks != target.keyspace {
		// A USE moved the session to another keyspace since Prepare: prepared on c, the
		// statement's unqualified tables would be that keyspace's. A node binds a prepared
		// statement to the keyspace it was prepared in, so it is prepared on a connection of
		// its own in the statement's keyspace, and c then executes it by its id.
		fresh, err = s.prepareAside(ctx, c.Addr(), ks, target)
	} else {
		fresh, _, err = s.prepareOn(ctx, c, target.cql, target.keyspace, false)
	}
	if err != nil {
		var re *RequestError
		if errors.As(err, &re) {
			// The server refuses the statement now (its table was dropped): like gocql, which
			// drops a statement from its cache when preparing it fails, forget it, so that the
			// next Prepare of the text asks the server again rather than returning metadata
			// that may no longer describe the table.
			s.evictPrepared(target)
		}
		if !end.IsZero() && !time.Now().Before(end) && parent.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			// The request's timeout passed: reported as for any other wait of the request.
			return fmt.Errorf("%w after %s re-preparing %q on %s: %w", ErrTimeout, info.timeout, abbreviate(target.cql), c.Addr(), err)
		}
		return err
	}
	m := fresh.m()
	bound := target.m()
	if info.prepared != nil && info.meta != nil {
		bound = info.meta // the metadata this request's values were encoded with
	}
	if !sameBindTypes(bound.params, m.params) {
		// The table was dropped and created again with other column types: the values were
		// encoded for the old types and would be read with the new ones (silently wrong
		// values when the lengths happen to fit). The fresh metadata is kept, so that binding
		// again encodes for the new types, but this request is not sent again.
		target.meta.Store(m)
		return fmt.Errorf("%w: %q now takes %s, was %s: the values were encoded for the old types and are not sent; bind and execute again", ErrBindTypesChanged, abbreviate(target.cql), describeParams(m.params), describeParams(bound.params))
	}
	if old := target.m(); m.pkIndexes == nil && sameParamNames(old.params, m.params) {
		m.pkIndexes = old.pkIndexes // found from the schema at v3 (keyFromSchema)
	}
	target.meta.Store(m)
	switch {
	case info.prepared != nil:
		if e, ok := info.msg.(*proto.Execute); ok {
			e.ID = m.id
			e.ResultMetadataID = m.resultMetadataID
		}
		info.meta = m
	case info.batch != nil:
		if b, ok := info.msg.(*proto.Batch); ok {
			for i := range info.batch.stmts {
				if info.batch.stmts[i].prepared == target {
					b.Statements[i].ID = m.id
				}
			}
		}
	}
	return nil
}

// asideKey identifies a statement being prepared aside (see prepareAside): the node, the
// keyspace and the text.
type asideKey struct{ addr, keyspace, cql string }

// asideFlight is one preparation aside; done is closed when p or err is set.
type asideFlight struct {
	done chan struct{}
	p    *Prepared
	err  error
	// retry is set when the preparation ended with its own requester's context, which says
	// nothing about the statement: the requests waiting for it try themselves.
	retry bool
}

// prepareAside prepares target (its text, in its keyspace) on addr, whose connections use
// keyspace ks since a USE, on a short-lived connection of its own in target's keyspace: a node
// binds a prepared statement to the keyspace it was prepared in, so the session's connections
// then execute it by its id. Requests that need the same statement on the same node at the same
// time share one connection and one PREPARE (a restarted node, which forgot its statements,
// does not get a connection per request). The work is bounded by the session's background
// timeout and ends when the session closes.
func (s *Session) prepareAside(ctx context.Context, addr, ks string, target *Prepared) (*Prepared, error) {
	key := asideKey{addr: addr, keyspace: target.keyspace, cql: target.cql}
	for {
		s.asideMu.Lock()
		f := s.aside[key]
		if f == nil {
			break // with asideMu held
		}
		s.asideMu.Unlock()
		select {
		case <-f.done:
			if !f.retry {
				return f.p, f.err
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("native: preparing %q in keyspace %q on %s: %w", abbreviate(target.cql), target.keyspace, addr, ctx.Err())
		}
	}
	f := &asideFlight{done: make(chan struct{})}
	if s.aside == nil {
		s.aside = make(map[asideKey]*asideFlight)
	}
	s.aside[key] = f
	s.asideMu.Unlock()
	defer func() {
		s.asideMu.Lock()
		delete(s.aside, key)
		s.asideMu.Unlock()
		close(f.done)
	}()

	wctx, cancel := context.WithTimeout(ctx, s.backgroundTimeout())
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()
	// The session's connection settings in target's keyspace. Not one of the node's pool, the
	// connection is not reported to Config.OnConnect.
	cc := s.connConfig(addr, nil)
	cc.Keyspace = target.keyspace
	tc, err := conn.Dial(wctx, addr, cc)
	err = dialError(addr, err)
	if err == nil {
		defer tc.Close()
		f.p, _, err = s.prepareOn(wctx, tc, target.cql, target.keyspace, false)
	}
	var re *RequestError
	switch {
	case err == nil:
	case tc != nil && errors.As(err, &re):
		// The server refused the statement itself (its table was dropped): reprepare
		// handles that as on the session's connections.
		f.err = err
	case s.ctx.Err() != nil && ctx.Err() == nil:
		// Close abandoned the connection: its error (a cancelled dial's or PREPARE's) must
		// not read as the end of the request's own context.
		f.err = fmt.Errorf("%w: preparing %q again in keyspace %q on %s", ErrSessionClosed, abbreviate(target.cql), target.keyspace, addr)
	default:
		// No connection in target's keyspace (the keyspace was dropped, the node is down),
		// or it failed.
		f.retry = ctx.Err() != nil
		f.err = fmt.Errorf("%w: statement %q was prepared in keyspace %q, and %s, whose connections use keyspace %q since a USE, does not know it; preparing it there again in %q failed: %w", ErrPreparedKeyspaceChanged, abbreviate(target.cql), target.keyspace, addr, ks, target.keyspace, err)
	}
	return f.p, f.err
}

// sameParamNames reports whether a and b name the same bind markers, in the same order.
func sameParamNames(a, b []Column) bool {
	return slices.EqualFunc(a, b, func(x, y Column) bool {
		return x.Keyspace == y.Keyspace && x.Table == y.Table && x.Name == y.Name
	})
}

// evictPrepared removes p from the session's cache of prepared statements, if it is still there,
// and marks it evicted.
func (s *Session) evictPrepared(p *Prepared) {
	key := prepKey{keyspace: p.keyspace, cql: p.cql}
	s.prepMu.Lock()
	if e := s.prepared[key]; e != nil {
		select {
		case <-e.done:
			if e.p == p {
				delete(s.prepared, key)
			}
		default: // another Prepare of the text is in flight: it makes the new entry
		}
	}
	s.prepMu.Unlock()
	p.evicted.Store(true)
}

// sameBindTypes reports whether values encoded for bind markers old are valid, with the same
// meaning, for bind markers fresh: as many markers, of the same types, except that user-defined
// types (also inside collections, tuples and other user-defined types) may have gained fields
// (a value of the old type leaves them null).
func sameBindTypes(old, fresh []Column) bool {
	if len(old) != len(fresh) {
		return false
	}
	for i := range old {
		if !encodesAs(old[i].Type, fresh[i].Type) {
			return false
		}
	}
	return true
}

// encodesAs reports whether a value encoded for type a reads as the same value of type b: the
// types are equal, or b is a with fields added at the end of user-defined types.
func encodesAs(a, b *cqltype.Type) bool {
	if a.Equal(b) {
		return true
	}
	if a == nil || b == nil || a.Kind != b.Kind || a.Custom != b.Custom || a.Dim != b.Dim ||
		a.Keyspace != b.Keyspace || a.Name != b.Name || len(a.Elems) != len(b.Elems) {
		return false
	}
	if (a.Elem != nil || b.Elem != nil) && !encodesAs(a.Elem, b.Elem) ||
		(a.Key != nil || b.Key != nil) && !encodesAs(a.Key, b.Key) ||
		(a.Value != nil || b.Value != nil) && !encodesAs(a.Value, b.Value) {
		return false
	}
	for i, e := range a.Elems {
		if !encodesAs(e, b.Elems[i]) {
			return false
		}
	}
	if len(a.Fields) > len(b.Fields) || a.Kind != cqltype.KindUDT && len(a.Fields) != len(b.Fields) {
		return false
	}
	for i, f := range a.Fields {
		if f.Name != b.Fields[i].Name || !encodesAs(f.Type, b.Fields[i].Type) {
			return false
		}
	}
	return true
}

// describeParams lists the types of bind markers, for error messages.
func describeParams(params []Column) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, c := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name, c.Type)
	}
	b.WriteByte(')')
	return b.String()
}

// columnsOf converts protocol column specs.
func columnsOf(specs []proto.ColumnSpec) []Column {
	if specs == nil {
		return nil
	}
	out := make([]Column, len(specs))
	for i, c := range specs {
		out[i] = Column{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name, Type: c.Type}
	}
	return out
}
