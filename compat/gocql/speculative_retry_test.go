package gocql

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// heldPolicy is a retry policy whose Attempt waits until release is closed, as an application's
// policy that backs off does; entered receives once per call.
type heldPolicy struct {
	entered chan struct{}
	release chan struct{}
	panics  bool // panic once released, instead of returning
}

func newHeldPolicy() *heldPolicy {
	return &heldPolicy{entered: make(chan struct{}, 8), release: make(chan struct{})}
}

func (p *heldPolicy) attempt(n int) bool {
	p.entered <- struct{}{}
	<-p.release
	if p.panics {
		panic("held policy panics")
	}
	return n <= 3
}

type compatHeldPolicy struct{ *heldPolicy }

func (p compatHeldPolicy) Attempt(q RetryableQuery) bool { return p.attempt(q.Attempts()) }
func (p compatHeldPolicy) GetRetryType(error) RetryType  { return RetryNextHost }

type legacyHeldPolicy struct{ *heldPolicy }

func (p legacyHeldPolicy) Attempt(q gocqlv1.RetryableQuery) bool { return p.attempt(q.Attempts()) }
func (p legacyHeldPolicy) GetRetryType(error) gocqlv1.RetryType  { return gocqlv1.RetryNextHost }

// captureLogger is a StdLogger handing every message to its function.
type captureLogger func(string)

func (l captureLogger) Print(v ...interface{})                 { l(fmt.Sprint(v...)) }
func (l captureLogger) Printf(format string, v ...interface{}) { l(fmt.Sprintf(format, v...)) }
func (l captureLogger) Println(v ...interface{})               { l(fmt.Sprintln(v...)) }

// specOverloadedStmt is the statement of TestSpeculativeWinnerNotHeldByALoserRetrying, on the
// table that node 2 answers OVERLOADED.
const specOverloadedStmt = "SELECT v FROM hr_spec.t WHERE k = 1"

