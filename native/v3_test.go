package native_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
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

	// Prepared statements: v3 metadata has no partition key indexes, so they are routed
	// without a token; they run all the same.
	ins := mustPrepare(t, s, "INSERT INTO v3.kv (p, c, v) VALUES (?, ?, ?)")
	if pk := ins.PartitionKeyIndexes(); len(pk) != 0 {
		t.Errorf("PartitionKeyIndexes at v3 = %v, want none", pk)
	}
	for c := 1; c <= 9; c++ {
		if _, err := s.Execute(ctx, ins.Bind(1, c, "prepared")); err != nil {
			t.Fatalf("prepared insert %d: %v", c, err)
		}
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

// A v4 session cannot talk to a server that speaks v3 at most; a v3 one can (what
// TestProtocolV3Statements runs on).
func TestProtocolVersionIsNotNegotiated(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()}); err == nil {
		s.Close()
		t.Fatal("a v4 session connected to a v3-only server")
	}
	for _, v := range []int{1, 2, 5} {
		if s, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs(), ProtocolVersion: v}); err == nil {
			s.Close()
			t.Errorf("ProtocolVersion %d accepted", v)
		}
	}
}
