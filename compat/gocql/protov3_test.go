package gocql

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// v3Ops are the operations the ProtoVersion 3 comparison runs, on one driver.
type v3Ops struct {
	exec       func(stmt string, values ...interface{}) error
	batch      func(stmts []string, values [][]interface{}) error
	pages      func(stmt string, pageSize int, values ...interface{}) (pages int, rows []string, err error)
	routingKey func(stmt string, values ...interface{}) ([]byte, error)
	typeProto  func(stmt string) (byte, error)
}

func compatV3Ops(s *Session) v3Ops {
	return v3Ops{
		exec: func(stmt string, values ...interface{}) error { return s.Query(stmt, values...).Exec() },
		batch: func(stmts []string, values [][]interface{}) error {
			b := s.NewBatch(LoggedBatch)
			for i, st := range stmts {
				b.Query(st, values[i]...)
			}
			return s.ExecuteBatch(b)
		},
		pages: func(stmt string, pageSize int, values ...interface{}) (int, []string, error) {
			return readPages(func(state []byte) pageIter {
				return s.Query(stmt, values...).PageSize(pageSize).PageState(state).Iter()
			})
		},
		routingKey: func(stmt string, values ...interface{}) ([]byte, error) {
			return s.Query(stmt, values...).GetRoutingKey()
		},
		typeProto: func(stmt string) (byte, error) {
			iter := s.Query(stmt).Iter()
			cols := iter.Columns()
			err := iter.Close()
			if len(cols) == 0 {
				return 0, err
			}
			return cols[0].TypeInfo.Version(), err
		},
	}
}

func legacyV3Ops(s *gocqlv1.Session) v3Ops {
	return v3Ops{
		exec: func(stmt string, values ...interface{}) error { return s.Query(stmt, values...).Exec() },
		batch: func(stmts []string, values [][]interface{}) error {
			b := s.NewBatch(gocqlv1.LoggedBatch)
			for i, st := range stmts {
				b.Query(st, values[i]...)
			}
			return s.ExecuteBatch(b)
		},
		pages: func(stmt string, pageSize int, values ...interface{}) (int, []string, error) {
			return readPages(func(state []byte) pageIter {
				return s.Query(stmt, values...).PageSize(pageSize).PageState(state).Iter()
			})
		},
		routingKey: func(stmt string, values ...interface{}) ([]byte, error) {
			return s.Query(stmt, values...).GetRoutingKey()
		},
		typeProto: func(stmt string) (byte, error) {
			iter := s.Query(stmt).Iter()
			cols := iter.Columns()
			err := iter.Close()
			if len(cols) == 0 {
				return 0, err
			}
			return cols[0].TypeInfo.Version(), err
		},
	}
}

// pageIter is what readPages needs of either driver's Iter.
type pageIter interface {
	Scan(dest ...interface{}) bool
	PageState() []byte
	Close() error
}

// readPages reads every page of (c int, v text) rows, next running the query from a paging
// state, and returns the number of pages and the rows.
func readPages(next func(state []byte) pageIter) (int, []string, error) {
	var rows []string
	pages := 0
	var state []byte
	for {
		iter := next(state)
		pages++
		var c int
		var v *string
		for iter.Scan(&c, &v) {
			rows = append(rows, fmt.Sprintf("%d=%v", c, deref(v)))
		}
		state = iter.PageState()
		if err := iter.Close(); err != nil {
			return pages, rows, err
		}
		if len(state) == 0 {
			return pages, rows, nil
		}
	}
}

func deref(v *string) string {
	if v == nil {
		return "null"
	}
	return *v
}

