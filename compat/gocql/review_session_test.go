package gocql_test

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// reviewSessionTables are the tables of the session and builder comparisons.
var reviewSessionTables = []string{
	"CREATE TABLE KS.review_sess (p int PRIMARY KEY, v text)",
	"CREATE TABLE KS.review_sess_pages (p int, c int, PRIMARY KEY (p, c))",
}

// sessionCase is one ClusterConfig change, made the same way on both drivers' configurations.
type sessionCase struct {
	name   string
	legacy func(c *gocqlv1.ClusterConfig)
	compat func(c *gocql.ClusterConfig)
	// loose, when set, replaces an error's rendering: for outcomes whose text depends on the
	// server (cqlsim and Cassandra word a protocol error differently) or on a race in gocql.
	loose func(err error) string
}

// untilServerText keeps an error's type and its message up to marker (included): the rest is
// the server's wording.
func untilServerText(marker string) func(error) string {
	return func(err error) string {
		if err == nil {
			return "<nil>"
		}
		msg := err.Error()
		if i := strings.Index(msg, marker); i >= 0 {
			msg = msg[:i+len(marker)] + "..."
		}
		return fmt.Sprintf("%T %q", err, msg)
	}
}

// typeAndCode renders an error the server words (cqlsim and Cassandra differently) as its type
// and protocol error code.
func typeAndCode(err error) string {
	type coder interface{ Code() int }
	if c, ok := err.(coder); ok {
		return fmt.Sprintf("%T code=%#x", err, c.Code())
	}
	return show(err)
}

// createFailsOnTimeout is the outcome of CreateSession with a Timeout shorter than a round
// trip: gocql v1.7.0 fails on whichever of the control connection's first requests (STARTUP,
// system.local, REGISTER, system.peers) times out first, which is a race; compat always
// reports the system.local query, gocql's most frequent outcome.
func createFailsOnTimeout(err error) string {
	if err == nil {
		return "<nil>"
	}
	msg := err.Error()
	ok := strings.HasPrefix(msg, "gocql: unable to create session: ") &&
		(strings.Contains(msg, "within timeout") || strings.Contains(msg, "i/o timeout"))
	return fmt.Sprintf("%T timed out=%v", err, ok)
}

