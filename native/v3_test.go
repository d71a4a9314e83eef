package native_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// frameLog records the version byte of every frame the driver writes, parsing the bytes
// written on each connection as a stream of uncompressed frames.
type frameLog struct {
	mu       sync.Mutex
	versions map[byte]int
}

func (l *frameLog) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &loggedConn{Conn: nc, log: l}, nil
}

func (l *frameLog) seen() map[byte]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[byte]int{}
	for v, n := range l.versions {
		out[v] = n
	}
	return out
}

type loggedConn struct {
	net.Conn
	log *frameLog
	mu  sync.Mutex
	buf []byte
}

func (c *loggedConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.buf = append(c.buf, b...)
	for len(c.buf) >= 9 {
		n := 9 + int(binary.BigEndian.Uint32(c.buf[5:9]))
		if len(c.buf) < n {
			break
		}
		c.log.mu.Lock()
		if c.log.versions == nil {
			c.log.versions = map[byte]int{}
		}
		c.log.versions[c.buf[0]]++
		c.log.mu.Unlock()
		c.buf = c.buf[n:]
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

// v3Session connects with ProtocolVersion 3 to a cqlsim cluster that speaks v3 at most, so
// that a v4 frame would be refused; the frames the driver writes are logged.
func v3Session(t *testing.T, nodes int) (*native.Session, *frameLog) {
	t.Helper()
	log := &frameLog{}
	s := simSession(t, cqlsim.Options{Nodes: nodes, MaxProtocolVersion: 3}, func(c *native.Config) {
		c.ProtocolVersion = 3
		c.Dialer = log
	})
	if v := s.ProtocolVersion(); v != 3 {
		t.Fatalf("ProtocolVersion() = %d, want 3", v)
	}
	return s, log
}

func TestProtocolV3Statements(t *testing.T) {
	s, log := v3Session(t, 3)
	ctx := ctxT(t)
	res := mustExec(t, s, "CREATE KEYSPACE v3 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	if sc := res.SchemaChange(); sc == nil || sc.Target != "KEYSPACE" || sc.Keyspace != "v3" {
		t.Errorf("schema change of CREATE KEYSPACE at v3: %+v", sc)
	}
	res = mustExec(t, s, "CREATE TABLE v3.kv (p int, c int, v text, PRIMARY KEY (p, c))")
	if sc := res.SchemaChange(); sc == nil || sc.Target != "TABLE" || sc.Name != "kv" {
		t.Errorf("schema change of CREATE TABLE at v3: %+v", sc)
	}

	// Simple statements with values.
	mustExec(t, s, "INSERT INTO v3.kv (p, c, v) VALUES (?, ?, ?)", int32(1), int32(0), "simple")

	// Prepared statements: v3 metadata has no partition key indexes; the key's columns are
	// read from system_schema.columns and matched to the markers by name, so prepared
	// statements are routed by token at v3 too, markers in any order.
	ins := mustPrepare(t, s, "INSERT INTO v3.kv (p, c, v) VALUES (?, ?, ?)")
	if pk := ins.PartitionKeyIndexes(); !slices.Equal(pk, []int{0}) {
		t.Errorf("PartitionKeyIndexes at v3 = %v, want [0] (from the schema)", pk)
	}
	for c := 1; c <= 9; c++ {
		if _, err := s.Execute(ctx, ins.Bind(1, c, "prepared")); err != nil {
			t.Fatalf("prepared insert %d: %v", c, err)
		}
	}
	mustExec(t, s, "CREATE TABLE v3.ck (a int, b text, c int, PRIMARY KEY ((a, b), c))")
	// The driver learns the new keyspace's replication from the schema change event.
	time.Sleep(500 * time.Millisecond)
	insCK := mustPrepare(t, s, "INSERT INTO v3.ck (c, b, a) VALUES (?, ?, ?)")
	if pk := insCK.PartitionKeyIndexes(); !slices.Equal(pk, []int{2, 1}) {
		t.Errorf("PartitionKeyIndexes of a composite key at v3 = %v, want [2 1]", pk)
	}
	perHost := routeCompositeKeys(t, s, insCK, 30, "v3: key")
	if len(perHost) != 3 {
		t.Errorf("v3: 30 keys reached %d nodes: %v", len(perHost), perHost)
	}
	// A statement whose markers do not bind the whole key has no indexes.
	if pk := mustPrepare(t, s, "SELECT v FROM v3.kv WHERE p = 1 AND c = ?").PartitionKeyIndexes(); pk != nil {
		t.Errorf("PartitionKeyIndexes without a marker for the key = %v, want nil", pk)
	}
	// An explicit routing key still routes by token.
	if _, err := s.Execute(ctx, ins.Bind(2, 0, "routed").WithRoutingKey("v3", binary.BigEndian.AppendUint32(nil, 2))); err != nil {
		t.Fatalf("insert with a routing key: %v", err)
	}

	// Batches of simple and prepared statements.
	b := native.NewBatch(native.LoggedBatch,
		native.Query("INSERT INTO v3.kv (p, c, v) VALUES (?, ?, ?)", int32(3), int32(1), "batch"),
		ins.Bind(3, 2, "batch"))
	if _, err := s.ExecuteBatch(ctx, b); err != nil {
		t.Fatalf("batch: %v", err)
	}

	// Paging, prepared and simple.
	sel := mustPrepare(t, s, "SELECT c, v FROM v3.kv WHERE p = ?")
	for _, st := range []native.Statement{sel.Bind(1), native.Query("SELECT c, v FROM v3.kv WHERE p = ?", int32(1))} {
		var cs []int
		pages := 0
		res, err := s.Execute(ctx, st.WithPageSize(4))
		for err == nil {
			pages++
			for _, row := range res.Rows() {
				var c int
				var v string
				if err := row.Scan(&c, &v); err != nil {
					t.Fatal(err)
				}
				cs = append(cs, c)
			}
			if !res.HasMorePages() {
				break
			}
			res, err = res.NextPage(ctx)
		}
		if err != nil {
			t.Fatalf("paging %q: %v", st.CQL(), err)
		}
		if len(cs) != 10 || pages != 3 || cs[0] != 0 || cs[9] != 9 {
			t.Errorf("paging %q: %d pages, rows %v; want 3 pages of rows 0..9", st.CQL(), pages, cs)
		}
	}
	res = mustExec(t, s, "SELECT v FROM v3.kv WHERE p = 3")
	if res.Len() != 2 {
		t.Errorf("batch wrote %d rows, want 2", res.Len())
	}

	seen := log.seen()
	if len(seen) != 1 || seen[3] == 0 {
		t.Errorf("frame versions written: %v, want only v3", seen)
	}
}

// Protocol v3 has no unset value (a v3 server reads one as NULL): a statement binding Unset
// fails before it is sent, in every form.
func TestProtocolV3RefusesUnset(t *testing.T) {
	s, _ := v3Session(t, 1)
	ctx := ctxT(t)
	mustExec(t, s, "CREATE KEYSPACE u3 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE u3.kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO u3.kv (k, v) VALUES (1, 'kept')")
	ins := mustPrepare(t, s, "INSERT INTO u3.kv (k, v) VALUES (?, ?)")
	check := func(what string, err error) {
		t.Helper()
		var be *native.BindError
		if !errors.Is(err, native.ErrUnsupported) || !errors.As(err, &be) || be.Index != 1 {
			t.Errorf("%s with Unset at v3: %v, want a *BindError for value 1 wrapping ErrUnsupported", what, err)
		}
	}
	_, err := s.Execute(ctx, ins.Bind(1, native.Unset))
	check("prepared", err)
	_, err = s.Execute(ctx, native.Query("INSERT INTO u3.kv (k, v) VALUES (?, ?)", int32(1), native.Unset))
	check("simple", err)
	_, err = s.ExecuteAsync(ctx, ins.Bind(1, native.Unset)).Result()
	check("async", err)
	_, err = s.ExecuteBatch(ctx, native.NewBatch(native.UnloggedBatch, ins.Bind(1, native.Unset)))
	check("batch", err)
	var v string
	row, ok := mustExec(t, s, "SELECT v FROM u3.kv WHERE k = 1").First()
	if !ok || row.Scan(&v) != nil || v != "kept" {
		t.Errorf("after the refused statements: v = %q, want kept", v)
	}
	// NULL is fine.
	if _, err := s.Execute(ctx, ins.Bind(1, nil)); err != nil {
		t.Errorf("NULL at v3: %v", err)
	}
	// A custom payload is a v4 addition too.
	if _, err := s.Execute(ctx, native.Query("SELECT k FROM u3.kv").WithCustomPayload(map[string][]byte{"k": {1}})); err == nil {
		t.Error("a custom payload at v3 was sent")
	}
}

// An explicit version is never negotiated: a v4 session cannot talk to a server that speaks
// v3 at most (it writes no v3 frame), a v3 one can (what TestProtocolV3Statements runs on).
func TestExplicitProtocolVersionIsNotNegotiated(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log := &frameLog{}
	s, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs(), ProtocolVersion: 4, Dialer: log})
	if err == nil {
		s.Close()
		t.Fatal("a v4 session connected to a v3-only server")
	}
	if !strings.Contains(err.Error(), "does not speak protocol v4") {
		t.Errorf("error = %v, want it to say the server does not speak protocol v4", err)
	}
	if seen := log.seen(); seen[3] != 0 || seen[4] == 0 {
		t.Errorf("frames written by version: %v, want v4 only", seen)
	}
	for _, v := range []int{1, 2, 5} {
		if s, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs(), ProtocolVersion: v}); err == nil {
			s.Close()
			t.Errorf("ProtocolVersion %d accepted", v)
		}
	}
}

