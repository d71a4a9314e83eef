package gocql_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	gocqlv1 "github.com/gocql/gocql"

	gocql "github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// Errors that one real node cannot be made to return (replica timeouts and failures, an
// overloaded or bootstrapping coordinator, a write refused by CDC, a CAS of unknown outcome),
// served by cqlsim's faults, so
// that compat's decoding of every server error, and the retry decisions taken on it, can be
// compared with gocql v1.7.0's.

// faultTable is the table the fault tests write and read.
const faultTable = "fk.t"

// serverErrors are the errors injected, one test case each.
var serverErrors = []struct {
	name string
	err  message.Error
}{
	{"unavailable", &message.Unavailable{ErrorMessage: "Cannot achieve consistency level QUORUM",
		Consistency: primitive.ConsistencyLevelQuorum, Required: 2, Alive: 1}},
	{"unavailable none alive", &message.Unavailable{ErrorMessage: "Cannot achieve consistency level ALL",
		Consistency: primitive.ConsistencyLevelAll, Required: 3, Alive: 0}},
	{"read timeout", &message.ReadTimeout{ErrorMessage: "Operation timed out - received only 1 responses.",
		Consistency: primitive.ConsistencyLevelQuorum, Received: 1, BlockFor: 2}},
	{"read timeout data present", &message.ReadTimeout{ErrorMessage: "Operation timed out - received only 2 responses.",
		Consistency: primitive.ConsistencyLevelQuorum, Received: 2, BlockFor: 2, DataPresent: true}},
	{"write timeout simple", writeTimeout(primitive.WriteTypeSimple, 0)},
	{"write timeout simple received", writeTimeout(primitive.WriteTypeSimple, 1)},
	{"write timeout batch", writeTimeout(primitive.WriteTypeBatch, 1)},
	{"write timeout unlogged batch", writeTimeout(primitive.WriteTypeUnloggedBatch, 0)},
	{"write timeout counter", writeTimeout(primitive.WriteTypeCounter, 1)},
	{"write timeout batch log", writeTimeout(primitive.WriteTypeBatchLog, 0)},
	{"write timeout cas", writeTimeout(primitive.WriteTypeCas, 0)},
	{"write timeout view", writeTimeout(primitive.WriteTypeView, 1)},
	{"write timeout cdc", writeTimeout(primitive.WriteTypeCdc, 0)},
	{"read failure", &message.ReadFailure{ErrorMessage: "Operation failed - received 0 responses and 1 failures",
		Consistency: primitive.ConsistencyLevelOne, Received: 0, BlockFor: 1, NumFailures: 1, DataPresent: false}},
	{"write failure", &message.WriteFailure{ErrorMessage: "Operation failed - received 1 responses and 1 failures",
		Consistency: primitive.ConsistencyLevelQuorum, Received: 1, BlockFor: 2, NumFailures: 1, WriteType: primitive.WriteTypeSimple}},
	{"function failure", &message.FunctionFailure{ErrorMessage: "execution of 'fk.f[int]' failed",
		Keyspace: "fk", Function: "f", Arguments: []string{"int"}}},
	{"overloaded", &message.Overloaded{ErrorMessage: "Server is in overloaded state"}},
	{"bootstrapping", &message.IsBootstrapping{ErrorMessage: "Cannot read from a bootstrapping node"}},
	{"truncate", &message.TruncateError{ErrorMessage: "Truncate failed"}},
	{"server error", &message.ServerError{ErrorMessage: "java.lang.RuntimeException: boom"}},
	{"unauthorized", &message.Unauthorized{ErrorMessage: "User x has no MODIFY permission"}},
	{"invalid", &message.Invalid{ErrorMessage: "Invalid request"}},
	{"config error", &message.ConfigError{ErrorMessage: "Bad configuration"}},
	{"already exists", &message.AlreadyExists{ErrorMessage: "Table fk.t already exists", Keyspace: "fk", Table: "t"}},
	{"cdc write failure", &cqlsim.CDCWriteFailure{ErrorMessage: "Rejecting mutation to table fk.t: CDC space is exhausted"}},
	{"cas write unknown", &cqlsim.CASWriteUnknown{ErrorMessage: "CAS operation result is unknown - proposal accepted by 1 but not a quorum.",
		Consistency: primitive.ConsistencyLevelSerial, Received: 1, BlockFor: 2}},
	{"cas write unknown local serial", &cqlsim.CASWriteUnknown{ErrorMessage: "CAS operation result is unknown - proposal accepted by 0 but not a quorum.",
		Consistency: primitive.ConsistencyLevelLocalSerial, Received: 0, BlockFor: 3}},
}

func writeTimeout(wt primitive.WriteType, received int32) *message.WriteTimeout {
	return &message.WriteTimeout{ErrorMessage: "Operation timed out - received only some acknowledgements",
		Consistency: primitive.ConsistencyLevelLocalQuorum, Received: received, BlockFor: 2, WriteType: wt}
}

