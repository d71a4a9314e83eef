package gocql

import (
	"slices"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// slowFirst is a host selection policy of compat whose plans list the hosts in a fixed order
// of addresses.
type slowFirst struct {
	HostSelectionPolicy
	order []string
}

func (p *slowFirst) Pick(q ExecutableQuery) NextHost {
	next := p.HostSelectionPolicy.Pick(q)
	var hosts []SelectedHost
	for h := next(); h != nil; h = next() {
		hosts = append(hosts, h)
	}
	slices.SortFunc(hosts, func(a, b SelectedHost) int {
		return slices.Index(p.order, a.Info().ConnectAddressAndPort()) - slices.Index(p.order, b.Info().ConnectAddressAndPort())
	})
	return func() SelectedHost {
		if len(hosts) == 0 {
			return nil
		}
		h := hosts[0]
		hosts = hosts[1:]
		return h
	}
}

// legacySlowFirst is slowFirst for gocql v1.7.0.
type legacySlowFirst struct {
	gocqlv1.HostSelectionPolicy
	order []string
}

func (p *legacySlowFirst) Pick(q gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	next := p.HostSelectionPolicy.Pick(q)
	var hosts []gocqlv1.SelectedHost
	for h := next(); h != nil; h = next() {
		hosts = append(hosts, h)
	}
	slices.SortFunc(hosts, func(a, b gocqlv1.SelectedHost) int {
		return slices.Index(p.order, a.Info().ConnectAddressAndPort()) - slices.Index(p.order, b.Info().ConnectAddressAndPort())
	})
	return func() gocqlv1.SelectedHost {
		if len(hosts) == 0 {
			return nil
		}
		h := hosts[0]
		hosts = hosts[1:]
		return h
	}
}

// slowNodeStmt is the query of the slow-node tests.
const slowNodeStmt = "SELECT release_version FROM system.local"

// slowNodeSessions starts a cluster of three nodes and returns it with a gocql v1.7.0 and a
// compat session (Timeout timeout) whose plans list node 2, node 3 and node 1, in that order,
// once node 2 has served both (so that a delay set on it afterwards meets open connections).
func slowNodeSessions(t *testing.T, timeout time.Duration) (*cqlsim.Cluster, *gocqlv1.Session, *Session) {
	t.Helper()
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	addrs := sim.Addrs()
	order := []string{addrs[1], addrs[2], addrs[0]}
	lc := gocqlv1.NewCluster(addrs[0])
	lc.ProtoVersion = 4
	lc.Timeout = timeout
	lc.PoolConfig.HostSelectionPolicy = &legacySlowFirst{HostSelectionPolicy: gocqlv1.RoundRobinHostPolicy(), order: order}
	legacy, err := lc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(legacy.Close)
	cc := NewCluster(addrs[0])
	cc.ProtoVersion = 4
	cc.Timeout = timeout
	cc.PoolConfig.HostSelectionPolicy = &slowFirst{HostSelectionPolicy: RoundRobinHostPolicy(), order: order}
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	waitServedBy(t, addrs[1],
		func() string {
			it := legacy.Query(slowNodeStmt).Iter()
			defer it.Close()
			return legacyAddr(it.Host())
		},
		func() string {
			it := s.Query(slowNodeStmt).Iter()
			defer it.Close()
			return compatAddr(it.Host())
		})
	return sim, legacy, s
}

// specOutcome is which node served a query, and whether the answer came before the slow
// node's delay.
type specOutcome struct {
	Query  string
	Served string
	Early  bool
}

// TestSpeculativeExecutionAroundASlowNodeLikeGocql: every plan starts with node 2, which
// answers a second late, then node 3. An idempotent query with a speculative execution policy
// (one extra execution after 100 ms) is answered by node 3 before node 2's answer comes; a
// non-idempotent one, and one without the policy, wait for node 2; both drivers alike.
func TestSpeculativeExecutionAroundASlowNodeLikeGocql(t *testing.T) {
	const delay = time.Second
	cases := []struct {
		name       string
		idempotent bool
		spec       bool
	}{
		{"idempotent, speculative", true, true},
		{"not idempotent, speculative", false, true},
		{"idempotent, no speculative policy", true, false},
	}
	timed := func(f func() (string, error)) (string, bool) {
		t.Helper()
		start := time.Now()
		host, err := f()
		if err != nil {
			t.Fatal(err)
		}
		return host, time.Since(start) < delay
	}

	sim, legacy, s := slowNodeSessions(t, 10*time.Second)
	if err := sim.SetNodeDelay(1, delay); err != nil {
		t.Fatal(err)
	}

	var want, got []specOutcome
	for _, tc := range cases {
		host, early := timed(func() (string, error) {
			q := legacy.Query(slowNodeStmt).Idempotent(tc.idempotent)
			if tc.spec {
				q = q.SetSpeculativeExecutionPolicy(&gocqlv1.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: 100 * time.Millisecond})
			}
			it := q.Iter()
			return legacyAddr(it.Host()), it.Close()
		})
		want = append(want, specOutcome{tc.name, host, early})
		host, early = timed(func() (string, error) {
			q := s.Query(slowNodeStmt).Idempotent(tc.idempotent)
			if tc.spec {
				q = q.SetSpeculativeExecutionPolicy(&SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: 100 * time.Millisecond})
			}
			it := q.Iter()
			return compatAddr(it.Host()), it.Close()
		})
		got = append(got, specOutcome{tc.name, host, early})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("gocql v1.7.0 (-) and compat (+) differ:\n%s", d)
	}
	// The expectation, independently of gocql: only the speculative idempotent query gets
	// around the slow node.
	if !want[0].Early || want[0].Served != sim.Addrs()[2] || want[1].Early || want[1].Served != sim.Addrs()[1] || want[2].Early {
		t.Fatalf("gocql v1.7.0 did not behave as this test expects: %+v", want)
	}
}