// TestReviewCreateSessionConfig compares CreateSession, and a few statements on the session it
// returns, for ClusterConfig values gocql v1.7.0 refuses, accepts, or turns into server errors.
func TestReviewCreateSessionConfig(t *testing.T) {
	p := newDiffPair(t, reviewSessionTables...)
	for c := 1; c <= 3; c++ {
		if err := p.legacy.Query("INSERT INTO review_sess_pages (p, c) VALUES (1, ?)", c).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	host, port, err := net.SplitHostPort(p.hosts[0])
	if err != nil {
		t.Fatal(err)
	}
	portNum := 0
	fmt.Sscan(port, &portNum)
	both := func(name string, f func(hosts *[]string, port *int, proto *int, ks *string)) sessionCase {
		return sessionCase{
			name: name,
			legacy: func(c *gocqlv1.ClusterConfig) {
				f(&c.Hosts, &c.Port, &c.ProtoVersion, &c.Keyspace)
			},
			compat: func(c *gocql.ClusterConfig) {
				f(&c.Hosts, &c.Port, &c.ProtoVersion, &c.Keyspace)
			},
		}
	}
	bareHost := func(port int) func(hosts *[]string, p *int, _ *int, _ *string) {
		return func(hosts *[]string, p *int, _ *int, _ *string) {
			*hosts, *p = []string{host}, port
		}
	}
	withProto := func(proto int, f func(hosts *[]string, port *int, proto *int, ks *string)) func(hosts *[]string, port *int, proto *int, ks *string) {
		return func(hosts *[]string, port *int, pv *int, ks *string) {
			f(hosts, port, pv, ks)
			*pv = proto
		}
	}
	cases := []sessionCase{
		{name: "defaults", legacy: func(*gocqlv1.ClusterConfig) {}, compat: func(*gocql.ClusterConfig) {}},
		{name: "NumConns 0",
			legacy: func(c *gocqlv1.ClusterConfig) { c.NumConns = 0 },
			compat: func(c *gocql.ClusterConfig) { c.NumConns = 0 }},
		{name: "NumConns 1",
			legacy: func(c *gocqlv1.ClusterConfig) { c.NumConns = 1 },
			compat: func(c *gocql.ClusterConfig) { c.NumConns = 1 }},
		{name: "NumConns 0 unreachable",
			legacy: func(c *gocqlv1.ClusterConfig) { c.NumConns, c.Hosts = 0, []string{host + ":1"} },
			compat: func(c *gocql.ClusterConfig) { c.NumConns, c.Hosts = 0, []string{host + ":1"} }},
		{name: "Timeout 1ns proto 0",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Timeout, c.ProtoVersion = time.Nanosecond, 0 },
			compat: func(c *gocql.ClusterConfig) { c.Timeout, c.ProtoVersion = time.Nanosecond, 0 }},
		{name: "Timeout 1ns proto 4",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Timeout = time.Nanosecond },
			compat: func(c *gocql.ClusterConfig) { c.Timeout = time.Nanosecond }},
		{name: "WriteTimeout 1ns",
			legacy: func(c *gocqlv1.ClusterConfig) { c.WriteTimeout = time.Nanosecond },
			compat: func(c *gocql.ClusterConfig) { c.WriteTimeout = time.Nanosecond }},
		{name: "Timeout 1µs", loose: createFailsOnTimeout,
			legacy: func(c *gocqlv1.ClusterConfig) { c.Timeout = time.Microsecond },
			compat: func(c *gocql.ClusterConfig) { c.Timeout = time.Microsecond }},
		{name: "Timeout 1µs proto 0", loose: createFailsOnTimeout,
			legacy: func(c *gocqlv1.ClusterConfig) { c.Timeout, c.ProtoVersion = time.Microsecond, 0 },
			compat: func(c *gocql.ClusterConfig) { c.Timeout, c.ProtoVersion = time.Microsecond, 0 }},
		{name: "Timeout 1ns WriteTimeout 1s", loose: createFailsOnTimeout,
			legacy: func(c *gocqlv1.ClusterConfig) { c.Timeout, c.WriteTimeout = time.Nanosecond, time.Second },
			compat: func(c *gocql.ClusterConfig) { c.Timeout, c.WriteTimeout = time.Nanosecond, time.Second }},
		{name: "Timeout 0",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Timeout = 0 },
			compat: func(c *gocql.ClusterConfig) { c.Timeout = 0 }},
		{name: "Timeout -1",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Timeout = -1 },
			compat: func(c *gocql.ClusterConfig) { c.Timeout = -1 }},
		{name: "ConnectTimeout 1ns",
			legacy: func(c *gocqlv1.ClusterConfig) { c.ConnectTimeout = time.Nanosecond },
			compat: func(c *gocql.ClusterConfig) { c.ConnectTimeout = time.Nanosecond }},
		{name: "SerialConsistency Quorum",
			legacy: func(c *gocqlv1.ClusterConfig) { c.SerialConsistency = gocqlv1.SerialConsistency(gocqlv1.Quorum) },
			compat: func(c *gocql.ClusterConfig) { c.SerialConsistency = gocql.SerialConsistency(gocql.Quorum) }},
		{name: "SerialConsistency LocalSerial",
			legacy: func(c *gocqlv1.ClusterConfig) { c.SerialConsistency = gocqlv1.LocalSerial },
			compat: func(c *gocql.ClusterConfig) { c.SerialConsistency = gocql.LocalSerial }},
		{name: "SerialConsistency 300", loose: untilServerText("unable to connect to initial hosts: "),
			legacy: func(c *gocqlv1.ClusterConfig) { c.SerialConsistency = 300 },
			compat: func(c *gocql.ClusterConfig) { c.SerialConsistency = 300 }},
		{name: "Consistency Any",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Consistency = gocqlv1.Any },
			compat: func(c *gocql.ClusterConfig) { c.Consistency = gocql.Any }},
		{name: "Consistency LocalOne",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Consistency = gocqlv1.LocalOne },
			compat: func(c *gocql.ClusterConfig) { c.Consistency = gocql.LocalOne }},
		{name: "Consistency 300",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Consistency = 300 },
			compat: func(c *gocql.ClusterConfig) { c.Consistency = 300 }},
		{name: "Consistency 300 no keyspace", loose: typeAndCode,
			legacy: func(c *gocqlv1.ClusterConfig) { c.Consistency, c.Keyspace = 300, "" },
			compat: func(c *gocql.ClusterConfig) { c.Consistency, c.Keyspace = 300, "" }},
		{name: "PageSize -1",
			legacy: func(c *gocqlv1.ClusterConfig) { c.PageSize = -1 },
			compat: func(c *gocql.ClusterConfig) { c.PageSize = -1 }},
		{name: "PageSize 0",
			legacy: func(c *gocqlv1.ClusterConfig) { c.PageSize = 0 },
			compat: func(c *gocql.ClusterConfig) { c.PageSize = 0 }},
		{name: "PageSize 2",
			legacy: func(c *gocqlv1.ClusterConfig) { c.PageSize = 2 },
			compat: func(c *gocql.ClusterConfig) { c.PageSize = 2 }},
		{name: "MaxPreparedStmts and MaxRoutingKeyInfo 0",
			legacy: func(c *gocqlv1.ClusterConfig) { c.MaxPreparedStmts, c.MaxRoutingKeyInfo = 0, 0 },
			compat: func(c *gocql.ClusterConfig) { c.MaxPreparedStmts, c.MaxRoutingKeyInfo = 0, 0 }},
		{name: "ReconnectInterval 0",
			legacy: func(c *gocqlv1.ClusterConfig) { c.ReconnectInterval = 0 },
			compat: func(c *gocql.ClusterConfig) { c.ReconnectInterval = 0 }},
		{name: "ReconnectInterval -1",
			legacy: func(c *gocqlv1.ClusterConfig) { c.ReconnectInterval = -1 },
			compat: func(c *gocql.ClusterConfig) { c.ReconnectInterval = -1 }},
		{name: "Snappy",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Compressor = gocqlv1.SnappyCompressor{} },
			compat: func(c *gocql.ClusterConfig) { c.Compressor = gocql.SnappyCompressor{} }},
		{name: "missing keyspace",
			legacy: func(c *gocqlv1.ClusterConfig) { c.Keyspace = "review_no_such_ks" },
			compat: func(c *gocql.ClusterConfig) { c.Keyspace = "review_no_such_ks" }},
		both("no hosts", func(hosts *[]string, _ *int, _ *int, _ *string) { *hosts = nil }),
		both("empty host", func(hosts *[]string, _ *int, _ *int, _ *string) { *hosts = []string{""} }),
		both("empty host and a good one", func(hosts *[]string, _ *int, _ *int, _ *string) { *hosts = append([]string{""}, *hosts...) }),
		both("port not a number", func(hosts *[]string, _ *int, _ *int, _ *string) { *hosts = []string{host + ":x"} }),
		both("port in host 0", func(hosts *[]string, _ *int, _ *int, _ *string) { *hosts = []string{host + ":0"} }),
		both("unreachable port", func(hosts *[]string, _ *int, _ *int, _ *string) { *hosts = []string{host + ":1"} }),
		both("unreachable port proto 0", withProto(0, func(hosts *[]string, _ *int, _ *int, _ *string) { *hosts = []string{host + ":1"} })),
		both("Port", bareHost(portNum)),
		both("Port 0", bareHost(0)),
		both("Port 0 proto 0", withProto(0, bareHost(0))),
		both("Port -1", bareHost(-1)),
		both("Port 70000 proto 0", withProto(0, bareHost(70000))),
		both("Port 0 and a good host", func(hosts *[]string, p *int, _ *int, _ *string) { *hosts, *p = append([]string{host}, *hosts...), 0 }),
	}
	reset := func() {
		if err := p.legacy.Query("DELETE FROM review_sess WHERE p IN (1, 2, 3, 4)").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var lt, ct trace
	// One contact point: both drivers try the contact points in a random order, and an error
	// names the last one tried.
	contact := p.hosts[:1]
	for _, c := range cases {
		render := func(err error) string {
			if c.loose != nil {
				return c.loose(err)
			}
			return show(err)
		}
		reset()
		{
			cfg := gocqlv1.NewCluster(contact...)
			cfg.Keyspace, cfg.ProtoVersion = reviewKeyspace, 4
			c.legacy(cfg)
			s, err := cfg.CreateSession()
			lt.add(c.name+": create", render(err), isSentinel(err, legacySentinels()), err == gocqlv1.ErrNoConnectionsStarted, err == gocqlv1.ErrNoHosts)
			if err == nil {
				var v string
				errOf := func(label string, err error) { lt.add(c.name+": "+label, render(err)) }
				errOf("select", s.Query("SELECT v FROM review_sess WHERE p = 1").Scan(&v))
				errOf("insert", s.Query("INSERT INTO review_sess (p, v) VALUES (1, 'x')").Exec())
				errOf("insert bound", s.Query("INSERT INTO review_sess (p, v) VALUES (?, 'x')", 2).Exec())
				_, err := s.Query("INSERT INTO review_sess (p, v) VALUES (3, 'x') IF NOT EXISTS").ScanCAS()
				errOf("lwt", err)
				b := s.NewBatch(gocqlv1.UnloggedBatch)
				b.Query("INSERT INTO review_sess (p, v) VALUES (4, 'x')")
				errOf("batch", s.ExecuteBatch(b))
				b = s.NewBatch(gocqlv1.LoggedBatch)
				b.Query("UPDATE review_sess SET v = 'y' WHERE p = 4 IF v = 'x'")
				errOf("lwt batch", s.ExecuteBatch(b))
				iter := s.Query("SELECT c FROM review_sess_pages WHERE p = 1").Iter()
				lt.add(c.name+": page", iter.NumRows(), len(iter.PageState()) > 0, render(iter.Close()))
				s.Close()
			}
		}
		reset()
		{
			cfg := gocql.NewCluster(contact...)
			cfg.Keyspace, cfg.ProtoVersion = reviewKeyspace, 4
			c.compat(cfg)
			s, err := cfg.CreateSession()
			ct.add(c.name+": create", render(err), isSentinel(err, compatSentinels()), err == gocql.ErrNoConnectionsStarted, err == gocql.ErrNoHosts)
			if err == nil {
				var v string
				errOf := func(label string, err error) { ct.add(c.name+": "+label, render(err)) }
				errOf("select", s.Query("SELECT v FROM review_sess WHERE p = 1").Scan(&v))
				errOf("insert", s.Query("INSERT INTO review_sess (p, v) VALUES (1, 'x')").Exec())
				errOf("insert bound", s.Query("INSERT INTO review_sess (p, v) VALUES (?, 'x')", 2).Exec())
				_, err := s.Query("INSERT INTO review_sess (p, v) VALUES (3, 'x') IF NOT EXISTS").ScanCAS()
				errOf("lwt", err)
				b := s.NewBatch(gocql.UnloggedBatch)
				b.Query("INSERT INTO review_sess (p, v) VALUES (4, 'x')")
				errOf("batch", s.ExecuteBatch(b))
				b = s.NewBatch(gocql.LoggedBatch)
				b.Query("UPDATE review_sess SET v = 'y' WHERE p = 4 IF v = 'x'")
				errOf("lwt batch", s.ExecuteBatch(b))
				iter := s.Query("SELECT c FROM review_sess_pages WHERE p = 1").Iter()
				ct.add(c.name+": page", iter.NumRows(), len(iter.PageState()) > 0, render(iter.Close()))
				s.Close()
			}
		}
	}
	sameTrace(t, &lt, &ct)
}

