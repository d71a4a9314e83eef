package difftest

import (
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

func session(t *testing.T, host string) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(host)
	c.ProtoVersion = 4
	c.Consistency = gocql.One
	c.Timeout = 20 * time.Second
	c.ConnectTimeout = 10 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connecting to %s: %v", host, err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestDifferential runs the scenario against cqlsim and a real Cassandra node (CQL_HOSTS) and
// requires identical outcomes.
func TestDifferential(t *testing.T) {
	hosts := referenceHosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	steps := Scenario()
	if n := len(steps); n < 40 {
		t.Fatalf("scenario has %d steps, want at least 40", n)
	}
	ref := session(t, hosts[0])
	var peers int
	if err := ref.Query("SELECT count(*) FROM system.peers").Scan(&peers); err != nil {
		t.Fatalf("counting the reference cluster's peers: %v", err)
	}
	if peers > 0 {
		// cqlsim runs one node here; on more, steps meant to fail for want of replicas succeed.
		t.Skipf("CQL_HOSTS is a %d-node cluster: the scenario compares one Cassandra node with one cqlsim node", peers+1)
	}
	real := Run(ref, ks, steps)

	sim := cqlsim.StartT(t, cqlsim.Options{})
	got := Run(session(t, sim.Addrs()[0]), ks, steps)

	withRows, failing := 0, 0
	for i, st := range steps {
		if failed := real[i].Code != 0 || real[i].Error != ""; failed != st.WantErr {
			t.Errorf("scenario step %d (%s): failed=%v on Cassandra (%s), want failed=%v", i, real[i].Query, failed, real[i].Error, st.WantErr)
		}
		if len(real[i].Rows) > 0 {
			withRows++
		}
		if real[i].Error != "" {
			failing++
		}
	}
	t.Logf("%d steps: %d returned rows, %d failed as expected", len(steps), withRows, failing)
	for i := range steps {
		if d := cmp.Diff(real[i], got[i]); d != "" {
			t.Errorf("step %d (%s): Cassandra (-) vs cqlsim (+):\n%s", i, real[i].Query, d)
		}
	}
}

// TestSessionKeyspace runs unqualified statements on sessions bound to a keyspace (USE on every
// pooled connection), prepared and in batches, on both servers.
func TestSessionKeyspace(t *testing.T) {
	hosts := referenceHosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	sim := cqlsim.StartT(t, cqlsim.Options{})
	setup := []Step{
		{Query: "CREATE KEYSPACE {ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{Query: "CREATE TABLE {ks}.t (k int, c int, v text, PRIMARY KEY (k, c))"},
	}
	steps := []Step{
		{Query: "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", Args: []any{1, 1, "a"}},
		{Batch: []Step{
			{Query: "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", Args: []any{1, 2, "b"}},
			{Query: "UPDATE t SET v = ? WHERE k = ? AND c = ?", Args: []any{"c", 2, 1}},
		}, BatchTyp: gocql.LoggedBatch},
		{Query: "SELECT * FROM t WHERE k IN (1, 2)"},
		{Query: "UPDATE t SET v = 'z' WHERE k = 1 AND c = 1 IF v = 'a'"},
		{Query: "SELECT k, c, v FROM t", PageSize: 1},
		{Query: "SELECT * FROM nosuch", WantErr: true},
		{Query: "SELECT * FROM system.local WHERE key = 'nope'"},
	}
	run := func(host string) []Outcome {
		if o := Run(session(t, host), ks, setup); o[0].Error != "" || o[1].Error != "" {
			t.Fatalf("set-up on %s: %+v", host, o)
		}
		c := gocql.NewCluster(host)
		c.ProtoVersion = 4
		c.Keyspace = ks
		c.Timeout = 20 * time.Second
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("session with keyspace on %s: %v", host, err)
		}
		defer s.Close()
		return Run(s, ks, steps)
	}
	want := run(hosts[0])
	got := run(sim.Addrs()[0])
	for i := range steps {
		if (want[i].Error != "") != steps[i].WantErr {
			t.Errorf("step %d on Cassandra: %+v", i, want[i])
		}
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("step %d (%s): Cassandra (-) vs cqlsim (+):\n%s", i, want[i].Query, d)
		}
	}
}