// faultCluster starts a cluster of n nodes with the table faultTable; each driver gets its
// own, so that the faults one driver spends do not change what the other meets.
func faultCluster(t *testing.T, n int) *cqlsim.Cluster {
	t.Helper()
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: n})
	cqltest.Exec(t, sim.Addrs()[0], "CREATE KEYSPACE fk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cqltest.Exec(t, sim.Addrs()[0], "CREATE TABLE "+faultTable+" (k int PRIMARY KEY, v int)")
	return sim
}

// injectAll injects f into every node of sim.
func injectAll(t *testing.T, sim *cqlsim.Cluster, f cqlsim.Fault) {
	t.Helper()
	for i := range sim.Addrs() {
		if err := sim.InjectFault(i, f); err != nil {
			t.Fatal(err)
		}
	}
}

// legacyFaulted starts a faultCluster of n nodes, opens a gocql v1.7.0 session on it (closed
// at cleanup) and then injects f into every node.
func legacyFaulted(t *testing.T, n int, f cqlsim.Fault) (*cqlsim.Cluster, *gocqlv1.Session) {
	t.Helper()
	sim := faultCluster(t, n)
	s := legacySession(t, sim.Addrs()[:1], "", nil)
	t.Cleanup(s.Close)
	injectAll(t, sim, f)
	return sim, s
}

// compatFaulted is legacyFaulted for compat.
func compatFaulted(t *testing.T, n int, f cqlsim.Fault) (*cqlsim.Cluster, *gocql.Session) {
	t.Helper()
	sim := faultCluster(t, n)
	cc := gocql.NewCluster(sim.Addrs()[0])
	cc.ProtoVersion = 4
	cc.Timeout = 30 * time.Second // as legacySession's
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	injectAll(t, sim, f)
	return sim, s
}

const (
	faultInsert = "INSERT INTO " + faultTable + " (k, v) VALUES (?, ?)"
	faultSelect = "SELECT v FROM " + faultTable + " WHERE k = ?"
	faultCAS    = "INSERT INTO " + faultTable + " (k, v) VALUES (?, ?) IF NOT EXISTS"
)

// TestServerErrorsLikeGocql: on a node answering every statement on the table with a server
// error, compat returns the error gocql v1.7.0 returns (type, message, code, fields) from Exec,
// Iter, a batch and a CAS, and its retry policies (none, downgrading consistency, simple)
// decide the same attempts with the same consistency levels; once the fault is cleared, both
// write and read again.
func TestServerErrorsLikeGocql(t *testing.T) {
	for _, se := range serverErrors {
		t.Run(se.name, func(t *testing.T) {
			fault := cqlsim.Fault{Match: faultTable, Error: se.err}
			var lt, ct trace
			{
				sim, s := legacyFaulted(t, 1, fault)
				tr, obs := &lt, legacyRecObserver{&lt}
				q := s.Query(faultInsert, 1, 1).Observer(obs)
				err := q.Exec()
				// The comparison is worth something only if gocql met the injected error.
				if re, ok := err.(gocqlv1.RequestError); !ok || re.Code() != int(se.err.GetErrorCode()) || re.Message() != se.err.GetErrorMessage() {
					t.Errorf("gocql v1.7.0 got %v (%T), not the injected error", err, err)
				}
				tr.add("exec", err, q.Attempts())
				it := s.Query(faultSelect, 1).Observer(obs).Iter()
				tr.add("iter", it.NumRows(), it.Host() == nil)
				tr.add("iter close", it.Close())
				b := s.NewBatch(gocqlv1.LoggedBatch).Observer(obs)
				b.Query(faultInsert, 2, 2)
				tr.add("batch", s.ExecuteBatch(b), b.Attempts())
				applied, err := s.Query(faultCAS, 3, 3).Observer(obs).MapScanCAS(map[string]interface{}{})
				tr.add("cas", applied, err)
				q = s.Query(faultInsert, 1, 1).Consistency(gocqlv1.All).Observer(obs).
					RetryPolicy(&gocqlv1.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocqlv1.Consistency{gocqlv1.Quorum, gocqlv1.One}})
				tr.add("downgrading", q.Exec(), q.Attempts(), q.GetConsistency())
				q = s.Query(faultInsert, 1, 1).Observer(obs).RetryPolicy(&gocqlv1.SimpleRetryPolicy{NumRetries: 2})
				tr.add("simple", q.Exec(), q.Attempts())
				if err := sim.ClearFaults(0); err != nil {
					t.Fatal(err)
				}
				tr.add("cleared exec", s.Query(faultInsert, 1, 1).Exec())
				var v int
				tr.add("cleared scan", s.Query(faultSelect, 1).Scan(&v), v)
			}
			{
				sim, s := compatFaulted(t, 1, fault)
				tr, obs := &ct, compatRecObserver{&ct}
				q := s.Query(faultInsert, 1, 1).Observer(obs)
				tr.add("exec", q.Exec(), q.Attempts())
				it := s.Query(faultSelect, 1).Observer(obs).Iter()
				tr.add("iter", it.NumRows(), it.Host() == nil)
				tr.add("iter close", it.Close())
				b := s.NewBatch(gocql.LoggedBatch).Observer(obs)
				b.Query(faultInsert, 2, 2)
				tr.add("batch", s.ExecuteBatch(b), b.Attempts())
				applied, err := s.Query(faultCAS, 3, 3).Observer(obs).MapScanCAS(map[string]interface{}{})
				tr.add("cas", applied, err)
				q = s.Query(faultInsert, 1, 1).Consistency(gocql.All).Observer(obs).
					RetryPolicy(&gocql.DowngradingConsistencyRetryPolicy{ConsistencyLevelsToTry: []gocql.Consistency{gocql.Quorum, gocql.One}})
				tr.add("downgrading", q.Exec(), q.Attempts(), q.GetConsistency())
				q = s.Query(faultInsert, 1, 1).Observer(obs).RetryPolicy(&gocql.SimpleRetryPolicy{NumRetries: 2})
				tr.add("simple", q.Exec(), q.Attempts())
				if err := sim.ClearFaults(0); err != nil {
					t.Fatal(err)
				}
				tr.add("cleared exec", s.Query(faultInsert, 1, 1).Exec())
				var v int
				tr.add("cleared scan", s.Query(faultSelect, 1).Scan(&v), v)
			}
			sameTrace(t, &lt, &ct)
			if len(lt.steps) < 15 {
				t.Fatalf("the trace has %d steps: the scenario did not run through", len(lt.steps))
			}
		})
	}
}