// countingDialer counts the network connections opened through it.
type countingDialer struct {
	frameLog
	dials atomic.Int32
}

func (d *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.dials.Add(1)
	return d.frameLog.DialContext(ctx, network, addr)
}

// With ProtocolVersion 0, a server that speaks v3 at most refuses the first connection's v4
// OPTIONS; that contact point is dialled again at v3, and the whole session speaks v3, with
// v3's rules (no partition key indexes, Unset refused).
func TestProtocolVersionDiscoveredV3(t *testing.T) {
	log := &frameLog{}
	var conns connectLog
	s := simSession(t, cqlsim.Options{Nodes: 3, MaxProtocolVersion: 3}, func(c *native.Config) {
		c.Dialer = log
		c.OnConnect = conns.add
	})
	if v := s.ProtocolVersion(); v != 3 {
		t.Fatalf("ProtocolVersion() = %d, want 3", v)
	}
	mustExec(t, s, "CREATE KEYSPACE d3 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE d3.kv (k int PRIMARY KEY, v text)")
	ins := mustPrepare(t, s, "INSERT INTO d3.kv (k, v) VALUES (?, ?)")
	if pk := ins.PartitionKeyIndexes(); !slices.Equal(pk, []int{0}) {
		t.Errorf("PartitionKeyIndexes after discovering v3 = %v, want [0] (from the schema: v3 metadata has none)", pk)
	}
	ctx := ctxT(t)
	for k := range 30 { // over every node's pool
		if _, err := s.Execute(ctx, ins.Bind(k, "v")); err != nil {
			t.Fatalf("insert %d: %v", k, err)
		}
	}
	if _, err := s.Execute(ctx, ins.Bind(1, native.Unset)); !errors.Is(err, native.ErrUnsupported) {
		t.Errorf("Unset after discovering v3: %v, want ErrUnsupported", err)
	}
	if n := mustExec(t, s, "SELECT k FROM d3.kv").Len(); n != 30 {
		t.Errorf("%d rows, want 30", n)
	}
	// One v4 frame (the refused OPTIONS), every other frame v3.
	if seen := log.seen(); len(seen) != 2 || seen[4] != 1 || seen[3] == 0 {
		t.Errorf("frames written by version: %v, want one v4 frame and the rest v3", seen)
	}
	// The refused attempt is reported, then the control connection at v3, then the pools.
	ev := conns.all()
	if len(ev) < 5 {
		t.Fatalf("%d connection attempts, want the refused one, the control connection and the pools: %+v", len(ev), ev)
	}
	if !ev[0].Control || ev[0].Err == nil || !strings.Contains(ev[0].Err.Error(), "does not speak protocol v4") {
		t.Errorf("first attempt: control %v, err %v; want the control connection's, refused at v4", ev[0].Control, ev[0].Err)
	}
	if !ev[1].Control || ev[1].Err != nil || ev[1].Host.Addr != ev[0].Host.Addr {
		t.Errorf("second attempt: control %v to %s, err %v; want the control connection to %s", ev[1].Control, ev[1].Host.Addr, ev[1].Err, ev[0].Host.Addr)
	}
	for _, e := range ev[2:] {
		if e.Err != nil || e.Control {
			t.Errorf("pool attempt to %s: control %v, err %v", e.Host.Addr, e.Control, e.Err)
		}
	}
}

