package gocql

import (
	"errors"
	"testing"
	"time"
)

func TestPrefetchStartsAtTheConfiguredRow(t *testing.T) {
	s, _ := newTestSession(t, kvTable)
	insertRows(t, s, 8)
	iter := s.Query("SELECT c FROM kv WHERE p = 1").PageSize(4).Prefetch(0.25).Iter()
	next := iter.next
	if next == nil || next.pos != 3 {
		t.Fatalf("next page trigger at row %v, want 3 (int(0.75*4))", next)
	}
	var c int
	for i := 1; i <= 3; i++ {
		iter.Scan(&c)
	}
	if next.started.Load() {
		t.Fatal("the next page was fetched before the 4th Scan")
	}
	iter.Scan(&c)
	if !next.started.Load() {
		t.Fatal("the 4th Scan did not start the background fetch")
	}
	var rows []int
	for iter.Scan(&c) {
		rows = append(rows, c)
	}
	if err := iter.Close(); err != nil || len(rows) != 4 || rows[0] != 5 {
		t.Fatalf("rows of page 2 = %v, %v", rows, err)
	}
	if err, again := iter.Close(), iter.Close(); err != again {
		t.Fatal("Close is not idempotent")
	}
}

func TestUnsetAndNamedValues(t *testing.T) {
	s, _ := newTestSession(t, "CREATE TABLE KS.u (id int PRIMARY KEY, a text, b text)")
	if err := s.Query("INSERT INTO u (id, a, b) VALUES (?, ?, ?)", 1, "a1", "b1").Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("UPDATE u SET a = ?, b = ? WHERE id = ?", "a2", UnsetValue, 1).Exec(); err != nil {
		t.Fatalf("update with UnsetValue: %v", err)
	}
	var a, b string
	if err := s.Query("SELECT a, b FROM u WHERE id = ?", 1).Scan(&a, &b); err != nil || a != "a2" || b != "b1" {
		t.Fatalf("after unset update: a=%q b=%q err=%v; want a2, b1 (b untouched)", a, b, err)
	}
	err := s.Query("INSERT INTO u (id, a, b) VALUES (:id, :a, :b)",
		NamedValue("b", "nb"), NamedValue("id", 2), NamedValue("a", "na")).Exec()
	if err != nil {
		t.Fatalf("named values: %v", err)
	}
	if err := s.Query("SELECT a, b FROM u WHERE id = ?", 2).Scan(&a, &b); err != nil || a != "na" || b != "nb" {
		t.Fatalf("named values stored a=%q b=%q err=%v", a, b, err)
	}
	if err := s.Query("SELECT a FROM u WHERE id = ?", NamedValue("nope", 1)).Exec(); err == nil {
		t.Fatal("a named value matching no marker was accepted")
	}
	// Marshal and unmarshal errors come back unwrapped, with gocql's types.
	var me MarshalError
	if err := s.Query("INSERT INTO u (id, a) VALUES (?, ?)", "not a number", "x").Exec(); !errors.As(err, &me) {
		t.Fatalf("marshal error: %T %v, want a MarshalError", err, err)
	}
	var n int
	iter := s.Query("SELECT a FROM u WHERE id = ?", 1).Iter()
	if iter.Scan(&n) {
		t.Fatal("scanned text into an int")
	}
	var ue UnmarshalError
	if err := iter.Close(); !errors.As(err, &ue) || err != error(ue) {
		t.Fatalf("unmarshal error: %T %v, want a bare UnmarshalError", err, err)
	}
	// MapScan copies slices, and a NULL list becomes an empty, non-nil slice.
	if err := s.Query("CREATE TABLE l (id int PRIMARY KEY, xs list<int>)").Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("INSERT INTO l (id) VALUES (1)").Exec(); err != nil {
		t.Fatal(err)
	}
	m := map[string]interface{}{}
	if err := s.Query("SELECT xs FROM l WHERE id = 1").MapScan(m); err != nil {
		t.Fatal(err)
	}
	if xs, ok := m["xs"].([]int); !ok || xs == nil || len(xs) != 0 {
		t.Fatalf("NULL list in MapScan = %#v, want []int{}", m["xs"])
	}
}

func TestPerAttemptTimeout(t *testing.T) {
	s, ks := newTestSession(t, kvTable)
	cluster := NewCluster(s.cfg.Hosts...)
	cluster.Keyspace = ks
	short, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	// As in gocql v1.7.0, CreateSession itself fails with a 1ns Timeout (its control
	// connection cannot even write STARTUP), so the timeout is shortened afterwards.
	short.cfg.Timeout = time.Nanosecond // no server answers within a nanosecond
	if err := short.Query("SELECT c FROM kv WHERE p = 1").Exec(); !errors.Is(err, ErrTimeoutNoResponse) {
		t.Fatalf("1ns timeout: %v, want ErrTimeoutNoResponse", err)
	}
}

func TestHostsAndFilters(t *testing.T) {
	s, ks := newTestSession(t, kvTable)
	hosts := s.allHosts()
	if len(hosts) == 0 {
		t.Fatal("the session knows no host")
	}
	h := hosts[0]
	if !h.IsUp() || h.Port() == 0 || h.ConnectAddress() == nil || h.HostID() == "" || h.DataCenter() == "" || len(h.Tokens()) == 0 {
		t.Fatalf("host info: %v", h)
	}
	if h.Version().Major < 3 {
		t.Fatalf("version %v", h.Version())
	}
	cluster := NewCluster(s.cfg.Hosts...)
	cluster.HostFilter = DenyAllFilter()
	cluster.ReconnectionPolicy = &ConstantReconnectionPolicy{}
	if denied, err := cluster.CreateSession(); err == nil {
		defer denied.Close()
		if err := denied.Query("SELECT now() FROM system.local").Exec(); err == nil {
			t.Fatal("a session whose filter denies every host ran a query")
		}
	}
	cluster = NewCluster(s.cfg.Hosts...)
	cluster.Keyspace = ks
	cluster.PoolConfig.HostSelectionPolicy = TokenAwareHostPolicy(DCAwareRoundRobinPolicy(h.DataCenter()))
	ta, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer ta.Close()
	var n int
	if err := ta.Query("SELECT count(*) FROM system.local").Scan(&n); err != nil || n != 1 {
		t.Fatalf("token-aware DC-aware session: %d, %v", n, err)
	}
	// A statement with a routing key goes through the replica lookup (keyspace metadata).
	if err := ta.Query("INSERT INTO kv (p, c, v) VALUES (?, ?, ?)", 42, 1, "x").Exec(); err != nil {
		t.Fatal(err)
	}
	var token int64
	if err := ta.Query("SELECT token(p) FROM kv WHERE p = ?", 42).Scan(&token); err != nil {
		t.Fatal(err)
	}
	key, err := ta.Query("SELECT v FROM kv WHERE p = ?", 42).GetRoutingKey()
	if err != nil || murmur3Token(key) != token {
		t.Fatalf("routing key %x has token %d, the server says %d (err %v)", key, murmur3Token(key), token, err)
	}
	if p := ta.placementOf(ks); p.rf != 1 || p.dcs != nil {
		t.Fatalf("placement of %s = %+v, want SimpleStrategy with factor 1", ks, p)
	}
}