// compatAddr is a host's address, "" for none.
func compatAddr(h *HostInfo) string {
	if h == nil {
		return ""
	}
	return h.ConnectAddressAndPort()
}

// legacyAddr is a gocql v1.7.0 host's address, "" for none.
func legacyAddr(h *gocqlv1.HostInfo) string {
	if h == nil {
		return ""
	}
	return h.ConnectAddressAndPort()
}

// attemptOutcome is one observed attempt: its number, node and error.
type attemptOutcome struct {
	Attempt int
	Host    string
	Err     string
}

// timeoutOutcome is what one query gave: its error and its attempts, in the order observed.
type timeoutOutcome struct {
	Query    string
	Err      string
	Attempts []attemptOutcome
}

// TestTimeoutOnASlowNodeLikeGocql: every plan starts with node 2, which answers 3 s late, then
// node 3; the session's Timeout is 500 ms (wide enough for a loaded machine's fast answers).
// The first attempt times out on node 2; the retry policy moves idempotent and non-idempotent
// queries alike to node 3; without a retry policy the query fails with ErrTimeoutNoResponse.
// Both drivers give the same errors and observe the same attempts.
func TestTimeoutOnASlowNodeLikeGocql(t *testing.T) {
	cases := []struct {
		name       string
		idempotent bool
		retry      bool
	}{
		{"idempotent, retried", true, true},
		{"not idempotent, retried", false, true},
		{"idempotent, no retry policy", true, false},
	}
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}

	sim, legacy, s := slowNodeSessions(t, 500*time.Millisecond)
	if err := sim.SetNodeDelay(1, 3*time.Second); err != nil {
		t.Fatal(err)
	}

	var want, got []timeoutOutcome
	for _, tc := range cases {
		lobs := &legacyObserver{}
		lq := legacy.Query(slowNodeStmt).Idempotent(tc.idempotent).Observer(lobs)
		if tc.retry {
			lq = lq.RetryPolicy(&gocqlv1.SimpleRetryPolicy{NumRetries: 2})
		} else {
			lq = lq.RetryPolicy(nil)
		}
		out := timeoutOutcome{Query: tc.name, Err: errText(lq.Exec())}
		for _, o := range lobs.all() {
			out.Attempts = append(out.Attempts, attemptOutcome{o.Attempt, legacyAddr(o.Host), errText(o.Err)})
		}
		want = append(want, out)

		obs := &countingObserver{}
		q := s.Query(slowNodeStmt).Idempotent(tc.idempotent).Observer(obs)
		if tc.retry {
			q = q.RetryPolicy(&SimpleRetryPolicy{NumRetries: 2})
		} else {
			q = q.RetryPolicy(nil)
		}
		out = timeoutOutcome{Query: tc.name, Err: errText(q.Exec())}
		for _, o := range obs.all() {
			out.Attempts = append(out.Attempts, attemptOutcome{o.Attempt, compatAddr(o.Host), errText(o.Err)})
		}
		got = append(got, out)
	}
	t.Logf("gocql v1.7.0: %+v", want)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("gocql v1.7.0 (-) and compat (+) differ:\n%s", d)
	}
	// Independently of gocql: the first attempt timed out on node 2.
	for _, w := range want {
		if len(w.Attempts) == 0 || w.Attempts[0].Host != sim.Addrs()[1] || w.Attempts[0].Err != ErrTimeoutNoResponse.Error() {
			t.Fatalf("gocql v1.7.0 did not behave as this test expects: %+v", w)
		}
	}
}

// waitServedBy calls each of served until it returns addr, failing t after failoverDeadline.
func waitServedBy(t *testing.T, addr string, served ...func() string) {
	t.Helper()
	for _, f := range served {
		deadline := time.Now().Add(failoverDeadline)
		for f() != addr {
			if time.Now().After(deadline) {
				t.Fatalf("%s never served", addr)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
