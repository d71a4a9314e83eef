package native_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// faultedCluster starts three nodes with the table fk.t and a session with NextHostRetry{3}
// and log as its observer, once every node has a connection open (so that no node of a plan
// is skipped for want of one).
func faultedCluster(t *testing.T, log *attemptLog) (*cqlsim.Cluster, *native.Session) {
	t.Helper()
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: c.Addrs()[:1], RetryPolicy: native.NextHostRetry{MaxRetries: 3},
		Observer: log.observe})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mustExec(t, s, "CREATE KEYSPACE fk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE fk.t (k int PRIMARY KEY, v int)")
	for _, addr := range c.Addrs() {
		pollUntil(t, 10*time.Second, "node "+addr+" never served", func() bool {
			_, err := s.Execute(ctx, native.Query("SELECT release_version FROM system.local").WithHost(addr))
			return err == nil
		})
	}
	log.take()
	return c, s
}

// NextHostRetry on server errors that cqlsim's faults inject, each node failing one statement:
// errors proving nothing was applied (overloaded, bootstrapping, unavailable) are retried on
// every node of the plan, each once; read and write timeouts only when the request is
// idempotent; other errors (a read failure) never. The error of the last attempt is returned
// with its fields, and a retry never goes back to a node already tried.
func TestNextHostRetryOnInjectedServerErrors(t *testing.T) {
	cases := []struct {
		name       string
		err        message.Error
		idempotent bool
		attempts   int
		check      func(error) bool
	}{
		{"overloaded", &message.Overloaded{ErrorMessage: "overloaded"}, false, 3,
			func(err error) bool { var e *native.OverloadedError; return errors.As(err, &e) }},
		{"bootstrapping", &message.IsBootstrapping{ErrorMessage: "bootstrapping"}, false, 3,
			func(err error) bool { var e *native.IsBootstrappingError; return errors.As(err, &e) }},
		{"unavailable", &message.Unavailable{ErrorMessage: "unavailable", Consistency: primitive.ConsistencyLevelQuorum, Required: 2, Alive: 1}, false, 3,
			func(err error) bool {
				var e *native.UnavailableError
				return errors.As(err, &e) && e.Required == 2 && e.Alive == 1 && e.Consistency == native.Quorum
			}},
		{"write timeout, not idempotent", writeTimeoutMsg(), false, 1, isWriteTimeout},
		{"write timeout, idempotent", writeTimeoutMsg(), true, 3, isWriteTimeout},
		{"read timeout, idempotent", &message.ReadTimeout{ErrorMessage: "rt", Consistency: primitive.ConsistencyLevelOne, Received: 0, BlockFor: 1}, true, 3,
			func(err error) bool {
				var e *native.ReadTimeoutError
				return errors.As(err, &e) && e.BlockFor == 1 && e.Consistency == native.One
			}},
		{"read failure, idempotent", &message.ReadFailure{ErrorMessage: "rf", Consistency: primitive.ConsistencyLevelOne, BlockFor: 1, NumFailures: 1}, true, 1,
			func(err error) bool {
				var e *native.ReadFailureError
				return errors.As(err, &e) && e.NumFailures == 1 && e.BlockFor == 1
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := &attemptLog{}
			c, s := faultedCluster(t, log)
			for i := range c.Addrs() {
				if err := c.InjectFault(i, cqlsim.Fault{Match: "fk.t", Times: 1, Error: tc.err}); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			ins := native.Query("INSERT INTO fk.t (k, v) VALUES (1, 1)").WithIdempotent(tc.idempotent)
			_, err := s.Execute(ctx, ins)
			if !tc.check(err) {
				t.Errorf("got %v (%T), not the injected error", err, err)
			}
			attempts := log.take()
			var hosts []string
			for i, a := range attempts {
				if a.Number != i || a.Err == nil {
					t.Errorf("attempt %d: number %d, error %v", i, a.Number, a.Err)
				}
				if slices.Contains(hosts, a.Host) {
					t.Errorf("attempt %d went back to %s, tried already", i, a.Host)
				}
				hosts = append(hosts, a.Host)
			}
			if len(attempts) != tc.attempts {
				t.Errorf("%d attempts, want %d", len(attempts), tc.attempts)
			}
			// The nodes not tried still hold their fault; the others serve.
			for range 3 - len(attempts) {
				if _, err := s.Execute(ctx, ins); !tc.check(err) {
					t.Errorf("a node not tried had no fault left: %v", err)
				}
			}
			log.take()
			if _, err := s.Execute(ctx, ins); err != nil {
				t.Errorf("with every fault spent: %v", err)
			}
		})
	}
}

func writeTimeoutMsg() *message.WriteTimeout {
	return &message.WriteTimeout{ErrorMessage: "wt", Consistency: primitive.ConsistencyLevelQuorum, Received: 1, BlockFor: 2,
		WriteType: primitive.WriteTypeSimple}
}

func isWriteTimeout(err error) bool {
	var e *native.WriteTimeoutError
	return errors.As(err, &e) && e.WriteType == "SIMPLE" && e.Received == 1 && e.BlockFor == 2
}
