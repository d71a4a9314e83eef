package native_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// A request whose first attempt was sent (and answered with a write timeout: it may have been
// applied), retried on a node that does not know the statement and whose connection fails
// before writing the PREPARE sent again there, did not run on that node, but may have run on
// the first: its error must not match ErrNotSent, which would let a caller send a
// non-idempotent write again.
func TestRetryNotPreparedAgainAfterASentAttemptIsNotErrNotSent(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	big := strings.Repeat("v", 8<<10) // a PREPARE above what a caller writes itself
	cql := "INSERT INTO ns.t (k, v) VALUES (?, '" + big + "')"
	first, second := cl.Addrs()[0], cl.Addrs()[1]
	d := &cqltest.WriteBreaker{Addr: second, MinLen: len(big)}
	var log attemptLog
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Dialer: d, ConnsPerHost: 1,
		Routing: native.RoundRobin, PrepareOnOneNode: true, Timeout: 30 * time.Second, Observer: log.observe})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 2)
	mustExec(t, s, "CREATE KEYSPACE ns WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ns.t (k int PRIMARY KEY, v text)")
	// Prepared on the first node only: the second is down meanwhile.
	if err := cl.StopNode(1); err != nil {
		t.Fatal(err)
	}
	waitHostsUp(t, s, 1)
	p, err := s.Prepare(ctxT(t), cql)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.StartNode(1); err != nil {
		t.Fatal(err)
	}
	waitHostsUp(t, s, 2)
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "INSERT INTO ns.t", Error: &message.WriteTimeout{ErrorMessage: "timed out", WriteType: "SIMPLE"}}); err != nil {
		t.Fatal(err)
	}
	policy := funcRetry(func(_ context.Context, a *native.Attempt) native.RetryDecision {
		var wt *native.WriteTimeoutError
		if errors.As(a.Err, &wt) {
			return native.RetryDecision{Action: native.RetryNextHost}
		}
		return native.RetryDecision{Action: native.Fail}
	})
	deadline := time.Now().Add(20 * time.Second)
	for k := 0; ; k++ {
		if time.Now().After(deadline) {
			t.Fatal("no request was sent to the first node, then to the second with its PREPARE cut, in 20s")
		}
		d.Armed.Store(true)
		log = attemptLog{}
		_, err := s.Execute(ctxT(t), p.Bind(int32(k)).WithRetryPolicy(policy))
		got := log.all()
		var hosts []string
		for _, a := range got {
			if !a.Reprepare {
				hosts = append(hosts, a.Host)
			}
		}
		if len(hosts) != 2 || hosts[0] != first || hosts[1] != second || d.Armed.Load() {
			continue // the plan started on the second node, or its connection was down
		}
		var wt *native.WriteTimeoutError
		if errors.Is(err, native.ErrNotSent) || !errors.As(err, &wt) && !errors.Is(err, native.ErrConnClosed) {
			t.Fatalf("key %d: %v; want an error not matching ErrNotSent (attempts %+v)", k, err, got)
		}
		return
	}
}
