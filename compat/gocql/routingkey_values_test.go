package gocql_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// TestRoutingKeyWithMissingValuesUnlikeGocql pins deviation G70: a statement given fewer values
// than its partition key's bind markers (a forgotten value) makes gocql v1.7.0's GetRoutingKey
// index past its values and panic, for a Query and for a Batch's first entry. As
// TokenAwareHostPolicy computes the routing key in Pick, executing such a query with that
// policy panics in gocql, where with another policy it fails with "gocql: expected 2 values
// send got 0". The shim's GetRoutingKey returns nil, nil, and the execution fails with that
// error whatever the policy.
func TestRoutingKeyWithMissingValuesUnlikeGocql(t *testing.T) {
	ks, hosts := cqltest.Keyspace(t)
	cqltest.Exec(t, hosts[0], "CREATE TABLE "+ks+".t (a int, b int, c int, PRIMARY KEY ((a, b), c))")
	const stmt = "SELECT c FROM t WHERE a = ? AND b = ?"
	panics := func(f func()) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = fmt.Sprint(r)
			}
		}()
		f()
		return ""
	}

	lc := gocqlv1.NewCluster(hosts...)
	lc.Keyspace = ks
	lc.Timeout = 30 * time.Second
	lc.PoolConfig.HostSelectionPolicy = gocqlv1.TokenAwareHostPolicy(gocqlv1.RoundRobinHostPolicy())
	l, err := lc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lb := l.NewBatch(gocqlv1.UnloggedBatch)
	lb.Query("INSERT INTO t (a, b, c) VALUES (?, ?, 1)", 1)
	for name, f := range map[string]func(){
		"Query.GetRoutingKey": func() { _, _ = l.Query(stmt, 1).GetRoutingKey() },
		"Batch.GetRoutingKey": func() { _, _ = lb.GetRoutingKey() },
		"Exec (token-aware)":  func() { _ = l.Query(stmt).Exec() },
	} {
		if msg := panics(f); !strings.Contains(msg, "index out of range") {
			t.Errorf("gocql: %s: panic %q, want index out of range (G70 may be dropped)", name, msg)
		}
	}

	cc := gocql.NewCluster(hosts...)
	cc.Keyspace = ks
	cc.Timeout = 30 * time.Second
	cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	c, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if key, err := c.Query(stmt, 1).GetRoutingKey(); key != nil || err != nil {
		t.Errorf("shim: Query.GetRoutingKey with one value of two: %x, %v; want nil, nil", key, err)
	}
	cb := c.NewBatch(gocql.UnloggedBatch)
	cb.Query("INSERT INTO t (a, b, c) VALUES (?, ?, 1)", 1)
	if key, err := cb.GetRoutingKey(); key != nil || err != nil {
		t.Errorf("shim: Batch.GetRoutingKey with one value of two: %x, %v; want nil, nil", key, err)
	}
	if err := c.Query(stmt).Exec(); err == nil || err.Error() != "gocql: expected 2 values send got 0" {
		t.Errorf("shim: Exec without values (token-aware): %v, want gocql: expected 2 values send got 0", err)
	}
	if err := c.ExecuteBatch(cb); err == nil || err.Error() != "gocql: batch statement 0 expected 2 values send got 1" {
		t.Errorf("shim: ExecuteBatch of an entry with one value of two: %v", err)
	}
}

// TestEmptyTupleStringUnlikeGocql pins deviation G71: gocql v1.7.0 writes a tuple type without
// elements as "tupl)" (it cuts the separator it did not write); the shim writes "tuple()". A
// tuple with elements reads the same in both.
func TestEmptyTupleStringUnlikeGocql(t *testing.T) {
	if got := (gocqlv1.TupleTypeInfo{NativeType: gocqlv1.NewNativeType(4, gocqlv1.TypeTuple, "")}).String(); got != "tupl)" {
		t.Errorf("gocql: empty tuple String() = %q, want tupl) (G71 may be dropped)", got)
	}
	if got := (gocql.TupleTypeInfo{NativeType: gocql.NewNativeType(4, gocql.TypeTuple, "")}).String(); got != "tuple()" {
		t.Errorf("shim: empty tuple String() = %q, want tuple()", got)
	}
	legacy := gocqlv1.TupleTypeInfo{NativeType: gocqlv1.NewNativeType(4, gocqlv1.TypeTuple, ""),
		Elems: []gocqlv1.TypeInfo{gocqlv1.NewNativeType(4, gocqlv1.TypeInt, ""), gocqlv1.NewNativeType(4, gocqlv1.TypeVarchar, "")}}
	shim := gocql.TupleTypeInfo{NativeType: gocql.NewNativeType(4, gocql.TypeTuple, ""),
		Elems: []gocql.TypeInfo{gocql.NewNativeType(4, gocql.TypeInt, ""), gocql.NewNativeType(4, gocql.TypeVarchar, "")}}
	if legacy.String() != shim.String() {
		t.Errorf("tuple(int, varchar): gocql %q, shim %q", legacy.String(), shim.String())
	}
}

// TestRoutingKeyOfAnyStatementLikeGocql compares GetRoutingKey of statements that are not
// DML, on a Query and on a Batch's first entry: gocql v1.7.0 prepares any statement to find
// its partition key, so one the node refuses to prepare (a syntax error, an unknown table)
// gives the node's error, and one it prepares without bind markers (DDL) gives no key and no
// error.
func TestRoutingKeyOfAnyStatementLikeGocql(t *testing.T) {
	ks, hosts := cqltest.Keyspace(t)
	cqltest.Exec(t, hosts[0], "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v int)")
	lc := gocqlv1.NewCluster(hosts...)
	lc.Keyspace = ks
	lc.Timeout = 30 * time.Second
	l, err := lc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cc := gocql.NewCluster(hosts...)
	cc.Keyspace = ks
	cc.Timeout = 30 * time.Second
	c, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	describe := func(key []byte, err error) string {
		return strings.Replace(fmt.Sprintf("%x %T %v", key, err, err), "gocqlv1.", "gocql.", 1)
	}
	for _, stmt := range []string{
		"SELEC k FROM t",
		"TRUNCATE nosuch",
		"TRUNCATE t",
		"CREATE INDEX IF NOT EXISTS ON t (v)",
		"/* c */ SELECT v FROM t WHERE k = ?",
	} {
		legacy := describe(l.Query(stmt, 1).GetRoutingKey())
		shim := describe(c.Query(stmt, 1).GetRoutingKey())
		if legacy != shim {
			t.Errorf("Query(%q).GetRoutingKey(): gocql %s, shim %s", stmt, legacy, shim)
		}
		lb := l.NewBatch(gocqlv1.UnloggedBatch)
		lb.Query(stmt, 1)
		cb := c.NewBatch(gocql.UnloggedBatch)
		cb.Query(stmt, 1)
		legacy = describe(lb.GetRoutingKey())
		shim = describe(cb.GetRoutingKey())
		if legacy != shim {
			t.Errorf("batch of %q: GetRoutingKey(): gocql %s, shim %s", stmt, legacy, shim)
		}
	}
}
