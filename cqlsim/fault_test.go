package cqlsim_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// faultSession starts a one-node cluster with the table ks.t and a native session on it.
func faultSession(t *testing.T) (*cqlsim.Cluster, *native.Session) {
	t.Helper()
	c := cqlsim.StartT(t, cqlsim.Options{})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cqltest.Exec(t, c.Addrs()[0], "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, c.Addrs()[0], "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	return c, s
}

// A fault answers the statements it matches with its error, with every field as given, for as
// many statements as Times says; the others run.
func TestInjectFaultAnswersMatchingStatements(t *testing.T) {
	c, s := faultSession(t)
	ctx := context.Background()
	err := c.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t", Times: 2, Error: &message.ReadTimeout{
		ErrorMessage: "Operation timed out - received only 1 responses.",
		Consistency:  primitive.ConsistencyLevelQuorum, Received: 1, BlockFor: 2, DataPresent: true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	sel := native.Query("SELECT v FROM ks.t WHERE k = 1")
	for i := range 2 {
		_, err := s.Execute(ctx, sel)
		var rt *native.ReadTimeoutError
		if !errors.As(err, &rt) {
			t.Fatalf("select %d: got %v (%T), want a read timeout", i, err, err)
		}
		if rt.Consistency != native.Quorum || rt.Received != 1 || rt.BlockFor != 2 || !rt.DataPresent ||
			rt.Message != "Operation timed out - received only 1 responses." {
			t.Errorf("select %d: the read timeout is %+v, not the injected one", i, rt)
		}
	}
	if _, err := s.Execute(ctx, sel); err != nil {
		t.Errorf("the third select failed after the fault was spent: %v", err)
	}
	// Statements the fault does not match were never failed.
	if _, err := s.Execute(ctx, native.Query("INSERT INTO ks.t (k, v) VALUES (1, 1)")); err != nil {
		t.Errorf("an insert failed: %v", err)
	}
}

// A prepared statement is prepared normally and its executions fail; a failed write writes
// nothing; a batch fails when one of its statements matches; ClearFaults ends every fault.
func TestInjectFaultOnExecuteAndBatch(t *testing.T) {
	c, s := faultSession(t)
	ctx := context.Background()
	err := c.InjectFault(0, cqlsim.Fault{Match: "INSERT INTO ks.t", Error: &message.WriteTimeout{
		ErrorMessage: "write timed out", Consistency: primitive.ConsistencyLevelLocalQuorum,
		Received: 0, BlockFor: 2, WriteType: primitive.WriteTypeBatchLog,
	}})
	if err != nil {
		t.Fatal(err)
	}
	ins, err := s.Prepare(ctx, "INSERT INTO ks.t (k, v) VALUES (?, ?)")
	if err != nil {
		t.Fatalf("preparing a statement a fault matches: %v", err)
	}
	for name, run := range map[string]func() error{
		"execute": func() error { _, err := s.Execute(ctx, ins.Bind(1, 1)); return err },
		"batch": func() error {
			_, err := s.ExecuteBatch(ctx, native.NewBatch(native.LoggedBatch,
				native.Query("UPDATE ks.t SET v = 2 WHERE k = 2"), ins.Bind(3, 3)))
			return err
		},
	} {
		err := run()
		var wt *native.WriteTimeoutError
		if !errors.As(err, &wt) {
			t.Fatalf("%s: got %v (%T), want a write timeout", name, err, err)
		}
		if wt.WriteType != "BATCH_LOG" || wt.Consistency != native.LocalQuorum || wt.BlockFor != 2 {
			t.Errorf("%s: the write timeout is %+v, not the injected one", name, wt)
		}
	}
	res, err := s.Execute(ctx, native.Query("SELECT k FROM ks.t"))
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Len(); n != 0 {
		t.Errorf("the failed writes wrote %d rows", n)
	}
	if err := c.ClearFaults(0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(ctx, ins.Bind(1, 1)); err != nil {
		t.Errorf("after ClearFaults: %v", err)
	}
}

func TestInjectFaultRefusesBadInput(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	over := &message.Overloaded{ErrorMessage: "x"}
	for name, err := range map[string]error{
		"node -1":          c.InjectFault(-1, cqlsim.Fault{Error: over}),
		"node 2":           c.InjectFault(2, cqlsim.Fault{Error: over}),
		"no error":         c.InjectFault(0, cqlsim.Fault{Match: "x"}),
		"negative times":   c.InjectFault(1, cqlsim.Fault{Error: over, Times: -1}),
		"negative skip":    c.InjectFault(1, cqlsim.Fault{Error: over, Skip: -1}),
		"negative delay":   c.InjectFault(1, cqlsim.Fault{Error: over, Delay: -time.Second}),
		"lone warnings":    c.InjectFault(1, cqlsim.Fault{Delay: time.Second, Warnings: []string{"w"}}),
		"lone unsolicited": c.InjectFault(1, cqlsim.Fault{Delay: time.Second, Unsolicited: true}),
		"prepare error":    c.InjectFault(1, cqlsim.Fault{Delay: time.Second, Prepare: true, Error: over}),
		"prepare no delay": c.InjectFault(1, cqlsim.Fault{Prepare: true}),
		"clear node 2":     c.ClearFaults(2),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// An Unsolicited fault sends its error on stream -1 and leaves the statement unanswered: the
// native core, which fails a connection on such a frame, reports the server's message as
// coming from outside any request, and the next statement runs on a new connection.
func TestInjectFaultUnsolicited(t *testing.T) {
	c, s := faultSession(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t", Times: 1, Unsolicited: true,
		Error: &message.ServerError{ErrorMessage: "connection-level trouble"}})
	if err != nil {
		t.Fatal(err)
	}
	sel := native.Query("SELECT v FROM ks.t WHERE k = 1")
	_, err = s.Execute(ctx, sel)
	if !errors.Is(err, native.ErrConnClosed) || !strings.Contains(err.Error(), "outside any request (stream -1)") ||
		!strings.Contains(err.Error(), "connection-level trouble") {
		t.Fatalf("got %v, want the connection closed on the server's error from stream -1", err)
	}
	if _, err := s.Execute(ctx, sel); err != nil {
		t.Errorf("the next select failed: %v", err)
	}
}

// A fault with a Delay and no Error answers late but normally; Skip lets the first matching
// statements through untouched; an Error with a Delay comes late.
func TestInjectFaultDelayAndSkip(t *testing.T) {
	c, s := faultSession(t)
	ctx := context.Background()
	const delay = time.Second
	if err := c.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t", Delay: delay, Skip: 1, Times: 1}); err != nil {
		t.Fatal(err)
	}
	sel := native.Query("SELECT v FROM ks.t WHERE k = 1").WithTimeout(30 * time.Second)
	var took []time.Duration
	for i := range 3 {
		start := time.Now()
		if _, err := s.Execute(ctx, sel); err != nil {
			t.Fatalf("select %d: %v", i, err)
		}
		took = append(took, time.Since(start))
	}
	if took[1] < delay {
		t.Errorf("the second select took %v, less than the delay of %v", took[1], delay)
	}
	if took[0] >= delay || took[2] >= delay {
		t.Errorf("the first and third selects took %v and %v: the skipped and the spent fault delayed them", took[0], took[2])
	}

	if err := c.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t", Delay: delay, Times: 1, Error: &message.Overloaded{ErrorMessage: "late"}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := s.Execute(ctx, sel)
	var over *native.OverloadedError
	if !errors.As(err, &over) || time.Since(start) < delay {
		t.Errorf("got %v after %v, want overloaded after %v", err, time.Since(start), delay)
	}
}

// A Prepare fault delays the PREPARE of the statements it matches, and nothing else: neither
// their executions nor other statements' PREPARE.
func TestInjectFaultDelaysPrepare(t *testing.T) {
	c, s := faultSession(t)
	ctx := context.Background()
	const delay = time.Second
	if err := c.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t WHERE k", Delay: delay, Prepare: true}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p, err := s.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
	if took := time.Since(start); err != nil || took < delay {
		t.Fatalf("PREPARE of a matching statement: %v after %v, want it after at least %v", err, took, delay)
	}
	start = time.Now()
	if _, err := s.Execute(ctx, p.Bind(1)); err != nil || time.Since(start) >= delay {
		t.Errorf("EXECUTE of it: %v after %v, want no delay", err, time.Since(start))
	}
	start = time.Now()
	if _, err := s.Prepare(ctx, "SELECT v FROM ks.t"); err != nil || time.Since(start) >= delay {
		t.Errorf("PREPARE of another statement: %v after %v, want no delay", err, time.Since(start))
	}
}

// Which fault answers a statement several faults match: the first injected that is not
// skipping statements; a spent fault leaves the next one in charge; Skip counts every statement
// a fault matches, those another fault answers included.
func TestInjectFaultPrecedence(t *testing.T) {
	over := func(msg string) message.Error { return &message.Overloaded{ErrorMessage: msg} }
	boot := func(msg string) message.Error { return &message.IsBootstrapping{ErrorMessage: msg} }
	for _, tc := range []struct {
		name   string
		faults []cqlsim.Fault
		want   []string // per select: "overloaded", "bootstrapping" or "ok"
	}{
		{"first injected, then the next", []cqlsim.Fault{
			{Match: "ks.t", Times: 1, Error: over("overloaded")},
			{Match: "FROM ks.t", Error: boot("bootstrapping")},
		}, []string{"overloaded", "bootstrapping", "bootstrapping"}},
		{"skip counts statements another fault answered", []cqlsim.Fault{
			{Match: "FROM ks.t", Times: 1, Error: over("first")},
			{Match: "FROM ks.t", Skip: 1, Times: 1, Error: boot("second")},
		}, []string{"overloaded", "bootstrapping", "ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := faultSession(t)
			for _, f := range tc.faults {
				if err := c.InjectFault(0, f); err != nil {
					t.Fatal(err)
				}
			}
			for i, want := range tc.want {
				_, err := s.Execute(context.Background(), native.Query("SELECT v FROM ks.t WHERE k = 1"))
				var ov *native.OverloadedError
				var bs *native.IsBootstrappingError
				got := fmt.Sprintf("%v (%T)", err, err)
				switch {
				case err == nil:
					got = "ok"
				case errors.As(err, &ov):
					got = "overloaded"
				case errors.As(err, &bs):
					got = "bootstrapping"
				}
				if got != want {
					t.Errorf("select %d: got %s, want %s", i, got, want)
				}
			}
		})
	}
}

// The two codes go-cassandra-native-protocol has no message for, CDC_WRITE_FAILURE and
// CAS_WRITE_UNKNOWN, are sent as the spec lays them out: <code><message> and, for
// CAS_WRITE_UNKNOWN, <cl><received><blockfor>; after the warnings in v4 and v5 (flagged in the
// header), without them in v3, in segments in v5; on the request's stream, and the connection
// goes on.
func TestInjectFaultOwnErrorCodes(t *testing.T) {
	cas := &cqlsim.CASWriteUnknown{ErrorMessage: "CAS operation result is unknown - proposal accepted by 1 but not a quorum.",
		Consistency: primitive.ConsistencyLevelSerial, Received: 1, BlockFor: 2}
	cdc := &cqlsim.CDCWriteFailure{ErrorMessage: "Rejecting mutation to table ks.t: CDC is full"}
	header := func(version, flags byte, stream int16, n int) []byte {
		return []byte{0x80 | version, flags, 0, byte(stream), 0x00, 0, 0, byte(n >> 8), byte(n)}
	}
	str := func(s string) []byte { return append([]byte{byte(len(s) >> 8), byte(len(s))}, s...) }
	warnings := []byte{0, 1, 0, 4, 'w', 'a', 'r', 'n'}
	casBody := slices.Concat([]byte{0, 0, 0x17, 0}, str(cas.ErrorMessage), []byte{0, 8, 0, 0, 0, 1, 0, 0, 0, 2})
	cdcBody := slices.Concat([]byte{0, 0, 0x16, 0}, str(cdc.ErrorMessage))
	for _, tc := range []struct {
		name    string
		version byte
		err     message.Error
		want    []byte
	}{
		{"cas unknown v4", 4, cas, slices.Concat(header(4, 0x08, 5, len(warnings)+len(casBody)), warnings, casBody)},
		{"cdc failure v4", 4, cdc, slices.Concat(header(4, 0x08, 5, len(warnings)+len(cdcBody)), warnings, cdcBody)},
		{"cas unknown v3", 3, cas, slices.Concat(header(3, 0, 5, len(casBody)), casBody)},
		{"cdc failure v3", 3, cdc, slices.Concat(header(3, 0, 5, len(cdcBody)), cdcBody)},
		{"cas unknown v5", 5, cas, slices.Concat(header(5, 0x08, 5, len(warnings)+len(casBody)), warnings, casBody)},
		{"cdc failure v5", 5, cdc, slices.Concat(header(5, 0x08, 5, len(warnings)+len(cdcBody)), warnings, cdcBody)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 5})
			if err := c.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t", Times: 1, Error: tc.err, Warnings: []string{"warn"}}); err != nil {
				t.Fatal(err)
			}
			version := primitive.ProtocolVersion(tc.version)
			query := func(q string) *message.Query {
				return &message.Query{Query: q, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}
			}
			var (
				send func(stream int16, msg message.Message)
				r    io.Reader
			)
			if version == primitive.ProtocolVersion5 {
				v5 := handshakeV5(t, c.Addrs()[0], "")
				send, r = func(stream int16, msg message.Message) { v5.sendFrames(stream, msg) }, v5
			} else {
				rc := dialRaw(t, c.Addrs()[0])
				rc.send(version, 1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
				if f := rc.read(); f.Header.OpCode != primitive.OpCodeReady {
					t.Fatalf("STARTUP answered with %v", f.Body.Message)
				}
				send, r = func(stream int16, msg message.Message) { rc.send(version, stream, msg) }, rc.br
			}
			send(5, query("SELECT v FROM ks.t WHERE k = 1"))
			if got := readFrameBytes(t, r); !bytes.Equal(got, tc.want) {
				t.Errorf("the ERROR frame is\n%x, want\n%x", got, tc.want)
			}
			// The fault is spent; the next statement runs (and fails on the missing keyspace).
			send(6, query("SELECT v FROM ks.t WHERE k = 1"))
			got := readFrameBytes(t, r)
			if code := binary.BigEndian.Uint32(got[9:]); got[4] != 0x00 || int16(binary.BigEndian.Uint16(got[2:])) != 6 || code != 0x2200 {
				t.Errorf("the next statement got opcode %#x on stream %d, error code %#x: want INVALID on stream 6", got[4], binary.BigEndian.Uint16(got[2:]), code)
			}
		})
	}
}

