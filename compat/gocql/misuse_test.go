package gocql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// panics reports whether f panics.
func panics(f func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	f()
	return false
}

// misuseSessions returns a shim and a gocql session on a one-node cqlsim (returned too), with
// the table ks.kv (p int, c int, v text, PRIMARY KEY (p, c)) created.
func misuseSessions(t *testing.T) (*Session, *gocqlv1.Session, *cqlsim.Cluster) {
	t.Helper()
	sim := cqlsim.StartT(t, cqlsim.Options{})
	s, ls := sessionsOn(t, sim, nil)
	for _, stmt := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.kv (p int, c int, v text, PRIMARY KEY (p, c))",
		"INSERT INTO ks.kv (p, c, v) VALUES (0, 0, 'zero')",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return s, ls, sim
}

// ExecuteBatchAsync works on a copy of the batch taken when it is called: resetting the
// batch and adding other statements at once (the usual way to reuse one) changes nothing
// for the batch in flight, whose writes all reach the server.
func TestExecuteBatchAsyncCopiesTheBatch(t *testing.T) {
	s, _, _ := misuseSessions(t)
	b := s.NewBatch(UnloggedBatch)
	b.Query("INSERT INTO ks.kv (p, c, v) VALUES (?, ?, ?)", 7, 1, "first")
	f := s.ExecuteBatchAsync(b)
	b.Entries = b.Entries[:0]
	b.Query("INSERT INTO ks.kv (p, c, v) VALUES (?, ?, ?)", 7, 2, "second")
	if _, err := f.Result(); err != nil {
		t.Fatalf("the first batch: %v", err)
	}
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatalf("the second batch: %v", err)
	}
	iter := s.Query("SELECT v FROM ks.kv WHERE p = 7").Iter()
	var got []string
	for v := ""; iter.Scan(&v); {
		got = append(got, v)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"first", "second"}) {
		t.Fatalf("rows %q, want both batches' writes", got)
	}
}

// panicObserver is an observer with a bug.
type panicObserver struct{}

func (panicObserver) ObserveQuery(context.Context, ObservedQuery) { panic("observer bug") }
func (panicObserver) ObserveBatch(context.Context, ObservedBatch) { panic("observer bug") }

// A panic in the application's code during an asynchronous execution (here an observer) runs
// in the future's goroutine, where the application cannot recover it: it fails the future
// instead of ending the program. A future of no session, or of a nil batch, fails too.
func TestAsyncPanicFailsTheFuture(t *testing.T) {
	s, _, _ := misuseSessions(t)
	_, err := s.Query("SELECT v FROM ks.kv WHERE p = 0").Observer(panicObserver{}).IterAsync().Result()
	if err == nil || !strings.Contains(err.Error(), "observer bug") {
		t.Errorf("IterAsync with a panicking observer: %v, want an error carrying the panic", err)
	}
	// An idempotent query with speculative executions runs each in a goroutine of its own.
	spec := &SimpleSpeculativeExecution{NumAttempts: 2, TimeoutDelay: time.Millisecond}
	_, err = s.Query("SELECT v FROM ks.kv WHERE p = 0").Idempotent(true).SetSpeculativeExecutionPolicy(spec).Observer(panicObserver{}).IterAsync().Result()
	if err == nil || !strings.Contains(err.Error(), "observer bug") {
		t.Errorf("IterAsync with speculative executions and a panicking observer: %v, want an error carrying the panic", err)
	}
	if !panics(func() {
		_ = s.Query("SELECT v FROM ks.kv WHERE p = 0").Idempotent(true).SetSpeculativeExecutionPolicy(spec).Observer(panicObserver{}).Exec()
	}) {
		t.Error("Exec with speculative executions and a panicking observer: the panic did not reach the caller")
	}
	b := s.NewBatch(UnloggedBatch).Observer(panicObserver{})
	b.Query("INSERT INTO ks.kv (p, c, v) VALUES (1, 1, 'x')")
	if _, err := s.ExecuteBatchAsync(b).Result(); err == nil || !strings.Contains(err.Error(), "observer bug") {
		t.Errorf("ExecuteBatchAsync with a panicking observer: %v, want an error carrying the panic", err)
	}
	var none *Session
	if _, err := none.ExecuteBatchAsync(b).Result(); !errors.Is(err, errNoSession) {
		t.Errorf("ExecuteBatchAsync on a nil session: %v, want %v", err, errNoSession)
	}
	if _, err := s.ExecuteBatchAsync(nil).Result(); !errors.Is(err, errNilBatch) {
		t.Errorf("ExecuteBatchAsync(nil): %v, want %v", err, errNilBatch)
	}
}