// TestReviewNegativeNumConns: gocql v1.7.0 panics in a goroutine of its connection pool
// (makeslice: cap out of range), which kills the program, so it cannot be run here; compat
// fails CreateSession with a clear error instead (docs/deviations.md G26).
func TestReviewNegativeNumConns(t *testing.T) {
	p := newDiffPair(t)
	cfg := gocql.NewCluster(p.hosts...)
	cfg.NumConns = -1
	s, err := cfg.CreateSession()
	if err == nil {
		s.Close()
		t.Fatal("CreateSession with NumConns -1 succeeded")
	}
	if want := "gocql: unable to create session: NumConns is -1, it must not be negative"; err.Error() != want {
		t.Fatalf("NumConns -1: %q, want %q", err, want)
	}
}

// TestReviewSessionBuilders compares the Query and Batch builders: serial consistency and
// consistency values the server refuses, routing information (Keyspace, Table) before and after
// GetRoutingKey and execution, page sizes, timestamps, idempotence, nil policies and the
// batch's entries.
func TestReviewSessionBuilders(t *testing.T) {
	p := newDiffPair(t, reviewSessionTables...)
	for _, s := range []string{
		"INSERT INTO review_sess_pages (p, c) VALUES (1, 1)",
		"INSERT INTO review_sess_pages (p, c) VALUES (1, 2)",
		"INSERT INTO review_sess_pages (p, c) VALUES (1, 3)",
	} {
		if err := p.legacy.Query(s).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	const otherTable = reviewKeyspace + ".review_sess_pages"
	// Each driver starts from the same rows (the timestamp steps write rows of their own: a
	// deletion would shadow their small timestamps).
	reset := func() {
		if err := p.legacy.Query("DELETE FROM review_sess WHERE p IN (10, 11, 12, 13, 14)").Exec(); err != nil {
			t.Fatal(err)
		}
		if err := p.legacy.Query("DELETE FROM review_sess_pages WHERE p = 5").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var lt, ct trace
	reset()
	{
		tr, s := &lt, p.legacy
		sent := legacySentinels()
		errOf := func(label string, err error) { tr.add(label, err, isSentinel(err, sent)) }
		for _, sc := range []gocqlv1.SerialConsistency{gocqlv1.Serial, gocqlv1.LocalSerial, gocqlv1.SerialConsistency(gocqlv1.Quorum),
			gocqlv1.SerialConsistency(gocqlv1.LocalQuorum), gocqlv1.SerialConsistency(gocqlv1.One), gocqlv1.SerialConsistency(gocqlv1.Any)} {
			name := fmt.Sprintf("serial %d ", uint16(sc))
			errOf(name+"select", s.Query("SELECT v FROM review_sess WHERE p = 10").SerialConsistency(sc).Exec())
			errOf(name+"insert", s.Query("INSERT INTO review_sess (p, v) VALUES (10, 'a')").SerialConsistency(sc).Exec())
			errOf(name+"insert bound", s.Query("INSERT INTO review_sess (p, v) VALUES (?, 'a')", 10).SerialConsistency(sc).Exec())
			errOf(name+"ddl", s.Query("CREATE TABLE IF NOT EXISTS review_sess (p int PRIMARY KEY, v text)").SerialConsistency(sc).Exec())
			errOf(name+"if in literals", s.Query(`INSERT INTO review_sess (p, v) VALUES (14, $$ if $$) /* IF */ -- IF`+"\n").SerialConsistency(sc).Exec())
			_, err := s.Query("INSERT INTO review_sess (p, v) VALUES (11, 'a') IF NOT EXISTS").SerialConsistency(sc).ScanCAS()
			errOf(name+"lwt", err)
			_, err = s.Query("update review_sess set v = ? where p = ? if exists", "b", 11).SerialConsistency(sc).ScanCAS()
			errOf(name+"lwt bound", err)
			b := s.NewBatch(gocqlv1.LoggedBatch).SerialConsistency(sc)
			b.Query("INSERT INTO review_sess (p, v) VALUES (12, 'if')")
			b.Query("INSERT INTO review_sess (p, v) VALUES (?, ' IF ')", 12)
			errOf(name+"batch", s.ExecuteBatch(b))
			b.Query("UPDATE review_sess SET v = 'c' WHERE p = 12 IF v = 'if'")
			errOf(name+"lwt batch", s.ExecuteBatch(b))
		}
		// The server words these protocol errors: cqlsim and Cassandra differently.
		codeOf := func(label string, err error) { tr.add(label, typeAndCode(err)) }
		codeOf("serial 300 select", s.Query("SELECT v FROM review_sess WHERE p = 10").SerialConsistency(300).Exec())
		b := s.NewBatch(gocqlv1.LoggedBatch).SerialConsistency(300)
		b.Query("INSERT INTO review_sess (p, v) VALUES (12, 'a')")
		codeOf("serial 300 batch", s.ExecuteBatch(b))
		codeOf("consistency 300 select", s.Query("SELECT v FROM review_sess WHERE p = 10").Consistency(300).Exec())
		errOf("consistency 300 syntax error", s.Query("SELECT nope FROM review_sess WHERE p = 10").Consistency(300).Exec())

		q := s.Query("SELECT c FROM review_sess_pages WHERE p = ?", 1)
		tr.add("query routing before", q.Keyspace(), q.Table())
		key, err := q.GetRoutingKey()
		tr.add("query routing key", key, err, q.Keyspace(), q.Table())
		q = s.Query("SELECT c FROM "+otherTable+" WHERE p = ?", 1)
		errOf("query exec", q.Exec())
		tr.add("query routing after exec", q.Keyspace(), q.Table())
		b = s.NewBatch(gocqlv1.UnloggedBatch)
		tr.add("batch routing empty", b.Keyspace(), b.Table(), b.Size())
		key, err = b.GetRoutingKey()
		tr.add("batch routing key empty", key, err)
		b.Query("INSERT INTO "+otherTable+" (p, c) VALUES (?, ?)", 5, 1)
		tr.add("batch routing before", b.Keyspace(), b.Table(), b.Size())
		key, err = b.GetRoutingKey()
		tr.add("batch routing key", key, err, b.Keyspace(), b.Table())
		errOf("batch exec", s.ExecuteBatch(b))
		tr.add("batch routing after exec", b.Keyspace(), b.Table())
		b.Entries = append(b.Entries, gocqlv1.BatchEntry{Stmt: "INSERT INTO review_sess (p, v) VALUES (?, ?)", Args: []interface{}{13, "e"}, Idempotent: true})
		tr.add("batch entries", b.Size(), len(b.Entries), b.IsIdempotent(), b.Entries[0].Idempotent, b.Entries[0].Args)
		errOf("batch nil retry", s.ExecuteBatch(b.RetryPolicy(nil)))
		b.Entries = b.Entries[1:]
		tr.add("batch idempotent", b.Size(), b.IsIdempotent())
		b.Entries = nil
		tr.add("batch no entries", b.Size(), b.IsIdempotent())
		errOf("batch empty exec", s.ExecuteBatch(b))

		for _, n := range []int{0, -1, 2} {
			iter := s.Query("SELECT c FROM review_sess_pages WHERE p = 1").PageSize(n).Iter()
			tr.add(fmt.Sprintf("page size %d", n), iter.NumRows(), len(iter.PageState()) > 0, iter.Close())
		}
		q = s.Query("SELECT c FROM review_sess_pages WHERE p = 1").Idempotent(true)
		tr.add("idempotent", q.IsIdempotent(), q.Exec())
		errOf("nil retry", s.Query("SELECT nope FROM review_sess").RetryPolicy(nil).Exec())
		errOf("nil speculative, not idempotent", s.Query("SELECT c FROM review_sess_pages WHERE p = 1").SetSpeculativeExecutionPolicy(nil).Exec())

		errOf("timestamp", s.Query("INSERT INTO review_sess (p, v) VALUES (20, 'ts')").WithTimestamp(42).Exec())
		errOf("timestamp, default off after", s.Query("INSERT INTO review_sess (p, v) VALUES (21, 'ts')").WithTimestamp(43).DefaultTimestamp(false).Exec())
		errOf("timestamp off then on", s.Query("INSERT INTO review_sess (p, v) VALUES (22, 'ts')").DefaultTimestamp(false).WithTimestamp(44).Exec())
		errOf("timestamp in statement", s.Query("INSERT INTO review_sess (p, v) VALUES (23, 'ts') USING TIMESTAMP 7").WithTimestamp(45).Exec())
		errOf("zero timestamp", s.Query("INSERT INTO review_sess (p, v) VALUES (24, 'ts')").WithTimestamp(0).Exec())
		b = s.NewBatch(gocqlv1.UnloggedBatch).WithTimestamp(46)
		b.Query("INSERT INTO review_sess (p, v) VALUES (25, 'ts')")
		errOf("batch timestamp", s.ExecuteBatch(b))
		for p := 20; p <= 25; p++ {
			var wt int64
			err := s.Query("SELECT writetime(v) FROM review_sess WHERE p = ?", p).Scan(&wt)
			tr.add(fmt.Sprintf("writetime +%d", p%10), err, wt < 1000)
		}
	}
	reset()
	{
		tr, s := &ct, p.compat
		sent := compatSentinels()
		errOf := func(label string, err error) { tr.add(label, err, isSentinel(err, sent)) }
		for _, sc := range []gocql.SerialConsistency{gocql.Serial, gocql.LocalSerial, gocql.SerialConsistency(gocql.Quorum),
			gocql.SerialConsistency(gocql.LocalQuorum), gocql.SerialConsistency(gocql.One), gocql.SerialConsistency(gocql.Any)} {
			name := fmt.Sprintf("serial %d ", uint16(sc))
			errOf(name+"select", s.Query("SELECT v FROM review_sess WHERE p = 10").SerialConsistency(sc).Exec())
			errOf(name+"insert", s.Query("INSERT INTO review_sess (p, v) VALUES (10, 'a')").SerialConsistency(sc).Exec())
			errOf(name+"insert bound", s.Query("INSERT INTO review_sess (p, v) VALUES (?, 'a')", 10).SerialConsistency(sc).Exec())
			errOf(name+"ddl", s.Query("CREATE TABLE IF NOT EXISTS review_sess (p int PRIMARY KEY, v text)").SerialConsistency(sc).Exec())
			errOf(name+"if in literals", s.Query(`INSERT INTO review_sess (p, v) VALUES (14, $$ if $$) /* IF */ -- IF`+"\n").SerialConsistency(sc).Exec())
			_, err := s.Query("INSERT INTO review_sess (p, v) VALUES (11, 'a') IF NOT EXISTS").SerialConsistency(sc).ScanCAS()
			errOf(name+"lwt", err)
			_, err = s.Query("update review_sess set v = ? where p = ? if exists", "b", 11).SerialConsistency(sc).ScanCAS()
			errOf(name+"lwt bound", err)
			b := s.NewBatch(gocql.LoggedBatch).SerialConsistency(sc)
			b.Query("INSERT INTO review_sess (p, v) VALUES (12, 'if')")
			b.Query("INSERT INTO review_sess (p, v) VALUES (?, ' IF ')", 12)
			errOf(name+"batch", s.ExecuteBatch(b))
			b.Query("UPDATE review_sess SET v = 'c' WHERE p = 12 IF v = 'if'")
			errOf(name+"lwt batch", s.ExecuteBatch(b))
		}
		// The server words these protocol errors: cqlsim and Cassandra differently.
		codeOf := func(label string, err error) { tr.add(label, typeAndCode(err)) }
		codeOf("serial 300 select", s.Query("SELECT v FROM review_sess WHERE p = 10").SerialConsistency(300).Exec())
		b := s.NewBatch(gocql.LoggedBatch).SerialConsistency(300)
		b.Query("INSERT INTO review_sess (p, v) VALUES (12, 'a')")
		codeOf("serial 300 batch", s.ExecuteBatch(b))
		codeOf("consistency 300 select", s.Query("SELECT v FROM review_sess WHERE p = 10").Consistency(300).Exec())
		errOf("consistency 300 syntax error", s.Query("SELECT nope FROM review_sess WHERE p = 10").Consistency(300).Exec())

		q := s.Query("SELECT c FROM review_sess_pages WHERE p = ?", 1)
		tr.add("query routing before", q.Keyspace(), q.Table())
		key, err := q.GetRoutingKey()
		tr.add("query routing key", key, err, q.Keyspace(), q.Table())
		q = s.Query("SELECT c FROM "+otherTable+" WHERE p = ?", 1)
		errOf("query exec", q.Exec())
		tr.add("query routing after exec", q.Keyspace(), q.Table())
		b = s.NewBatch(gocql.UnloggedBatch)
		tr.add("batch routing empty", b.Keyspace(), b.Table(), b.Size())
		key, err = b.GetRoutingKey()
		tr.add("batch routing key empty", key, err)
		b.Query("INSERT INTO "+otherTable+" (p, c) VALUES (?, ?)", 5, 1)
		tr.add("batch routing before", b.Keyspace(), b.Table(), b.Size())
		key, err = b.GetRoutingKey()
		tr.add("batch routing key", key, err, b.Keyspace(), b.Table())
		errOf("batch exec", s.ExecuteBatch(b))
		tr.add("batch routing after exec", b.Keyspace(), b.Table())
		b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: "INSERT INTO review_sess (p, v) VALUES (?, ?)", Args: []interface{}{13, "e"}, Idempotent: true})
		tr.add("batch entries", b.Size(), len(b.Entries), b.IsIdempotent(), b.Entries[0].Idempotent, b.Entries[0].Args)
		errOf("batch nil retry", s.ExecuteBatch(b.RetryPolicy(nil)))
		b.Entries = b.Entries[1:]
		tr.add("batch idempotent", b.Size(), b.IsIdempotent())
		b.Entries = nil
		tr.add("batch no entries", b.Size(), b.IsIdempotent())
		errOf("batch empty exec", s.ExecuteBatch(b))

		for _, n := range []int{0, -1, 2} {
			iter := s.Query("SELECT c FROM review_sess_pages WHERE p = 1").PageSize(n).Iter()
			tr.add(fmt.Sprintf("page size %d", n), iter.NumRows(), len(iter.PageState()) > 0, iter.Close())
		}
		q = s.Query("SELECT c FROM review_sess_pages WHERE p = 1").Idempotent(true)
		tr.add("idempotent", q.IsIdempotent(), q.Exec())
		errOf("nil retry", s.Query("SELECT nope FROM review_sess").RetryPolicy(nil).Exec())
		errOf("nil speculative, not idempotent", s.Query("SELECT c FROM review_sess_pages WHERE p = 1").SetSpeculativeExecutionPolicy(nil).Exec())

		errOf("timestamp", s.Query("INSERT INTO review_sess (p, v) VALUES (30, 'ts')").WithTimestamp(42).Exec())
		errOf("timestamp, default off after", s.Query("INSERT INTO review_sess (p, v) VALUES (31, 'ts')").WithTimestamp(43).DefaultTimestamp(false).Exec())
		errOf("timestamp off then on", s.Query("INSERT INTO review_sess (p, v) VALUES (32, 'ts')").DefaultTimestamp(false).WithTimestamp(44).Exec())
		errOf("timestamp in statement", s.Query("INSERT INTO review_sess (p, v) VALUES (33, 'ts') USING TIMESTAMP 7").WithTimestamp(45).Exec())
		errOf("zero timestamp", s.Query("INSERT INTO review_sess (p, v) VALUES (34, 'ts')").WithTimestamp(0).Exec())
		b = s.NewBatch(gocql.UnloggedBatch).WithTimestamp(46)
		b.Query("INSERT INTO review_sess (p, v) VALUES (35, 'ts')")
		errOf("batch timestamp", s.ExecuteBatch(b))
		for p := 30; p <= 35; p++ {
			var wt int64
			err := s.Query("SELECT writetime(v) FROM review_sess WHERE p = ?", p).Scan(&wt)
			tr.add(fmt.Sprintf("writetime +%d", p%10), err, wt < 1000)
		}
	}
	sameTrace(t, &lt, &ct)
}