// TestSpeculativeWinnerNotHeldByALoserRetrying: every plan starts with node 2, which answers
// OVERLOADED at once, then node 3. An idempotent query with one speculative execution after
// 50 ms: the main execution fails on node 2 and its retry policy holds it (backing off), the
// speculative execution succeeds on node 3. gocql v1.7.0 returns node 3's answer at once,
// without waiting for the main execution's policy; so must compat (it used to wait for the
// losing execution to end, so a backing-off policy delayed the winner by its whole backoff),
// with the application's policy and with ExponentialBackoffRetryPolicy. Likewise, when the
// query's context ends while its execution is in the policy, the query fails at once with the
// context's error. A panic of the policy once the winner has been returned is logged (gocql's
// would end the program).
func TestSpeculativeWinnerNotHeldByALoserRetrying(t *testing.T) {
	sim, legacy, s := slowNodeSessions(t, 10*time.Second)
	cqltest.Exec(t, sim.Addrs()[0], "CREATE KEYSPACE hr_spec WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, sim.Addrs()[0], "CREATE TABLE hr_spec.t (k int PRIMARY KEY, v int)")
	if err := sim.InjectFault(1, cqlsim.Fault{Match: "hr_spec.t", Error: &message.Overloaded{ErrorMessage: "overloaded"}}); err != nil {
		t.Fatal(err)
	}
	// run executes exec in a goroutine, once p's policy holds the main execution: exec must
	// return (with node 3's answer, two attempts counted) while it still does.
	type outcome struct {
		err      error
		host     string
		attempts int
	}
	// release ends what holds the main execution: p's policy, or (with p nil) the backoff.
	run := func(name string, p *heldPolicy, release func(), exec func() outcome) {
		t.Helper()
		done := make(chan outcome, 1)
		go func() { done <- exec() }()
		if p != nil {
			select {
			case <-p.entered:
			case <-time.After(failoverDeadline):
				t.Fatalf("%s: the retry policy was never called", name)
			}
		}
		select {
		case o := <-done:
			release()
			if o.err != nil || o.host != sim.Addrs()[2] || o.attempts != 2 {
				t.Errorf("%s: %+v, want node 3's answer (%s) after 2 attempts", name, o, sim.Addrs()[2])
			}
		case <-time.After(failoverDeadline):
			t.Errorf("%s: the query waited for the losing execution's retry policy", name)
			release()
			<-done
		}
	}
	spec := &SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: 50 * time.Millisecond}
	lspec := &gocqlv1.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: 50 * time.Millisecond}

	lp := newHeldPolicy()
	run("gocql v1.7.0", lp, func() { close(lp.release) }, func() outcome {
		q := legacy.Query(specOverloadedStmt).Idempotent(true).RetryPolicy(legacyHeldPolicy{lp}).SetSpeculativeExecutionPolicy(lspec)
		it := q.Iter()
		err := it.Close()
		return outcome{err, legacyAddr(it.Host()), q.Attempts()}
	})
	cp := newHeldPolicy()
	run("compat", cp, func() { close(cp.release) }, func() outcome {
		q := s.Query(specOverloadedStmt).Idempotent(true).RetryPolicy(compatHeldPolicy{cp}).SetSpeculativeExecutionPolicy(spec)
		it := q.Iter()
		err := it.Close()
		return outcome{err, compatAddr(it.Host()), q.Attempts()}
	})
	// The query's context ends while the main execution is held in the policy (the
	// speculative execution not started yet): the query fails with the context's error at
	// once, in both drivers.
	cancelled := func(name string, p *heldPolicy, exec func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- exec(ctx) }()
		select {
		case <-p.entered:
		case <-time.After(failoverDeadline):
			t.Fatalf("%s: the retry policy was never called", name)
		}
		cancel()
		select {
		case err := <-done:
			close(p.release)
			if err != context.Canceled {
				t.Errorf("%s: %v, want context.Canceled", name, err)
			}
		case <-time.After(failoverDeadline):
			t.Errorf("%s: the cancelled query waited for its execution's retry policy", name)
			close(p.release)
			<-done
		}
	}
	late := &SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: time.Hour}
	llate := &gocqlv1.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: time.Hour}
	lp = newHeldPolicy()
	cancelled("gocql v1.7.0, cancelled", lp, func(ctx context.Context) error {
		return legacy.Query(specOverloadedStmt).WithContext(ctx).Idempotent(true).RetryPolicy(legacyHeldPolicy{lp}).SetSpeculativeExecutionPolicy(llate).Exec()
	})
	cp = newHeldPolicy()
	cancelled("compat, cancelled", cp, func(ctx context.Context) error {
		return s.Query(specOverloadedStmt).WithContext(ctx).Idempotent(true).RetryPolicy(compatHeldPolicy{cp}).SetSpeculativeExecutionPolicy(late).Exec()
	})

	// A panic of the losing execution, once the winner has been returned, is logged.
	logged := make(chan string, 1)
	s.logger = captureLogger(func(msg string) {
		select {
		case logged <- msg:
		default:
		}
	})
	pp := newHeldPolicy()
	pp.panics = true
	run("compat, policy panicking after the winner", pp, func() { close(pp.release) }, func() outcome {
		q := s.Query(specOverloadedStmt).Idempotent(true).RetryPolicy(compatHeldPolicy{pp}).SetSpeculativeExecutionPolicy(spec)
		it := q.Iter()
		err := it.Close()
		return outcome{err, compatAddr(it.Host()), q.Attempts()}
	})
	select {
	case msg := <-logged:
		if !strings.Contains(msg, "held policy panics") {
			t.Errorf("logged %q, want the losing execution's panic", msg)
		}
	case <-time.After(failoverDeadline):
		t.Error("the losing execution's panic was not logged")
	}

	// The backoff, longer than the test's wait, ends with the query's context.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run("compat, ExponentialBackoffRetryPolicy", nil, cancel, func() outcome {
		q := s.Query(specOverloadedStmt).WithContext(ctx).Idempotent(true).SetSpeculativeExecutionPolicy(spec).
			RetryPolicy(&ExponentialBackoffRetryPolicy{NumRetries: 2, Min: 2 * failoverDeadline, Max: 2 * failoverDeadline})
		it := q.Iter()
		err := it.Close()
		return outcome{err, compatAddr(it.Host()), q.Attempts()}
	})
}