// TestServerErrorRetriedOnEveryNodeLikeGocql: three nodes, each answering its next statement
// on the table with OVERLOADED. With SimpleRetryPolicy{NumRetries: 3} a query is attempted on
// each node once and fails when the plan runs out; the next query is served at once. Both
// drivers alike.
func TestServerErrorRetriedOnEveryNodeLikeGocql(t *testing.T) {
	fault := cqlsim.Fault{Match: faultTable, Times: 1, Error: &message.Overloaded{ErrorMessage: "Server is in overloaded state"}}
	var lt, ct trace
	{
		_, s := legacyFaulted(t, 3, fault)
		q := s.Query(faultInsert, 1, 1).Observer(legacyRecObserver{&lt}).RetryPolicy(&gocqlv1.SimpleRetryPolicy{NumRetries: 3})
		it := q.Iter()
		lt.add("first", it.Close(), q.Attempts(), it.Host() == nil)
		lt.add("second", q.Exec(), q.Attempts())
	}
	{
		_, s := compatFaulted(t, 3, fault)
		q := s.Query(faultInsert, 1, 1).Observer(compatRecObserver{&ct}).RetryPolicy(&gocql.SimpleRetryPolicy{NumRetries: 3})
		it := q.Iter()
		ct.add("first", it.Close(), q.Attempts(), it.Host() == nil)
		ct.add("second", q.Exec(), q.Attempts())
	}
	sameTrace(t, &lt, &ct)
}

// TestUnsolicitedErrorUnlikeGocql pins G43: a node that answers a statement with an ERROR on
// stream -1 (outside any request) instead of on the statement's stream. gocql v1.7.0 takes
// the frame for an event, drops it ("invalid event frame"), and the statement waits for its
// timeout (here the context's second); compat closes the connection at once, so the statement
// fails without waiting with gocql's error for a request whose connection closed
// (ErrConnectionClosed), and the session keeps serving on a new connection.
func TestUnsolicitedErrorUnlikeGocql(t *testing.T) {
	fault := cqlsim.Fault{Match: faultTable, Times: 1, Unsolicited: true,
		Error: &message.ServerError{ErrorMessage: "the node reports a failure of the connection"}}
	{
		_, s := legacyFaulted(t, 1, fault)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		err := s.Query(faultInsert, 1, 1).WithContext(ctx).Exec()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) < 900*time.Millisecond {
			t.Errorf("gocql: err = %v after %v, want the context's deadline after its second", err, time.Since(start))
		}
		if err := s.Query(faultInsert, 2, 2).Exec(); err != nil {
			t.Errorf("gocql: next statement: %v", err)
		}
	}
	{
		_, s := compatFaulted(t, 1, fault)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		err := s.Query(faultInsert, 1, 1).WithContext(ctx).Exec()
		if !errors.Is(err, gocql.ErrConnectionClosed) || time.Since(start) > 5*time.Second {
			t.Errorf("compat: err = %v after %v, want ErrConnectionClosed (gocql's error for a request whose connection closed) at once", err, time.Since(start))
		}
		if err := s.Query(faultInsert, 2, 2).Exec(); err != nil {
			t.Errorf("compat: next statement: %v", err)
		}
	}
}
