package difftest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// namedStep is a simple statement sent with named values (a QUERY message with the names
// flag), which gocql never sends: it prepares every statement that has values.
type namedStep struct {
	query  string
	values []any
}

// runNamed runs the steps on host with cqlbridge's native client and describes each outcome:
// the rows (as Go values) or the error code and message.
func runNamed(t *testing.T, host, keyspace string, steps []namedStep) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := native.Connect(ctx, native.Config{Hosts: []string{host}, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("connecting to %s: %v", host, err)
	}
	defer s.Close()
	out := make([]string, len(steps))
	for i, st := range steps {
		res, err := s.Execute(ctx, native.Query(strings.ReplaceAll(st.query, "{ks}", keyspace), st.values...))
		if err != nil {
			var re *native.RequestError
			if !errors.As(err, &re) {
				t.Fatalf("step %d (%s) on %s: %v", i, st.query, host, err)
			}
			out[i] = fmt.Sprintf("error %#x: %s", int(re.Code), strings.ReplaceAll(re.Message, keyspace, "{ks}"))
			continue
		}
		var rows []string
		for _, row := range res.Rows() {
			vs, err := row.Values()
			if err != nil {
				t.Fatalf("step %d (%s) on %s: reading a row: %v", i, st.query, host, err)
			}
			rows = append(rows, fmt.Sprint(vs...))
		}
		out[i] = fmt.Sprintf("rows %q", rows)
	}
	return out
}

// TestNamedValues compares simple statements with named values, including names that match
// no bind marker (a name differing only in case, names for positional markers), between
// cqlsim and a real Cassandra node.
func TestNamedValues(t *testing.T) {
	hosts := referenceHosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	n := native.Named
	steps := []namedStep{
		{query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{query: `CREATE TABLE {ks}.kv (k int PRIMARY KEY, v text, "Q" int)`},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:k, :v)", values: []any{n("v", "a"), n("k", int32(1))}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:k, :v)", values: []any{n("K", int32(2)), n("v", "b")}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:k, :v)", values: []any{n("k", int32(2)), n("V", "b")}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:k, :v)", values: []any{n("k", int32(2))}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:k, :v)", values: []any{n("k", int32(2)), n("x", "b")}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:k, :v)", values: []any{n("k", int32(3)), n("v", "c"), n("x", "extra")}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (?, ?)", values: []any{n("k", int32(4)), n("v", "d")}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (?, ?)", values: []any{n("K", int32(5)), n("V", "e")}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (?, ?)", values: []any{n("a", int32(5)), n("b", "e")}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:K, :v)", values: []any{n("k", int32(6)), n("v", "f")}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:K, :v)", values: []any{n("K", int32(7)), n("v", "g")}},
		{query: `INSERT INTO {ks}.kv (k, v) VALUES (:"K", :v)`, values: []any{n("K", int32(8)), n("v", "h")}},
		{query: `INSERT INTO {ks}.kv (k, v) VALUES (:"K", :v)`, values: []any{n("k", int32(9)), n("v", "i")}},
		{query: `INSERT INTO {ks}.kv (k, "Q") VALUES (10, ?)`, values: []any{n("Q", int32(10))}},
		{query: `INSERT INTO {ks}.kv (k, "Q") VALUES (11, ?)`, values: []any{n("q", int32(11))}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k = :k", values: []any{n("K", int32(1))}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k = ?", values: []any{n("K", int32(1))}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k = :k", values: []any{n("k", int32(1)), n("k", int32(3))}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k = :k AND k = :k", values: []any{n("K", int32(1))}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k IN (:a, :b)", values: []any{n("a", int32(1)), n("B", int32(3))}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k IN :ks", values: []any{n("KS", []int32{1})}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k = 1", values: []any{n("x", int32(1))}},
		{query: "UPDATE {ks}.kv USING TTL ? SET v = ? WHERE k = ?", values: []any{n("TTL", int32(100)), n("v", "j"), n("k", int32(1))}},
		{query: "UPDATE {ks}.kv USING TTL ? SET v = ? WHERE k = ?", values: []any{n("[ttl]", int32(100)), n("v", "j"), n("k", int32(1))}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k = 1 LIMIT ?", values: []any{n("LIMIT", int32(1))}},
		{query: "SELECT k, v FROM {ks}.kv WHERE k = 1 LIMIT ?", values: []any{n("[limit]", int32(1))}},
		{query: "INSERT INTO {ks}.kv (k, v) VALUES (:k, :v) IF NOT EXISTS", values: []any{n("K", int32(12)), n("v", "l")}},
		{query: "INSERT INTO {ks}.kv JSON :j", values: []any{n("J", `{"k": 13}`)}},
		{query: "SELECT k FROM {ks}.kv WHERE token(k) > ?", values: []any{n("X", int64(0))}},
		{query: "SELECT k FROM {ks}.kv WHERE token(k) > ?", values: []any{n("partition key token", int64(0))}},
		{query: "SELECT k, v FROM {ks}.kv"},
	}
	want := runNamed(t, hosts[0], ks, steps)
	sim := cqlsim.StartT(t, cqlsim.Options{})
	got := runNamed(t, sim.Addrs()[0], ks, steps)
	for i := range steps {
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("step %d (%s %v): Cassandra (-) vs cqlsim (+):\n%s", i, steps[i].query, steps[i].values, d)
		}
	}
}