// runV3Ops runs the comparison's operations on table tbl and returns what they gave.
func runV3Ops(o v3Ops, tbl string) []string {
	var out []string
	note := func(format string, args ...interface{}) { out = append(out, fmt.Sprintf(format, args...)) }
	note("create: %v", o.exec("CREATE TABLE v3."+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))"))
	ins := "INSERT INTO v3." + tbl + " (p, c, v) VALUES (?, ?, ?)"
	for c := 0; c < 7; c++ {
		if err := o.exec(ins, 1, c, fmt.Sprint("v", c)); err != nil {
			note("insert %d: %v", c, err)
		}
	}
	note("batch: %v", o.batch([]string{ins, ins}, [][]interface{}{{1, 7, "b7"}, {1, 8, "b8"}}))
	pages, rows, err := o.pages("SELECT c, v FROM v3."+tbl+" WHERE p = ?", 4, 1)
	note("pages: %d %v %v", pages, rows, err)
	key, err := o.routingKey("SELECT v FROM v3."+tbl+" WHERE p = ? AND c = ?", 5, 1)
	note("routing key: %x %v", key, err)
	proto, err := o.typeProto("SELECT c, v FROM v3." + tbl + " WHERE p = 1")
	note("type proto: %d %v", proto, err)
	note("bad: %v", o.exec("INSERT INTO v3."+tbl+" (p, c, nope) VALUES (?, ?, ?)", 1, 1, "x") != nil)
	return out
}

// compareV3Ops creates keyspace v3 and runs runV3Ops with both drivers (on tables shim and
// legacy), reporting a difference; it returns the shim's results.
func compareV3Ops(t *testing.T, s *Session, ls *gocqlv1.Session, what string) []string {
	t.Helper()
	if err := s.Query("CREATE KEYSPACE v3 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatal(err)
	}
	got := runV3Ops(compatV3Ops(s), "shim")
	want := runV3Ops(legacyV3Ops(ls), "legacy")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n  gocql: %q\n  shim:  %q", what, want, got)
	}
	return got
}

// ProtoVersion 3 against a server that speaks v3 at most (so that a v4 frame would be
// refused): gocql v1.7.0 and the shim give the same results for queries, prepared statements,
// batches, paging, routing keys (from the schema metadata, v3 prepared metadata having no
// partition key indexes) and the protocol version the column types report. UnsetValue differs
// (docs/deviations.md G42): gocql sends it at v3 too, where the server reads it as NULL and
// overwrites the column; the shim refuses the statement before sending it.
func TestProtoVersion3LikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 3})
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.ProtoVersion, l.ProtoVersion = 3, 3
	})
	got := compareV3Ops(t, s, ls, "ProtoVersion 3")
	ins := "INSERT INTO v3.%s (p, c, v) VALUES (?, ?, ?)"
	if err := legacyV3Ops(ls).exec(fmt.Sprintf(ins, "legacy"), 1, 3, gocqlv1.UnsetValue); err != nil {
		t.Errorf("gocql, UnsetValue at v3: %v, want it sent", err)
	}
	err := compatV3Ops(s).exec(fmt.Sprintf(ins, "shim"), 1, 3, UnsetValue)
	if err == nil || !strings.Contains(err.Error(), "Unset needs protocol v4") {
		t.Errorf("shim, UnsetValue at v3: %v, want the statement refused", err)
	}
	for tbl, want := range map[string]string{"legacy": "null", "shim": "v3"} {
		var v *string
		if err := s.Query(fmt.Sprintf("SELECT v FROM v3.%s WHERE p = 1 AND c = 3", tbl)).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if deref(v) != want {
			t.Errorf("table %s after UnsetValue at v3: v = %s, want %s", tbl, deref(v), want)
		}
	}
	for _, line := range got {
		if strings.HasPrefix(line, "type proto:") && line != "type proto: 3 <nil>" {
			t.Errorf("shim %s, want 3", line)
		}
		if strings.HasPrefix(line, "routing key:") && line != "routing key: 00000005 <nil>" {
			t.Errorf("shim %s, want the key from the schema", line)
		}
	}
}

// ProtoVersion 1 and 2 are still refused (docs/deviations.md G25).
func TestProtoVersion1And2Refused(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	for _, v := range []int{1, 2} {
		c := NewCluster(sim.Addrs()...)
		c.ProtoVersion = v
		s, err := c.CreateSession()
		if err == nil || !strings.Contains(err.Error(), "only versions 3, 4 and 5 are supported") {
			if s != nil {
				s.Close()
			}
			t.Errorf("ProtoVersion %d: %v, want the clear refusal", v, err)
		}
	}
}

