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

// A request retried on its node (RetrySameHost) after a write timeout, whose retry the node
// answers UNPREPARED and whose EXECUTE sent again after the PREPARE never leaves the client
// (its connection fails before writing it), may have run at its first attempt: with no other
// node to try, its *NoHostAvailableError keeps that attempt and must not match ErrNotSent.
func TestRetriedThenUnpreparedNotSentIsNotErrNotSent(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{})
	big := strings.Repeat("v", 8<<10) // an EXECUTE above what a caller writes itself
	d := &cqltest.WriteBreaker{Addr: cl.Addrs()[0], MinLen: len(big)}
	var log attemptLog
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), Dialer: d, ConnsPerHost: 1,
		Timeout: 30 * time.Second, Observer: func(ctx context.Context, a native.Attempt) {
			if a.Reprepare && a.Err == nil {
				d.Armed.Store(true) // the EXECUTE sent again next
			}
			log.observe(ctx, a)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE ns WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ns.t (k int PRIMARY KEY, v text)")
	p := mustPrepare(t, s, "INSERT INTO ns.t (k, v) VALUES (?, ?)")
	for _, f := range []cqlsim.Fault{
		{Match: "INSERT INTO ns.t", Error: &message.WriteTimeout{ErrorMessage: "timed out", WriteType: "SIMPLE"}, Times: 1},
		{Match: "INSERT INTO ns.t", Error: &message.Unprepared{ErrorMessage: "unknown", Id: p.ID()}, Skip: 1, Times: 1},
	} {
		if err := cl.InjectFault(0, f); err != nil {
			t.Fatal(err)
		}
	}
	policy := funcRetry(func(_ context.Context, a *native.Attempt) native.RetryDecision {
		var wt *native.WriteTimeoutError
		if errors.As(a.Err, &wt) {
			return native.RetryDecision{Action: native.RetrySameHost}
		}
		return native.RetryDecision{Action: native.Fail}
	})
	_, err = s.Execute(ctxT(t), p.Bind(1, big).WithRetryPolicy(policy))
	if d.Broken.Load() != 1 {
		t.Fatalf("the EXECUTE sent again was not broken (error %v, attempts %+v)", err, log.all())
	}
	var wt *native.WriteTimeoutError
	if errors.Is(err, native.ErrNotSent) || !errors.As(err, &wt) {
		t.Fatalf("%v; want an error keeping the write timeout and not matching ErrNotSent (attempts %+v)", err, log.all())
	}
}