// bindCountRequests are QUERY, EXECUTE and BATCH messages whose values do not bind every
// bind marker (or bind more than there are), positionally or by name; pos and named are the
// ids of "INSERT INTO {ks}.kv (k, v) VALUES (?, ?)" and "... VALUES (:k, :v)" prepared.
func bindCountRequests(ks string, pos, named []byte) []message.Message {
	one := primitive.ConsistencyLevelOne
	k, v := primitive.NewValue([]byte{0, 0, 0, 1}), primitive.NewValue([]byte("a"))
	insPos := "INSERT INTO " + ks + ".kv (k, v) VALUES (?, ?)"
	insNamed := "INSERT INTO " + ks + ".kv (k, v) VALUES (:k, :v)"
	values := func(vs ...*primitive.Value) *message.QueryOptions {
		return &message.QueryOptions{Consistency: one, PositionalValues: vs}
	}
	names := func(cl primitive.ConsistencyLevel, kv ...any) *message.QueryOptions {
		m := map[string]*primitive.Value{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(*primitive.Value)
		}
		return &message.QueryOptions{Consistency: cl, NamedValues: m}
	}
	batch := func(children ...*message.BatchChild) *message.Batch {
		return &message.Batch{Type: primitive.BatchTypeLogged, Children: children, Consistency: one}
	}
	return []message.Message{
		&message.Query{Query: insPos, Options: values(k)},
		&message.Query{Query: insPos, Options: values(k, v, v)},
		&message.Query{Query: insPos, Options: values()},
		&message.Query{Query: "INSERT INTO " + ks + ".kv (k, v) VALUES (1, 'a')", Options: values(k)},
		&message.Query{Query: insNamed, Options: names(one, "K", k, "v", v)},
		&message.Query{Query: insNamed, Options: names(primitive.ConsistencyLevelSerial, "K", k, "v", v)},
		&message.Query{Query: insNamed, Options: names(one, "k", k, "v", v, "x", v)},
		&message.Query{Query: insPos, Options: names(one, "K", k, "V", v)},
		&message.Execute{QueryId: pos, Options: values(k)},
		&message.Execute{QueryId: pos, Options: values(k, v, v)},
		&message.Execute{QueryId: pos, Options: values()},
		&message.Execute{QueryId: pos, Options: names(one, "K", k, "V", v)},
		&message.Execute{QueryId: pos, Options: names(one, "k", k, "v", v)},
		&message.Execute{QueryId: named, Options: names(one, "K", k, "v", v)},
		&message.Execute{QueryId: named, Options: names(primitive.ConsistencyLevelSerial, "K", k, "v", v)},
		&message.Execute{QueryId: named, Options: names(one, "k", k, "v", v, "x", v)},
		batch(&message.BatchChild{Query: insPos, Values: []*primitive.Value{k}}),
		batch(&message.BatchChild{Query: insPos, Values: []*primitive.Value{k, v, v}}),
		batch(&message.BatchChild{Id: pos, Values: []*primitive.Value{k}}),
		batch(&message.BatchChild{Id: pos}),
	}
}

// sendBindCounts prepares the two statements of bindCountRequests on addr, sends the requests
// and describes each answer: its error code and message, or its kind.
func sendBindCounts(t *testing.T, addr, ks string) []string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatalf("connecting to %s: %v", addr, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	codec := frame.NewCodec()
	roundTrip := func(m message.Message) message.Message {
		t.Helper()
		if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 1, m), conn); err != nil {
			t.Fatalf("sending to %s: %v", addr, err)
		}
		resp, err := codec.DecodeFrame(conn)
		if err != nil {
			t.Fatalf("reading from %s: %v", addr, err)
		}
		return resp.Body.Message
	}
	if _, ok := roundTrip(&message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}).(*message.Ready); !ok {
		t.Fatalf("%s: STARTUP not answered with READY", addr)
	}
	var ids [][]byte
	for _, q := range []string{"INSERT INTO " + ks + ".kv (k, v) VALUES (?, ?)", "INSERT INTO " + ks + ".kv (k, v) VALUES (:k, :v)"} {
		p, ok := roundTrip(&message.Prepare{Query: q}).(*message.PreparedResult)
		if !ok {
			t.Fatalf("%s: preparing %s failed", addr, q)
		}
		ids = append(ids, p.PreparedQueryId)
	}
	var out []string
	for _, m := range bindCountRequests(ks, ids[0], ids[1]) {
		switch r := roundTrip(m).(type) {
		case message.Error:
			out = append(out, fmt.Sprintf("%v: error %#x: %s", m.GetOpCode(), uint32(r.GetErrorCode()), r.GetErrorMessage()))
		default:
			out = append(out, fmt.Sprintf("%v: %T", m.GetOpCode(), r))
		}
	}
	return out
}

// TestBindCounts compares the errors for values that do not bind every bind marker, in
// QUERY, EXECUTE and BATCH messages, between cqlsim and a real Cassandra node.
func TestBindCounts(t *testing.T) {
	hosts := referenceHosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	schema := []Step{
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TABLE {ks}.kv (k int PRIMARY KEY, v text)"},
	}
	sim := cqlsim.StartT(t, cqlsim.Options{})
	var results [2][]string
	for i, host := range []string{hosts[0], sim.Addrs()[0]} {
		for _, o := range Run(session(t, host), ks, schema) {
			if o.Error != "" {
				t.Fatalf("%s on %s: %s", o.Query, host, o.Error)
			}
		}
		results[i] = sendBindCounts(t, host, ks)
	}
	for i := range results[0] {
		if d := cmp.Diff(results[0][i], results[1][i]); d != "" {
			t.Errorf("request %d: Cassandra (-) vs cqlsim (+):\n%s", i, d)
		}
	}
}