// Misuse on which gocql v1.7.0 panics returns an error in the shim (docs/deviations.md G41);
// each case also checks that gocql still panics.
func TestMisuseWhereGocqlPanics(t *testing.T) {
	s, ls, _ := misuseSessions(t)
	cases := []struct {
		name   string
		legacy func()
		shim   func() error
	}{
		{"Iter.MapScan(nil)",
			func() { ls.Query("SELECT p, c, v FROM ks.kv").Iter().MapScan(nil) },
			func() error {
				iter := s.Query("SELECT p, c, v FROM ks.kv").Iter()
				if iter.MapScan(nil) {
					return errors.New("MapScan(nil) reported a row")
				}
				return iter.Close()
			}},
		{"Query.MapScan(nil)",
			func() { _ = ls.Query("SELECT p, c, v FROM ks.kv").MapScan(nil) },
			func() error { return s.Query("SELECT p, c, v FROM ks.kv").MapScan(nil) }},
		{"Scanner.Next after Err",
			func() {
				sc := ls.Query("SELECT v FROM ks.kv").Iter().Scanner()
				_ = sc.Err()
				sc.Next()
			},
			func() error {
				sc := s.Query("SELECT v FROM ks.kv").Iter().Scanner()
				_ = sc.Err()
				if sc.Next() {
					return errors.New("Next after Err reported a row")
				}
				return sc.Err()
			}},
		{"ExecuteBatch(nil)",
			func() { _ = ls.ExecuteBatch(nil) },
			func() error { return s.ExecuteBatch(nil) }},
		{"AwaitSchemaAgreement(nil)",
			//lint:ignore SA1012 the nil context is the case
			func() { _ = ls.AwaitSchemaAgreement(nil) },
			func() error {
				//lint:ignore SA1012 the nil context is the case
				if err := s.AwaitSchemaAgreement(nil); err != nil {
					return errors.New("unexpected: " + err.Error())
				}
				return errors.New("agreed") // a nil context is context.Background
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !panics(tc.legacy) {
				t.Error("gocql v1.7.0 no longer panics: revisit G41")
			}
			var err error
			if panics(func() { err = tc.shim() }) {
				t.Fatal("the shim panics")
			}
			if err == nil {
				t.Error("the shim reports no error")
			}
			t.Logf("shim: %v", err)
		})
	}
}