// TestReviewIdempotentWithoutSpeculativePolicy: gocql v1.7.0 panics (a method call on a nil
// interface) executing an idempotent query whose SetSpeculativeExecutionPolicy was given nil;
// compat runs it without speculative executions (docs/deviations.md G27).
func TestReviewIdempotentWithoutSpeculativePolicy(t *testing.T) {
	p := newDiffPair(t, reviewSessionTables...)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("gocql v1.7.0 no longer panics: G27 may be dropped")
			}
		}()
		_ = p.legacy.Query("SELECT v FROM review_sess WHERE p = 1").Idempotent(true).SetSpeculativeExecutionPolicy(nil).Exec()
	}()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("gocql v1.7.0 no longer panics on a batch: G27 may be narrowed")
			}
		}()
		b := p.legacy.NewBatch(gocqlv1.UnloggedBatch).SpeculativeExecutionPolicy(nil)
		b.Entries = append(b.Entries, gocqlv1.BatchEntry{Stmt: "INSERT INTO review_sess (p, v) VALUES (1, 'x')", Idempotent: true})
		_ = p.legacy.ExecuteBatch(b)
	}()
	if err := p.compat.Query("SELECT v FROM review_sess WHERE p = 1").Idempotent(true).SetSpeculativeExecutionPolicy(nil).Exec(); err != nil {
		t.Fatalf("idempotent query without a speculative execution policy: %v", err)
	}
	b := p.compat.NewBatch(gocql.UnloggedBatch).SpeculativeExecutionPolicy(nil)
	b.Entries = append(b.Entries, gocql.BatchEntry{Stmt: "INSERT INTO review_sess (p, v) VALUES (1, 'x')", Idempotent: true})
	if err := p.compat.ExecuteBatch(b); err != nil {
		t.Fatalf("idempotent batch without a speculative execution policy: %v", err)
	}
}