// A message too long for a [string] cannot be sent: the statement gets a SERVER_ERROR instead
// of a malformed frame.
func TestInjectFaultOwnErrorTooLong(t *testing.T) {
	c, s := faultSession(t)
	long := strings.Repeat("x", 1<<16)
	if err := c.InjectFault(0, cqlsim.Fault{Match: "FROM ks.t", Times: 1, Error: &cqlsim.CDCWriteFailure{ErrorMessage: long}}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Execute(context.Background(), native.Query("SELECT v FROM ks.t WHERE k = 1"))
	var se *native.ServerError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "longer than a [string] can be") {
		t.Errorf("got %v (%T), want a SERVER_ERROR saying the message is too long", err, err)
	}
}

// readFrameBytes reads one v3+ frame (header and body) from r.
func readFrameBytes(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b := make([]byte, 9)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatalf("reading a frame header: %v", err)
	}
	body := make([]byte, binary.BigEndian.Uint32(b[5:]))
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatalf("reading a frame body: %v", err)
	}
	return append(b, body...)
}

// An EXECUTE of a statement the node does not know is answered UNPREPARED even when the
// statement becomes known between the fault check and the run (a PREPARE of it on another
// connection): the statement is looked up once, so that it never runs past a fault that
// would have failed it. Before, the run found the statement, and the fault, still unspent,
// was met only by a later statement (a flake of a compat test on three nodes, whose
// background PREPAREs race the first EXECUTE).
func TestInjectFaultUnknownStatementLookedUpOnce(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	addrs := c.Addrs()
	cqltest.Exec(t, addrs[0], "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, addrs[0], "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	const ins = "INSERT INTO ks.t (k, v) VALUES (1, 1)"
	zero, one := dialRaw(t, addrs[0]), dialRaw(t, addrs[1])
	zero.startup(nil)
	one.startup(nil)
	zero.send(primitive.ProtocolVersion4, 2, &message.Prepare{Query: ins})
	prep, ok := zero.read().Body.Message.(*message.PreparedResult)
	if !ok {
		t.Fatal("PREPARE on node 0 did not return a prepared result")
	}
	if c.KnowsPrepared(1, prep.PreparedQueryId) {
		t.Fatal("node 1 knows the statement prepared on node 0")
	}
	if err := c.InjectFault(1, cqlsim.Fault{Match: "ks.t", Times: 1, Error: &message.Overloaded{ErrorMessage: "overloaded"}}); err != nil {
		t.Fatal(err)
	}
	var learned bool
	c.SetAfterFaultCheck(func() {
		if !learned { // the first statement of the test after this point: the EXECUTE below
			learned = true
			c.Learn(1, prep.PreparedQueryId)
		}
	})
	exec := func(stream int16) message.Message {
		t.Helper()
		one.send(primitive.ProtocolVersion4, stream, &message.Execute{QueryId: prep.PreparedQueryId,
			Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
		return one.read().Body.Message
	}
	if m := exec(3); !isUnprepared(m, prep.PreparedQueryId) {
		t.Fatalf("the EXECUTE of a statement node 1 did not know at its fault check got %v, want UNPREPARED with its id", m)
	}
	c.SetAfterFaultCheck(func() {})
	if m := exec(4); !isOverloaded(m) {
		t.Errorf("the next EXECUTE (the node knows the statement now) got %v, want the injected fault", m)
	}
	if m := exec(5); m.GetOpCode() != primitive.OpCodeResult {
		t.Errorf("the EXECUTE after the fault was spent got %v, want a result", m)
	}

	// A traced EXECUTE answered UNPREPARED at the fault check is traced, as the engine's
	// UNPREPARED is: a node that did not know the statement and one asked to trace it.
	c.ClearFaults(1)
	if err := c.InjectFault(1, cqlsim.Fault{Match: "ks.t", Error: &message.Overloaded{ErrorMessage: "overloaded"}}); err != nil {
		t.Fatal(err)
	}
	zero.send(primitive.ProtocolVersion4, 6, &message.Prepare{Query: "SELECT v FROM ks.t WHERE k = 1"})
	sel, ok := zero.read().Body.Message.(*message.PreparedResult)
	if !ok {
		t.Fatal("PREPARE of the select on node 0 did not return a prepared result")
	}
	var buf bytes.Buffer
	f := frame.NewFrame(primitive.ProtocolVersion4, 7, &message.Execute{QueryId: sel.PreparedQueryId,
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	if err := frame.NewCodec().EncodeFrame(f, &buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	b[1] |= 0x02 // the tracing flag (the codec counts a tracing id in a request's length)
	one.write(b)
	if r := one.read(); !isUnprepared(r.Body.Message, sel.PreparedQueryId) || r.Body.TracingId == nil {
		t.Errorf("a traced EXECUTE of a statement node 1 does not know got %v with tracing id %v, want UNPREPARED with one", r.Body.Message, r.Body.TracingId)
	}
}

func isUnprepared(m message.Message, id []byte) bool {
	u, ok := m.(*message.Unprepared)
	return ok && bytes.Equal(u.Id, id)
}

func isOverloaded(m message.Message) bool {
	_, ok := m.(*message.Overloaded)
	return ok
}