// With ProtocolVersion 0 and a server that speaks v4, the session speaks v4 at the cost of an
// explicit ProtocolVersion 4: the same connections, no frame in another version.
func TestProtocolVersionDiscoveryCostsNothingAtV4(t *testing.T) {
	dials := map[int]int32{}
	for _, v := range []int{0, 4} {
		d := &countingDialer{}
		var conns connectLog
		s := simSession(t, cqlsim.Options{Nodes: 3}, func(c *native.Config) {
			c.ProtocolVersion = v
			c.Dialer = d
			c.OnConnect = conns.add
		})
		if got := s.ProtocolVersion(); got != 4 {
			t.Errorf("ProtocolVersion %d: ProtocolVersion() = %d, want 4", v, got)
		}
		mustExec(t, s, "SELECT release_version FROM system.local")
		if seen := d.seen(); len(seen) != 1 || seen[4] == 0 {
			t.Errorf("ProtocolVersion %d: frames written by version: %v, want v4 only", v, seen)
		}
		for _, e := range conns.all() {
			if e.Err != nil {
				t.Errorf("ProtocolVersion %d: attempt to %s failed: %v", v, e.Host.Addr, e.Err)
			}
		}
		s.Close()
		dials[v] = d.dials.Load()
	}
	if dials[0] != dials[4] || dials[0] != 1+3*native.DefaultConnsPerHost {
		t.Errorf("dials with ProtocolVersion 0: %d, with 4: %d; want %d for both", dials[0], dials[4], 1+3*native.DefaultConnsPerHost)
	}
}