// TestReviewBatchWithoutSession: a batch made by the package-level NewBatch has no session;
// gocql v1.7.0's GetRoutingKey dereferences it and panics once the batch has an entry, where
// compat returns no routing key (docs/deviations.md G28). Keyspace and Table are empty in both.
func TestReviewBatchWithoutSession(t *testing.T) {
	//lint:ignore SA1019 the deprecated constructor is the case
	lb := gocqlv1.NewBatch(gocqlv1.UnloggedBatch)
	cb := gocql.NewBatch(gocql.UnloggedBatch)
	var lt, ct trace
	key, err := lb.GetRoutingKey()
	lt.add("empty", key, err, lb.Keyspace(), lb.Table(), lb.Size(), lb.GetConsistency())
	key, err = cb.GetRoutingKey()
	ct.add("empty", key, err, cb.Keyspace(), cb.Table(), cb.Size(), cb.GetConsistency())
	lb.Query("INSERT INTO review_sess (p, v) VALUES (?, 'x')", 1)
	cb.Query("INSERT INTO review_sess (p, v) VALUES (?, 'x')", 1)
	lt.add("one entry", lb.Keyspace(), lb.Table(), lb.Size())
	ct.add("one entry", cb.Keyspace(), cb.Table(), cb.Size())
	sameTrace(t, &lt, &ct)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("gocql v1.7.0 no longer panics: G28 may be dropped")
			}
		}()
		_, _ = lb.GetRoutingKey()
	}()
	if key, err := cb.GetRoutingKey(); key != nil || err != nil {
		t.Fatalf("routing key of a batch without session: %x, %v; want nil, nil", key, err)
	}
}
