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
	hosts := cqltest.Hosts(t)
	ks := cqltest.KeyspaceName(t)
	t.Cleanup(func() { cqltest.Exec(t, hosts[0], "DROP KEYSPACE IF EXISTS "+ks) })
	steps := Scenario()
	if n := len(steps); n < 40 {
		t.Fatalf("scenario has %d steps, want at least 40", n)
	}
	real := Run(session(t, hosts[0]), ks, steps)

	sim := cqlsim.StartT(t, cqlsim.Options{})
	got := Run(session(t, sim.Addrs()[0]), ks, steps)

	withRows, failing := 0, 0
	for i, st := range steps {
		if failed := real[i].Error != ""; failed != st.WantErr {
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
