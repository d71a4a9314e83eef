package native_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// opBreaker is a dialer whose connections, while it is armed, fail the next write that
// starts with a frame of opcode op, writing nothing (EPIPE, as on a connection the server
// reset); it disarms itself on that write.
type opBreaker struct {
	op     byte
	armed  atomic.Bool
	broken atomic.Int32
}

func (d *opBreaker) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var nd net.Dialer
	nc, err := nd.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &opBreakConn{Conn: nc, d: d}, nil
}

type opBreakConn struct {
	net.Conn
	d *opBreaker
}

func (c *opBreakConn) Write(p []byte) (int, error) {
	if len(p) > 4 && p[4] == c.d.op && c.d.armed.CompareAndSwap(true, false) { // byte 4: the opcode
		c.d.broken.Add(1)
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	}
	return c.Conn.Write(p)
}

// An EXECUTE answered with rows whose column count the session's prepared metadata does not
// have (the table changed) ran on the node: the session prepares the statement again and
// sends it again. When that PREPARE, or the EXECUTE after it, never leaves the client (its
// connection fails before writing it), the request's error must not match ErrNotSent: the
// statement ran once.
func TestStaleMetadataThenNotSentIsNotErrNotSent(t *testing.T) {
	const opPrepare, opExecute = 0x09, 0x0A
	for _, tc := range []struct {
		name string
		op   byte
	}{{"prepare", opPrepare}, {"execute", opExecute}} {
		t.Run(tc.name, func(t *testing.T) {
			d := &opBreaker{op: tc.op}
			cl, s := simClusterSession(t, cqlsim.Options{}, func(c *native.Config) {
				c.Dialer, c.ConnsPerHost = d, 1
				c.Observer = func(_ context.Context, a native.Attempt) {
					if a.Reprepare && a.Err == nil && tc.op == opExecute {
						d.armed.Store(true) // the EXECUTE sent again next
					}
				}
			})
			other, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			mustExec(t, s, "CREATE KEYSPACE mi WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			mustExec(t, s, "CREATE TABLE mi.kv (k int PRIMARY KEY, v text)")
			mustExec(t, s, "INSERT INTO mi.kv (k, v) VALUES (1, 'x')")
			const cql = "SELECT * FROM mi.kv WHERE k = ?"
			sel := mustPrepare(t, s, cql)
			execT(t, s, sel.Bind(1))
			mustExec(t, s, "ALTER TABLE mi.kv ADD w int")
			execT(t, other, mustPrepare(t, other, cql).Bind(1))

			d.armed.Store(tc.op == opPrepare)
			_, err = s.Execute(ctxT(t), sel.Bind(1).WithRetryPolicy(funcRetry(func(context.Context, *native.Attempt) native.RetryDecision {
				return native.RetryDecision{Action: native.Fail}
			})))
			if d.broken.Load() != 1 {
				t.Fatalf("no write was broken (error %v)", err)
			}
			if err == nil || errors.Is(err, native.ErrNotSent) || !errors.Is(err, native.ErrConnClosed) {
				t.Fatalf("%v; want an error matching ErrConnClosed and not ErrNotSent: the EXECUTE ran", err)
			}
		})
	}
}

// A request retried on its node (RetrySameHost) after a write timeout, whose retry the node
// answers UNPREPARED and whose EXECUTE sent again after the PREPARE never leaves the client
// (its connection fails before writing it), may have run at its first attempt: with no other
// node to try, its *NoHostAvailableError keeps that attempt and must not match ErrNotSent.
func TestRetriedThenUnpreparedNotSentIsNotErrNotSent(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{})
	big := strings.Repeat("v", 8<<10) // an EXECUTE above what a caller writes itself
	d := &cqltest.WriteBreaker{Addr: cl.Addrs()[0], MinLen: len(big)}
	var log attemptLog
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), Dialer: d, ConnsPerHost: 1,
		Timeout: 30 * time.Second, Observer: func(ctx context.Context, a native.Attempt) {
			if a.Reprepare && a.Err == nil {
				d.Armed.Store(true) // the EXECUTE sent again next
			}
			log.observe(ctx, a)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE ns WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ns.t (k int PRIMARY KEY, v text)")
	p := mustPrepare(t, s, "INSERT INTO ns.t (k, v) VALUES (?, ?)")
	for _, f := range []cqlsim.Fault{
		{Match: "INSERT INTO ns.t", Error: &message.WriteTimeout{ErrorMessage: "timed out", WriteType: "SIMPLE"}, Times: 1},
		{Match: "INSERT INTO ns.t", Error: &message.Unprepared{ErrorMessage: "unknown", Id: p.ID()}, Skip: 1, Times: 1},
	} {
		if err := cl.InjectFault(0, f); err != nil {
			t.Fatal(err)
		}
	}
	policy := funcRetry(func(_ context.Context, a *native.Attempt) native.RetryDecision {
		var wt *native.WriteTimeoutError
		if errors.As(a.Err, &wt) {
			return native.RetryDecision{Action: native.RetrySameHost}
		}
		return native.RetryDecision{Action: native.Fail}
	})
	_, err = s.Execute(ctxT(t), p.Bind(1, big).WithRetryPolicy(policy))
	if d.Broken.Load() != 1 {
		t.Fatalf("the EXECUTE sent again was not broken (error %v, attempts %+v)", err, log.all())
	}
	var wt *native.WriteTimeoutError
	if errors.Is(err, native.ErrNotSent) || !errors.As(err, &wt) {
		t.Fatalf("%v; want an error keeping the write timeout and not matching ErrNotSent (attempts %+v)", err, log.all())
	}
}

