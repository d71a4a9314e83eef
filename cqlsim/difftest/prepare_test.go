package difftest

import (
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
)

// preparedStatements are prepared on both servers; their bind-variable metadata (names, types,
// partition key indexes) and result metadata must match.
var preparedStatements = []string{
	"SELECT * FROM {ks}.p WHERE a = ? AND b = ?",
	"SELECT c, v FROM {ks}.p WHERE b = :bee AND a = :a AND c > ? LIMIT ?",
	"SELECT count(*), max(c) FROM {ks}.p WHERE a = ? AND b = ? PER PARTITION LIMIT ?",
	"SELECT a, token(a, b) FROM {ks}.p WHERE token(a, b) > ? AND token(a, b) <= ?",
	"SELECT * FROM {ks}.p WHERE a IN ? AND b = ? AND c IN (?, ?)",
	"SELECT * FROM {ks}.p WHERE a = ? AND b = ? AND (c, d) > (?, ?)",
	"SELECT * FROM {ks}.p WHERE a = ? AND b = ? AND (c, d) IN ?",
	"SELECT * FROM {ks}.p WHERE l CONTAINS ? AND m CONTAINS KEY ? ALLOW FILTERING",
	"INSERT INTO {ks}.p (a, b, c, d, v, l, m, u) VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?",
	"INSERT INTO {ks}.p (b, a, c, d, l) VALUES (?, ?, ?, ?, [?, ?]) IF NOT EXISTS",
	"INSERT INTO {ks}.p (b, a, c, d, m) VALUES (?, ?, ?, ?, {?: ?})",
	"UPDATE {ks}.p SET v = ?, l = l + ?, l[?] = ?, m[?] = ?, m = m - ?, u.zip = ? WHERE a = ? AND b = ? AND c = ? AND d = ?",
	"UPDATE {ks}.p SET v = ? WHERE a = ? AND b IN ? AND c = ? AND d = ? IF v = ? AND m[?] = ?",
	"UPDATE {ks}.cnt SET n = n + ? WHERE k = ?",
	"DELETE v, m[?] FROM {ks}.p WHERE a = ? AND b = ? AND c = ? AND d = ? IF EXISTS",
	"DELETE FROM {ks}.p WHERE a = ? AND b = ? AND c >= ?",
	"SELECT a, c FROM {ks}.p WHERE a = ? AND b = ? ORDER BY vec ANN OF ? LIMIT ?",
	"SELECT a, similarity_cosine(vec, ?) FROM {ks}.p ORDER BY vec ANN OF ? LIMIT 5",
	"SELECT a FROM {ks}.p ORDER BY vec ANN OF :q LIMIT :n",
	"UPDATE {ks}.p SET v = ? WHERE a = ? AND b = ? AND c = ? AND d = ? IF l CONTAINS ? AND m CONTAINS KEY ? AND m CONTAINS ?",
	"DELETE l[?] FROM {ks}.p WHERE a = ? AND b = ? AND c = ? AND d = ? IF m[?] = ?",
	"SELECT b, a, count(*) FROM {ks}.p WHERE b = ? AND a = ? GROUP BY b, a, c PER PARTITION LIMIT ? LIMIT ?",
	"BEGIN BATCH USING TIMESTAMP ? UPDATE {ks}.p SET v = ? WHERE a = ? AND b = ? AND c = ? AND d = ?; DELETE m[?] FROM {ks}.p WHERE a = ? AND b = ? AND c = ? AND d = ?; APPLY BATCH",
	"SELECT maxwritetime(l), writetime(m['x']), ttl(v) FROM {ks}.p WHERE b = ? AND a = ?",
	"SELECT * FROM system.local WHERE key = ?",
	"SELECT keyspace_name, table_name FROM system_schema.tables WHERE keyspace_name = ?",
}

func prepareAll(t *testing.T, addr, ks string) []string {
	t.Helper()
	// One synchronous request at a time over a plain connection, with the library's codec only
	// (its client has a data race between Close and its writer goroutine).
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatalf("connecting to %s: %v", addr, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	codec := frame.NewCodec()
	roundTrip := func(m message.Message) *frame.Frame {
		t.Helper()
		if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 1, m), conn); err != nil {
			t.Fatalf("sending to %s: %v", addr, err)
		}
		resp, err := codec.DecodeFrame(conn)
		if err != nil {
			t.Fatalf("reading from %s: %v", addr, err)
		}
		return resp
	}
	if _, ok := roundTrip(&message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}}).Body.Message.(*message.Ready); !ok {
		t.Fatalf("%s: STARTUP not answered with READY", addr)
	}
	var out []string
	for _, q := range preparedStatements {
		q = strings.ReplaceAll(q, "{ks}", ks)
		resp := roundTrip(&message.Prepare{Query: q})
		p, ok := resp.Body.Message.(*message.PreparedResult)
		if !ok {
			out = append(out, fmt.Sprintf("%s => %v", q, resp.Body.Message))
			continue
		}
		var vars, cols []string
		for _, c := range p.VariablesMetadata.Columns {
			vars = append(vars, fmt.Sprintf("%s.%s %s %s", c.Keyspace, c.Table, c.Name, c.Type.AsCql()))
		}
		if p.ResultMetadata != nil {
			for _, c := range p.ResultMetadata.Columns {
				cols = append(cols, fmt.Sprintf("%s.%s %s %s", c.Keyspace, c.Table, c.Name, c.Type.AsCql()))
			}
		}
		out = append(out, fmt.Sprintf("%s => vars %v pk %v result %v", strings.ReplaceAll(q, ks, "{ks}"), vars, p.VariablesMetadata.PkIndices, cols))
	}
	return out
}

// TestPrepareMetadata compares PREPARE results (bind variables, partition key indexes, result
// columns) between cqlsim and Cassandra.
func TestPrepareMetadata(t *testing.T) {
	hosts := referenceHosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	schema := []Step{
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TYPE {ks}.addr (street text, zip int)"},
		{Query: "CREATE TABLE {ks}.p (a int, b text, c int, d text, v bigint, l list<int>, m map<text, int>, u addr, vec vector<float, 3>, PRIMARY KEY ((b, a), c, d))"},
		{Query: "CREATE INDEX ON {ks}.p (vec) USING 'sai'"},
		{Query: "CREATE TABLE {ks}.cnt (k int PRIMARY KEY, n counter)"},
	}
	for _, o := range Run(session(t, hosts[0]), ks, schema) {
		if o.Error != "" {
			t.Fatalf("%s on Cassandra: %s", o.Query, o.Error)
		}
	}
	sim := cqlsim.StartT(t, cqlsim.Options{})
	for _, o := range Run(session(t, sim.Addrs()[0]), ks, schema) {
		if o.Error != "" {
			t.Fatalf("%s on cqlsim: %s", o.Query, o.Error)
		}
	}
	want := prepareAll(t, hosts[0], ks)
	got := prepareAll(t, sim.Addrs()[0], ks)
	for i := range want {
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("Cassandra (-) vs cqlsim (+):\n%s", d)
		}
	}
}
