package native_test

import (
	"context"
	"errors"
	"reflect"
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
// errors proving nothing was applied (bootstrapping, unavailable) are retried on every node of
// the plan, each once; read and write timeouts and OVERLOADED (a coordinator may answer it
// after sending the write to some replicas) only when the request is idempotent; other errors
// (a read failure) never. The error of the last attempt is returned
// with its fields, and a retry never goes back to a node already tried.
func TestNextHostRetryOnInjectedServerErrors(t *testing.T) {
	cases := []struct {
		name       string
		err        message.Error
		idempotent bool
		attempts   int
		check      func(error) bool
	}{
		{"overloaded, not idempotent", &message.Overloaded{ErrorMessage: "overloaded"}, false, 1, isOverloaded},
		{"overloaded, idempotent", &message.Overloaded{ErrorMessage: "overloaded"}, true, 3, isOverloaded},
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
		{"CAS write unknown, idempotent", casWriteUnknownMsg(), true, 1, isCASWriteUnknown},
		{"CDC write failure, idempotent", cdcWriteFailureMsg(), true, 1, isCDCWriteFailure},
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

func isOverloaded(err error) bool {
	var e *native.OverloadedError
	return errors.As(err, &e) && e.Message == "overloaded"
}

func writeTimeoutMsg() *message.WriteTimeout {
	return &message.WriteTimeout{ErrorMessage: "wt", Consistency: primitive.ConsistencyLevelQuorum, Received: 1, BlockFor: 2,
		WriteType: primitive.WriteTypeSimple}
}

func isWriteTimeout(err error) bool {
	var e *native.WriteTimeoutError
	return errors.As(err, &e) && e.WriteType == "SIMPLE" && e.Received == 1 && e.BlockFor == 2
}

func casWriteUnknownMsg() *cqlsim.CASWriteUnknown {
	return &cqlsim.CASWriteUnknown{ErrorMessage: "CAS operation result is unknown - proposal accepted by 1 but not a quorum.",
		Consistency: primitive.ConsistencyLevelSerial, Received: 1, BlockFor: 2}
}

func isCASWriteUnknown(err error) bool {
	var e *native.CASWriteUnknownError
	return errors.As(err, &e) && e.Consistency == native.Serial && e.Received == 1 && e.BlockFor == 2
}

func cdcWriteFailureMsg() *cqlsim.CDCWriteFailure {
	return &cqlsim.CDCWriteFailure{ErrorMessage: "Rejecting mutation to table fk.t: CDC space is exhausted"}
}

func isCDCWriteFailure(err error) bool {
	var e *native.CDCWriteFailureError
	return errors.As(err, &e) && e.Message == cdcWriteFailureMsg().ErrorMessage
}

// CDC_WRITE_FAILURE and CAS_WRITE_UNKNOWN, injected by cqlsim, reach the caller as
// *CDCWriteFailureError and *CASWriteUnknownError with every field the server sent, unwrap to
// the *RequestError with the code, message and host like every server error, and are not taken
// for a client-side error.
func TestInjectedCDCAndCASErrors(t *testing.T) {
	cas, cdc := casWriteUnknownMsg(), cdcWriteFailureMsg()
	cases := []struct {
		name string
		err  message.Error
		code native.ErrorCode
		want func(t *testing.T, err error, host string)
	}{
		{"CAS write unknown", cas, native.CodeCASWriteUnknown, func(t *testing.T, err error, host string) {
			var e *native.CASWriteUnknownError
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want a *native.CASWriteUnknownError", err, err)
			}
			want := native.CASWriteUnknownError{RequestError: native.RequestError{Code: native.CodeCASWriteUnknown, Message: cas.ErrorMessage, Host: host},
				Consistency: native.Serial, Received: 1, BlockFor: 2}
			if !reflect.DeepEqual(*e, want) {
				t.Errorf("got %+v, want %+v", *e, want)
			}
			if got, want := e.Error(), "cas write unknown: "+cas.ErrorMessage+" (host "+host+") (consistency SERIAL, received 1 of 2)"; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		}},
		{"CDC write failure", cdc, native.CodeCDCWriteFailure, func(t *testing.T, err error, host string) {
			var e *native.CDCWriteFailureError
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want a *native.CDCWriteFailureError", err, err)
			}
			want := native.CDCWriteFailureError{RequestError: native.RequestError{Code: native.CodeCDCWriteFailure, Message: cdc.ErrorMessage, Host: host}}
			if !reflect.DeepEqual(*e, want) {
				t.Errorf("got %+v, want %+v", *e, want)
			}
			if got, want := e.Error(), "cdc write failure: "+cdc.ErrorMessage+" (host "+host+")"; got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, s := faultedCluster(t, &attemptLog{})
			ctx := context.Background()
			ins, err := s.Prepare(ctx, "INSERT INTO fk.t (k, v) VALUES (?, ?) IF NOT EXISTS")
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.Addrs() {
				if err := c.InjectFault(i, cqlsim.Fault{Match: "fk.t", Error: tc.err}); err != nil {
					t.Fatal(err)
				}
			}
			for _, step := range []struct {
				name string
				run  func() error
			}{
				{"query", func() error {
					_, err := s.Execute(ctx, native.Query("INSERT INTO fk.t (k, v) VALUES (1, 1) IF NOT EXISTS"))
					return err
				}},
				{"prepared", func() error { _, err := s.Execute(ctx, ins.Bind(2, 2)); return err }},
				{"batch", func() error {
					_, err := s.ExecuteBatch(ctx, native.NewBatch(native.LoggedBatch, native.Query("UPDATE fk.t SET v = 3 WHERE k = 3")))
					return err
				}},
			} {
				t.Run(step.name, func(t *testing.T) {
					err := step.run()
					var re *native.RequestError
					if !errors.As(err, &re) || re.Code != tc.code || !slices.Contains(c.Addrs(), re.Host) || re.Message != tc.err.GetErrorMessage() {
						t.Fatalf("errors.As(*RequestError): %+v", re)
					}
					tc.want(t, err, re.Host)
					for _, client := range []error{native.ErrTimeout, native.ErrConnClosed, native.ErrSessionClosed} {
						if errors.Is(err, client) {
							t.Errorf("errors.Is(err, %v) is true", client)
						}
					}
				})
			}
			for i := range c.Addrs() {
				if err := c.ClearFaults(i); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Execute(ctx, ins.Bind(2, 2)); err != nil {
				t.Errorf("after ClearFaults: %v", err)
			}
		})
	}
}