// A speculative attempt whose error matches ErrNotSent (its node answered UNPREPARED and the
// PREPARE sent again there never left the client) while another attempt has started on its
// connection, not yet numbered, must not end the request with an error matching ErrNotSent:
// that other attempt was sent.
func TestSpeculativeNotSentWhileAnotherStartsIsNotErrNotSent(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	d := &opBreaker{op: 0x09} // PREPARE
	var armed atomic.Bool
	var starts atomic.Int32
	entered := make(chan struct{})
	// PrepareOnOneNode: no PREPARE in the background, which the armed dialer would break.
	cfg := native.Config{Hosts: cl.Addrs(), Dialer: d, ConnsPerHost: 1, Routing: native.RoundRobin, PrepareOnOneNode: true,
		Timeout: 30 * time.Second, SpeculativeAttempts: 1, SpeculativeDelay: time.Millisecond}
	cfg = native.WithAfterStart(cfg, func(ctx context.Context, _ string) {
		if armed.Load() && starts.Add(1) == 2 {
			// The speculative attempt: started, held until the request stops its attempts.
			close(entered)
			<-ctx.Done()
		}
	})
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	mustExec(t, s, "CREATE KEYSPACE ns WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ns.t (k int PRIMARY KEY, v int)")
	p := mustPrepare(t, s, "INSERT INTO ns.t (k, v) VALUES (?, ?)")
	for i := range 2 {
		if err := cl.InjectFault(i, cqlsim.Fault{Match: "INSERT INTO ns.t", Error: &message.Unprepared{ErrorMessage: "unknown", Id: p.ID()}, Times: 1}); err != nil {
			t.Fatal(err)
		}
	}
	policy := funcRetry(func(ctx context.Context, _ *native.Attempt) native.RetryDecision {
		select { // the first attempt fails once the other one has started
		case <-entered:
		case <-ctx.Done():
		}
		return native.RetryDecision{Action: native.Fail}
	})
	d.armed.Store(true)
	armed.Store(true)
	_, err = s.Execute(ctxT(t), p.Bind(1, 1).WithIdempotent(true).WithRetryPolicy(policy))
	if d.broken.Load() != 1 || starts.Load() < 2 {
		t.Fatalf("%d PREPAREs broken, %d starts (error %v); want the first attempt's PREPARE broken and a speculative attempt", d.broken.Load(), starts.Load(), err)
	}
	if err == nil || errors.Is(err, native.ErrNotSent) {
		t.Fatalf("%v; want an error not matching ErrNotSent: the speculative attempt was sent", err)
	}
}