// A batch written as a struct literal (no session, no metrics) executes: gocql v1.7.0
// panics on its nil metrics. A batch of the package-level NewBatch executed from several
// goroutines at once is not written to (the race detector checks it in CI).
func TestBatchLiteralAndSharedBatch(t *testing.T) {
	s, ls, _ := misuseSessions(t)
	legacyLit := &gocqlv1.Batch{Type: gocqlv1.UnloggedBatch, Cons: gocqlv1.One}
	legacyLit.Entries = append(legacyLit.Entries, gocqlv1.BatchEntry{Stmt: "INSERT INTO ks.kv (p, c, v) VALUES (2, 1, 'literal')"})
	if !panics(func() { _ = ls.ExecuteBatch(legacyLit) }) {
		t.Error("gocql v1.7.0 no longer panics on a struct-literal batch: revisit G41")
	}
	lit := &Batch{Type: UnloggedBatch, Cons: One}
	lit.Entries = append(lit.Entries, BatchEntry{Stmt: "INSERT INTO ks.kv (p, c, v) VALUES (2, 1, 'literal')"})
	if err := s.ExecuteBatch(lit); err != nil {
		t.Fatalf("a struct-literal batch: %v", err)
	}
	if lit.Attempts() != 0 {
		t.Errorf("the literal batch's Attempts %d: it has no metrics of its own", lit.Attempts())
	}
	shared := NewBatch(UnloggedBatch) //nolint:staticcheck // the package-level constructor is the case
	shared.Cons = One
	shared.Query("INSERT INTO ks.kv (p, c, v) VALUES (2, 2, 'shared')")
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- s.ExecuteBatch(shared) }()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if shared.Attempts() != 4 {
		t.Errorf("the shared batch's Attempts %d, want 4", shared.Attempts())
	}
}

// A TokenAwareHostPolicy already bound to a session is refused by CreateSession (gocql
// v1.7.0 panics), even once that session is closed: replica routing would otherwise follow
// the newest session and read placements through a closed one.
func TestSharedTokenAwarePolicyRefused(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	lcfg := gocqlv1.NewCluster(sim.Addrs()...)
	lcfg.PoolConfig.HostSelectionPolicy = gocqlv1.TokenAwareHostPolicy(gocqlv1.RoundRobinHostPolicy())
	first, err := lcfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	if !panics(func() {
		if s, err := lcfg.CreateSession(); err == nil {
			s.Close()
		}
	}) {
		t.Error("gocql v1.7.0 no longer panics on a shared TokenAwareHostPolicy: revisit G41")
	}

	cfg := NewCluster(sim.Addrs()...)
	cfg.PoolConfig.HostSelectionPolicy = TokenAwareHostPolicy(RoundRobinHostPolicy())
	a, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = cfg.CreateSession()
	want := "gocql: unable to create session: " + errSharedTokenAware.Error()
	if err == nil || err.Error() != want {
		t.Fatalf("a second session with the same policy: %v, want %q", err, want)
	}
	a.Close()
	if _, err = cfg.CreateSession(); err == nil || err.Error() != want {
		t.Fatalf("after the first session closed: %v, want %q", err, want)
	}
}

// Close while statements wait for their PREPARE fails them with ErrSessionClosed, as it
// fails every request in flight, not with ErrNoConnections (which says no node could be
// reached).
func TestCloseDuringPrepare(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	s, _ := sessionsOn(t, sim, nil)
	if err := sim.SetNodeDelay(0, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sim.SetNodeDelay(0, 0) }()
	errs := make(chan error, 3)
	for i := range 3 {
		go func() {
			errs <- s.Query("SELECT key FROM system.local WHERE key = ? "+strings.Repeat(" ", i), "x").Exec()
		}()
	}
	time.Sleep(300 * time.Millisecond) // the PREPAREs are on their way
	s.Close()
	for range 3 {
		if err := <-errs; !errors.Is(err, ErrSessionClosed) {
			t.Errorf("a query waiting for its PREPARE when Close ran: %v, want ErrSessionClosed", err)
		}
	}
}