// The types protocol v3 has no code for (date, time, smallint, tinyint) reach a v3 client as
// custom types named by their class, from Cassandra and from cqlsim alike: gocql v1.7.0 reads
// time, smallint and tinyint by that class (its Custom() still names it) and leaves date a
// custom type, which it cannot scan into a time.Time; the shim reads all four as their types
// (docs/deviations.md G25).
func TestProtoVersion3TypesWithoutV3Code(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 3})
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.ProtoVersion, l.ProtoVersion = 3, 3
	})
	for _, stmt := range []string{
		"CREATE KEYSPACE v3t WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE v3t.t (k int PRIMARY KEY, d date, tm time, si smallint, ti tinyint, l list<date>)",
		"INSERT INTO v3t.t (k, d, tm, si, ti, l) VALUES (1, '2026-12-05', '10:00:00', 7, 8, ['2026-12-05'])",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	const sel = "SELECT d, tm, si, ti, l FROM v3t.t WHERE k = 1"
	iter := ls.Query(sel).Iter()
	var legacy []string
	for _, c := range iter.Columns() {
		legacy = append(legacy, fmt.Sprintf("%s=%s/%s", c.Name, c.TypeInfo.Type(), c.TypeInfo.Custom()))
	}
	_ = iter.Close()
	wantLegacy := []string{
		"d=custom/org.apache.cassandra.db.marshal.SimpleDateType",
		"tm=time/org.apache.cassandra.db.marshal.TimeType",
		"si=smallint/org.apache.cassandra.db.marshal.ShortType",
		"ti=tinyint/org.apache.cassandra.db.marshal.ByteType",
		"l=list/",
	}
	if strings.Join(legacy, " ") != strings.Join(wantLegacy, " ") {
		t.Errorf("gocql's column types at v3 (as from Cassandra 5.0):\n got  %v\n want %v", legacy, wantLegacy)
	}
	// The shim's: time, smallint and tinyint name their class as gocql's do; date is a date.
	siter := s.Query(sel).Iter()
	var shim []string
	for _, c := range siter.Columns() {
		shim = append(shim, fmt.Sprintf("%s=%s/%s", c.Name, c.TypeInfo.Type(), c.TypeInfo.Custom()))
	}
	_ = siter.Close()
	wantShim := append([]string{"d=date/"}, wantLegacy[1:]...)
	if strings.Join(shim, " ") != strings.Join(wantShim, " ") {
		t.Errorf("the shim's column types at v3:\n got  %v\n want %v", shim, wantShim)
	}
	var d time.Time
	if err := ls.Query("SELECT d FROM v3t.t WHERE k = 1").Scan(&d); err == nil || !strings.Contains(err.Error(), "can not unmarshal custom(org.apache.cassandra.db.marshal.SimpleDateType)") {
		t.Errorf("gocql, a date scanned at v3: %v, want its custom-type error", err)
	}
	var tm time.Duration
	var si int16
	var ti int8
	var l []time.Time
	if err := s.Query(sel).Scan(&d, &tm, &si, &ti, &l); err != nil {
		t.Fatalf("shim at v3: %v", err)
	}
	if d.Format(time.DateOnly) != "2026-12-05" || tm != 10*time.Hour || si != 7 || ti != 8 || len(l) != 1 || !l[0].Equal(d) {
		t.Errorf("shim at v3 read d=%v tm=%v si=%d ti=%d l=%v", d, tm, si, ti, l)
	}
}

// stream0Dialer dials like net.Dialer, and moves a connection's first response to stream 0
// when it is an ERROR: the stream gocql v1.7.0 expects the refusal of a version on (its issues
// show Cassandra 3.x answering a v2 client with "error on stream 0: Invalid or unsupported
// protocol version"), where cqlsim answers on the request's stream.
type stream0Dialer struct{}

func (stream0Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &stream0Conn{Conn: nc}, nil
}

