package native_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// agreementCluster starts three cqlsim nodes whose peers see a schema change only when clock
// passes the change by a second, and connects a session configured by mod to them.
func agreementCluster(t *testing.T, clock *cqlsim.ManualClock, mod func(*native.Config)) (*cqlsim.Cluster, *native.Session) {
	t.Helper()
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Now: clock.Now, SchemaPropagationDelay: time.Second})
	cfg := native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	s, err := native.Connect(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	waitHostsUp(t, s, 3)
	return cl, s
}

// answered returns a Config.Observer that closes the returned channel once an attempt of a
// statement starting with prefix has got its answer (before Execute waits for agreement).
func answered(prefix string) (func(context.Context, native.Attempt), <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	return func(_ context.Context, a native.Attempt) {
		if a.Err == nil && strings.HasPrefix(a.Statement, prefix) {
			once.Do(func() { close(ch) })
		}
	}, ch
}

// waitAnswered waits until done is closed (see answered), failing the test if p completes
// first.
func waitAnswered(t *testing.T, done <-chan struct{}, p *native.Pending) {
	t.Helper()
	select {
	case <-done:
	case <-p.Done():
		res, err := p.Result()
		t.Fatalf("the DDL completed without a successful attempt: %v, %v", res, err)
	}
}

// waitHostsUp waits until the session has open connections to n nodes.
func waitHostsUp(t *testing.T, s *native.Session, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		up := 0
		for _, h := range s.Hosts() {
			if h.Up {
				up++
			}
		}
		if up == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d nodes up after 30s, want %d: %+v", up, n, s.Hosts())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// schemaAgrees reports whether the node at addr and its peers report one schema version.
func schemaAgrees(t *testing.T, s *native.Session, addr string) bool {
	t.Helper()
	versions := map[string]bool{}
	for _, q := range []string{"SELECT schema_version FROM system.local", "SELECT schema_version FROM system.peers"} {
		res, err := s.Execute(ctxT(t), native.Query(q).WithHost(addr))
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range res.Rows() {
			v, err := native.Get[cqltype.UUID](row, 0)
			if err != nil {
				t.Fatal(err)
			}
			versions[v.String()] = true
		}
	}
	return len(versions) == 1
}

// Execute returns from DDL only once the nodes agree on the schema.
func TestExecuteWaitsForSchemaAgreement(t *testing.T) {
	clock := cqlsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	obs, done := answered("CREATE KEYSPACE sa")
	cl, s := agreementCluster(t, clock, func(c *native.Config) { c.Observer = obs })

	// The DDL runs on a node other than the control connection's (node 1, the contact point):
	// asked first, the other nodes would all report the old schema and seem to agree.
	p := s.ExecuteAsync(ctxT(t), native.Query("CREATE KEYSPACE sa WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").WithHost(cl.Addrs()[1]))
	// The DDL has been answered while the peers still report the old version: the request
	// must still be waiting, whatever the time it took to get here.
	waitAnswered(t, done, p)
	if schemaAgrees(t, s, cl.Addrs()[1]) {
		t.Fatal("cqlsim reports agreement before its clock moved: the test cannot tell")
	}
	select {
	case <-p.Done():
		res, err := p.Result()
		t.Fatalf("ExecuteAsync completed while the nodes disagree: %v, %v", res, err)
	default:
	}

	clock.Advance(time.Second)
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.SchemaChange() == nil || !res.SchemaAgreed() {
		t.Fatalf("SchemaChange %+v, SchemaAgreed %v: want a change, agreed", res.SchemaChange(), res.SchemaAgreed())
	}
	if !schemaAgrees(t, s, cl.Addrs()[1]) || !schemaAgrees(t, s, cl.Addrs()[0]) {
		t.Error("Execute returned before the nodes agreed")
	}
	if r := mustExec(t, s, "SELECT release_version FROM system.local"); !r.SchemaAgreed() {
		t.Error("SchemaAgreed is false for a result that is not a schema change")
	}
}

// When the nodes do not agree within SchemaAgreementTimeout, or the context ends first, or the
// wait is disabled, Execute returns the DDL's result with SchemaAgreed false and no error.
func TestSchemaAgreementNotReached(t *testing.T) {
	clock := cqlsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // never moved: the peers never agree
	ddl := func(s *native.Session, ctx context.Context, ks string) *native.Result {
		t.Helper()
		res, err := s.Execute(ctx, native.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
		if err != nil {
			t.Fatalf("CREATE KEYSPACE %s: %v", ks, err)
		}
		if res.SchemaChange() == nil {
			t.Fatalf("CREATE KEYSPACE %s: no schema change in the result", ks)
		}
		return res
	}

	_, s := agreementCluster(t, clock, func(c *native.Config) { c.SchemaAgreementTimeout = 300 * time.Millisecond })
	if res := ddl(s, ctxT(t), "timeout1"); res.SchemaAgreed() {
		t.Error("SchemaAgreed after the timeout passed with the peers disagreeing")
	}

	// The context ends once the DDL has been answered, while Execute waits for agreement.
	ctx, cancel := context.WithCancel(ctxT(t))
	obs, done := answered("CREATE KEYSPACE cancelled1")
	go func() { <-done; cancel() }()
	_, s = agreementCluster(t, clock, func(c *native.Config) { c.SchemaAgreementTimeout = time.Hour; c.Observer = obs })
	if res := ddl(s, ctx, "cancelled1"); res.SchemaAgreed() {
		t.Error("SchemaAgreed after the context ended with the peers disagreeing")
	}

	_, s = agreementCluster(t, clock, func(c *native.Config) { c.SchemaAgreementTimeout = -1 })
	if res := ddl(s, ctxT(t), "disabled1"); res.SchemaAgreed() {
		t.Error("SchemaAgreed with the wait disabled and the peers disagreeing")
	}
}

// A node that is down keeps its old schema version in system.peers for good; the wait skips
// it instead of timing out.
func TestSchemaAgreementSkipsDownNodes(t *testing.T) {
	clock := cqlsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	obs, done := answered("CREATE KEYSPACE down1")
	cl, s := agreementCluster(t, clock, func(c *native.Config) { c.SchemaAgreementTimeout = 30 * time.Second; c.Observer = obs })
	if err := cl.StopNode(2); err != nil {
		t.Fatal(err)
	}
	waitHostsUp(t, s, 2)
	// The DDL goes to a running node: a connection to the stopped node that was still being
	// opened when it stopped can look usable for a moment, and a DDL is not retried elsewhere.
	p := s.ExecuteAsync(ctxT(t), native.Query("CREATE KEYSPACE down1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").WithHost(cl.Addrs()[1]))
	waitAnswered(t, done, p)
	clock.Advance(time.Second) // the running peer catches up; the stopped one never does
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	if !res.SchemaAgreed() {
		t.Error("SchemaAgreed is false although every node up agrees")
	}
	if err := s.AwaitSchemaAgreement(ctxT(t)); err != nil {
		t.Errorf("AwaitSchemaAgreement with a node down: %v", err)
	}
}

// OnSchemaChange receives the schema change events of every client's DDL, in order: here a
// second session creates, alters and drops a keyspace and a table.
func TestOnSchemaChange(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
	var mu sync.Mutex
	var got []string
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], OnSchemaChange: func(sc native.SchemaChange) {
		mu.Lock()
		got = append(got, strings.TrimSpace(sc.Change+" "+sc.Target+" "+sc.Keyspace+" "+sc.Name))
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[1:]})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, ddl := range []string{
		"CREATE KEYSPACE evks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE evks.t (k int PRIMARY KEY)",
		"ALTER KEYSPACE evks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}",
		"DROP TABLE evks.t",
		"DROP KEYSPACE evks",
	} {
		if _, err := other.Execute(ctxT(t), native.Query(ddl)); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
	}
	want := []string{"CREATED KEYSPACE evks", "CREATED TABLE evks t", "UPDATED KEYSPACE evks", "DROPPED TABLE evks t", "DROPPED KEYSPACE evks"}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		done := len(got) >= len(want)
		seen := append([]string(nil), got...)
		mu.Unlock()
		if done {
			if strings.Join(seen, "; ") != strings.Join(want, "; ") {
				t.Fatalf("OnSchemaChange got %q, want %q", seen, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("OnSchemaChange got %q within 10 s, want %q", seen, want)
		}
	}
}