// Futures, as the Python driver's: a conditional batch that is not applied answers one row
// per condition, and WasApplied reads the first (a statement's LWT result has exactly one);
// an iteration that stopped on a failed page fetch and is resumed successfully reports no
// error at its end.
func TestFutureBatchWasAppliedAndResumedIteration(t *testing.T) {
	s, _, sim := misuseSessions(t)
	for c := range 2 {
		if err := s.Query("INSERT INTO ks.kv (p, c, v) VALUES (9, ?, 'x')", c).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	b := s.NewBatch(UnloggedBatch)
	b.Query("UPDATE ks.kv SET v = 'y' WHERE p = 9 AND c = 0 IF v = 'no'")
	b.Query("UPDATE ks.kv SET v = 'y' WHERE p = 9 AND c = 1 IF v = 'nope'")
	rs, err := s.ExecuteBatchAsync(b).Result()
	if err != nil {
		t.Fatal(err)
	}
	if applied, err := rs.WasApplied(); applied || err != nil {
		t.Errorf("a conditional batch not applied: WasApplied %v, %v; want false, nil", applied, err)
	}

	for c := 2; c < 10; c++ {
		if err := s.Query("INSERT INTO ks.kv (p, c, v) VALUES (9, ?, 'x')", c).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	// The second page's request fails once.
	if err := sim.InjectFault(0, cqlsim.Fault{Match: "SELECT c FROM ks.kv", Error: &message.Overloaded{ErrorMessage: "busy"}, Skip: 1, Times: 1}); err != nil {
		t.Fatal(err)
	}
	rs, err = s.Query("SELECT c FROM ks.kv WHERE p = 9").PageSize(3).IterAsync().Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rs.Next() {
		n++
	}
	if rs.Err() == nil || n != 3 {
		t.Fatalf("first pass: %d rows, error %v; want 3 rows and the second page's error", n, rs.Err())
	}
	for rs.Next() {
		n++
	}
	if rs.Err() != nil || n != 10 {
		t.Errorf("resumed: %d rows in all, error %v; want 10 and no error", n, rs.Err())
	}
}

// TestStructLiteralsUnlikeGocql pins the struct-literal part of deviation G41 beyond execution
// of a literal Batch: gocql v1.7.0 dereferences the routing information and metrics that only
// its constructors allocate, so a Query written as a struct literal panics when executed and in
// Keyspace, Table, GetRoutingKey, Attempts and Latency, and a Batch literal in Table, Attempts
// and Latency. The shim executes nothing for a Query without a session (its error says so)
// and answers the accessors with zero values.
func TestStructLiteralsUnlikeGocql(t *testing.T) {
	lq := func() *gocqlv1.Query { return &gocqlv1.Query{} }
	lb := func() *gocqlv1.Batch { return &gocqlv1.Batch{} }
	for name, f := range map[string]func(){
		"Query.Exec":          func() { _ = lq().Exec() },
		"Query.Keyspace":      func() { _ = lq().Keyspace() },
		"Query.Table":         func() { _ = lq().Table() },
		"Query.GetRoutingKey": func() { _, _ = lq().GetRoutingKey() },
		"Query.Attempts":      func() { _ = lq().Attempts() },
		"Query.Latency":       func() { _ = lq().Latency() },
		"Batch.Table":         func() { _ = lb().Table() },
		"Batch.Attempts":      func() { _ = lb().Attempts() },
		"Batch.Latency":       func() { _ = lb().Latency() },
	} {
		if !panics(f) {
			t.Errorf("gocql v1.7.0: %s of a struct literal no longer panics: revisit G41", name)
		}
	}

	const noSession = "gocql: query was not created by a session"
	if err := (&Query{}).Exec(); err == nil || err.Error() != noSession {
		t.Errorf("Exec of a Query literal: %v, want %s", err, noSession)
	}
	if err := (&Query{stmt: "SELECT now() FROM system.local"}).Iter().Close(); err == nil || err.Error() != noSession {
		t.Errorf("Iter of a Query literal: %v, want %s", err, noSession)
	}
	q := &Query{}
	key, err := q.GetRoutingKey()
	if got := fmt.Sprint(q.Keyspace(), "|", q.Table(), "|", key, err, "|", q.Attempts(), q.Latency()); got != "||[] <nil>|0 0" {
		t.Errorf("accessors of a Query literal: %s", got)
	}
	b := &Batch{}
	if got := fmt.Sprint(b.Keyspace(), "|", b.Table(), "|", b.Attempts(), b.Latency()); got != "||0 0" {
		t.Errorf("accessors of a Batch literal: %s", got)
	}
}