type stream0Conn struct {
	net.Conn
	head []byte // the first response's header, until it is whole
	done bool
}

func (c *stream0Conn) Read(b []byte) (int, error) {
	for !c.done && len(c.head) < 9 {
		buf := make([]byte, 9-len(c.head))
		n, err := c.Conn.Read(buf)
		c.head = append(c.head, buf[:n]...)
		if err != nil {
			return 0, err
		}
	}
	if !c.done {
		c.done = true
		if c.head[4] == 0x00 { // ERROR
			c.head[2], c.head[3] = 0, 0
		}
	}
	if len(c.head) > 0 {
		n := copy(b, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// ProtoVersion 0 against a server that speaks v3 at most: gocql v1.7.0 discovers v3 on its
// first connection (the server refuses v4) and so does the shim; both then speak v3, with the
// same results as TestProtoVersion3LikeGocql's, and both report the refused v4 attempt to the
// ConnectObserver before the connection that succeeds. gocql recognizes the refusal only on
// stream 0 (see stream0Dialer); cqlsim sends it on the request's stream, which the shim
// recognizes too but gocql does not (it fails CreateSession with "unexpected protocol version
// in response: got 3 expected 4").
func TestProtoVersion0DiscoversV3LikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{MaxProtocolVersion: 3})
	var obs, lobs connectLog
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.ProtoVersion, l.ProtoVersion = 0, 0
		c.Dialer, l.Dialer = stream0Dialer{}, stream0Dialer{}
		c.ConnectObserver, l.ConnectObserver = shimConnectObserver{&obs}, legacyConnectObserver{&lobs}
	})
	got := compareV3Ops(t, s, ls, "ProtoVersion 0 on a v3 server")
	if !slices.Contains(got, "type proto: 3 <nil>") {
		t.Errorf("shim %q, want the types of protocol v3", got)
	}
	if v := s.Native().ProtocolVersion(); v != 3 {
		t.Errorf("native ProtocolVersion() = %d, want 3", v)
	}
	// Both report the refused v4 attempt to the contact point, then the v3 connections.
	seen, failures := obs.get()
	lseen, _ := lobs.get()
	refused := sim.Addrs()[0] + " ok=false hostID=false"
	if !slices.Equal(seen, lseen) || !slices.Contains(seen, refused) {
		t.Errorf("connection attempts:\n  gocql: %q\n  shim:  %q\nwant the same, with %q", lseen, seen, refused)
	}
	for addr, err := range failures {
		if !strings.Contains(err, "does not speak protocol v4") {
			t.Errorf("shim, failed attempt to %s: %s, want the refusal of v4", addr, err)
		}
	}
	// v3's rules: UnsetValue is refused (docs/deviations.md G42).
	err := compatV3Ops(s).exec("INSERT INTO v3.shim (p, c, v) VALUES (?, ?, ?)", 1, 3, UnsetValue)
	if err == nil || !strings.Contains(err.Error(), "Unset needs protocol v4") {
		t.Errorf("shim, UnsetValue after discovering v3: %v, want the statement refused", err)
	}

	// Without the move to stream 0: the shim discovers v3 all the same, gocql fails.
	c := NewCluster(sim.Addrs()[0])
	c.Port = sim.Port()
	direct, err := c.CreateSession()
	if err != nil {
		t.Fatalf("shim, refusal on the request's stream: %v", err)
	}
	defer direct.Close()
	if v := direct.Native().ProtocolVersion(); v != 3 {
		t.Errorf("shim, refusal on the request's stream: ProtocolVersion() = %d, want 3", v)
	}
	l := gocqlv1.NewCluster(sim.Addrs()[0])
	l.Port = sim.Port()
	if legacy, err := l.CreateSession(); err == nil {
		legacy.Close()
		t.Error("gocql v1.7.0 discovers v3 with the refusal on the request's stream: the comment above is out of date")
	} else if !strings.Contains(err.Error(), "unexpected protocol version in response: got 3 expected 4") {
		t.Errorf("gocql v1.7.0, refusal on the request's stream: %v", err)
	}
}
