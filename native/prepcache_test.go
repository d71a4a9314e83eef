package native_test

import (
	"fmt"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

// TestPreparedStatementCacheBound: with Config.MaxPreparedStatements, texts with literal values
// prepared one after another do not stay cached (preparing one again sends a PREPARE, seen as
// PrepareTraced's trace id), a statement used between them does, and a dropped statement's
// *Prepared still runs. A negative bound keeps everything.
func TestPreparedStatementCacheBound(t *testing.T) {
	s, _ := connect(t, func(c *native.Config) { c.MaxPreparedStatements = 3 })
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (1, 'one')")
	prepare := func(s *native.Session, cql string) (p *native.Prepared, sent bool) {
		t.Helper()
		p, id, err := s.PrepareTraced(ctxT(t), cql)
		if err != nil {
			t.Fatalf("prepare %q: %v", cql, err)
		}
		return p, id != nil
	}
	literal := func(i int) string { return fmt.Sprintf("SELECT v FROM kv WHERE k = %d", i+1) }

	const hot = "SELECT v FROM kv WHERE k = ?"
	hp, sent := prepare(s, hot)
	if !sent {
		t.Fatal("first Prepare of a statement sent no PREPARE")
	}
	var first *native.Prepared
	for i := range 20 {
		p, sent := prepare(s, literal(i))
		if !sent {
			t.Fatalf("literal statement %d: no PREPARE sent", i)
		}
		if i == 0 {
			first = p
		}
		// Executing the statement (a Bind) counts as a use, as a Prepare of its text does.
		if _, err := s.Execute(ctxT(t), hp.Bind(1)); err != nil {
			t.Fatal(err)
		}
	}
	if p, sent := prepare(s, hot); sent || p != hp {
		t.Fatalf("the statement executed between the others was dropped (PREPARE sent: %v)", sent)
	}
	if p, sent := prepare(s, literal(0)); !sent || p == first {
		t.Fatalf("with a bound of 3, the first of 20 literal statements is still cached (PREPARE sent: %v)", sent)
	}
	res, err := s.Execute(ctxT(t), first.Bind())
	if err != nil {
		t.Fatalf("executing a statement the cache dropped: %v", err)
	}
	row, ok := res.First()
	if !ok {
		t.Fatal("a statement the cache dropped returned no row")
	}
	if v, err := native.Get[string](row, 0); err != nil || v != "one" {
		t.Fatalf("dropped statement returned %q, %v; want \"one\"", v, err)
	}

	unbounded, _ := connect(t, func(c *native.Config) { c.MaxPreparedStatements = -1 })
	mustExec(t, unbounded, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	for i := range 20 {
		prepare(unbounded, literal(i))
	}
	for i := range 20 {
		if _, sent := prepare(unbounded, literal(i)); sent {
			t.Fatalf("no bound: literal statement %d was dropped", i)
		}
	}
}