// Only a refusal of the version downgrades: a contact point that cannot be reached, or that
// refuses the credentials, is no reason to speak v3.
func TestProtocolVersionDiscoveryOnlyOnRefusal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	cl := cqlsim.StartT(t, cqlsim.Options{})
	log := &frameLog{}
	s, err := native.Connect(ctxT(t), native.Config{Hosts: []string{closed, cl.Addrs()[0]}, Dialer: log})
	if err != nil {
		t.Fatalf("Connect past a closed contact point: %v", err)
	}
	if v := s.ProtocolVersion(); v != 4 {
		t.Errorf("after a refused connection, ProtocolVersion() = %d, want 4", v)
	}
	s.Close()

	auth := cqlsim.StartT(t, cqlsim.Options{Username: "u", Password: "p"})
	log = &frameLog{}
	s, err = native.Connect(ctxT(t), native.Config{Hosts: auth.Addrs(), Dialer: log,
		Authenticator: &native.PasswordAuthenticator{Username: "u", Password: "wrong"}})
	if err == nil {
		s.Close()
		t.Fatal("connected with a wrong password")
	}
	if seen := log.seen(); seen[3] != 0 {
		t.Errorf("bad credentials: frames written by version: %v, want no v3 frame", seen)
	}
}

// A server that answers v4 in protocol v2 (Cassandra 2.0 and older) speaks no version the
// driver does: Connect fails saying so, without dialling it again.
func TestProtocolVersionDiscoveryRefusesV2(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int32
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer nc.Close()
				head := make([]byte, 9)
				if _, err := io.ReadFull(nc, head); err != nil {
					return
				}
				msg := "Invalid or unsupported protocol version: 4"
				body := binary.BigEndian.AppendUint32(nil, 0x000A)
				body = binary.BigEndian.AppendUint16(body, uint16(len(msg)))
				body = append(body, msg...)
				// A v2 header: version, flags, a one-byte stream, opcode ERROR, length.
				frame := append([]byte{0x82, 0, 0, 0}, binary.BigEndian.AppendUint32(nil, uint32(len(body)))...)
				_, _ = nc.Write(append(frame, body...))
				_, _ = io.Copy(io.Discard, nc)
			}()
		}
	}()
	s, err := native.Connect(ctxT(t), native.Config{Hosts: []string{ln.Addr().String()}, ConnectTimeout: 5 * time.Second})
	if err == nil {
		s.Close()
		t.Fatal("connected to a v2 server")
	}
	if !strings.Contains(err.Error(), "speaks protocol v2 at most; only versions 3 and 4 are supported") {
		t.Errorf("error = %v, want it to say the server speaks v2 at most", err)
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// At v3 a prepared statement's partition key indexes come from the schema of the test
// server (Cassandra when CQL_HOSTS is set): a composite key bound in the key's order and in
// another, a SELECT naming the key's columns in another order, and a statement that does not
// bind the whole key (no indexes). Each statement runs.
func TestProtocolV3PartitionKeyFromSchema(t *testing.T) {
	s, ks := connect(t, func(c *native.Config) { c.ProtocolVersion = 3 })
	mustExec(t, s, "CREATE TABLE "+ks+".ck (a int, b text, c int, PRIMARY KEY ((a, b), c))")
	for _, tc := range []struct {
		cql    string
		want   []int
		values []any
	}{
		{"INSERT INTO " + ks + ".ck (a, b, c) VALUES (?, ?, ?)", []int{0, 1}, []any{1, "x", 1}},
		{"INSERT INTO " + ks + ".ck (c, b, a) VALUES (?, ?, ?)", []int{2, 1}, []any{2, "x", 1}},
		{"SELECT c FROM " + ks + ".ck WHERE b = ? AND a = ?", []int{1, 0}, []any{"x", 1}},
		{"SELECT c FROM " + ks + ".ck WHERE a = 1 AND b = 'x' AND c = ?", nil, []any{1}},
	} {
		p := mustPrepare(t, s, tc.cql)
		if got := p.PartitionKeyIndexes(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: PartitionKeyIndexes at v3 = %v, want %v", tc.cql, got, tc.want)
		}
		if _, err := s.Execute(ctxT(t), p.Bind(tc.values...)); err != nil {
			t.Errorf("%s: %v", tc.cql, err)
		}
	}
}

// At v3 the key indexes found from the schema survive a re-prepare: with PrepareOnOneNode the
// other nodes answer UNPREPARED, the statement is prepared again on them (whose PREPARED
// result has no indexes either), and every key still goes to its replica.
func TestProtocolV3KeyIndexesSurviveReprepare(t *testing.T) {
	var reprepares atomic.Int32
	s := simSession(t, cqlsim.Options{Nodes: 3, MaxProtocolVersion: 3}, func(c *native.Config) {
		c.ProtocolVersion = 3
		c.PrepareOnOneNode = true
		c.Observer = func(_ context.Context, a native.Attempt) {
			if a.Reprepare {
				reprepares.Add(1)
			}
		}
	})
	mustExec(t, s, "CREATE KEYSPACE rp WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE rp.ck (a int, b text, c int, PRIMARY KEY ((a, b), c))")
	time.Sleep(500 * time.Millisecond) // the driver learns the keyspace's replication from the event
	ins := mustPrepare(t, s, "INSERT INTO rp.ck (c, b, a) VALUES (?, ?, ?)")
	routeCompositeKeys(t, s, ins, 30, "key after re-prepares")
	if reprepares.Load() == 0 {
		t.Error("no re-prepare happened: the test did not exercise it")
	}
	if pk := ins.PartitionKeyIndexes(); !slices.Equal(pk, []int{2, 1}) {
		t.Errorf("PartitionKeyIndexes after re-prepares = %v, want [2 1]", pk)
	}
}
