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
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	addrs := sim.Addrs()
	order := []string{addrs[1], addrs[2], addrs[0]}
	const delay = time.Second
	const stmt = "SELECT release_version FROM system.local"
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

	lc := gocqlv1.NewCluster(addrs[0])
	lc.ProtoVersion = 4
	lc.Timeout = 10 * time.Second
	lc.PoolConfig.HostSelectionPolicy = &legacySlowFirst{HostSelectionPolicy: gocqlv1.RoundRobinHostPolicy(), order: order}
	legacy, err := lc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	cc := NewCluster(addrs[0])
	cc.ProtoVersion = 4
	cc.Timeout = 10 * time.Second
	cc.PoolConfig.HostSelectionPolicy = &slowFirst{HostSelectionPolicy: RoundRobinHostPolicy(), order: order}
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Both sessions use every node before the delay starts.
	for _, served := range []func() string{
		func() string {
			it := legacy.Query(stmt).Iter()
			defer it.Close()
			return legacyAddr(it.Host())
		},
		func() string {
			it := s.Query(stmt).Iter()
			defer it.Close()
			return compatAddr(it.Host())
		},
	} {
		deadline := time.Now().Add(failoverDeadline)
		for served() != addrs[1] {
			if time.Now().After(deadline) {
				t.Fatal("node 2 never served")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := sim.SetNodeDelay(1, delay); err != nil {
		t.Fatal(err)
	}

	var want, got []specOutcome
	for _, tc := range cases {
		host, early := timed(func() (string, error) {
			q := legacy.Query(stmt).Idempotent(tc.idempotent)
			if tc.spec {
				q = q.SetSpeculativeExecutionPolicy(&gocqlv1.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: 100 * time.Millisecond})
			}
			it := q.Iter()
			return legacyAddr(it.Host()), it.Close()
		})
		want = append(want, specOutcome{tc.name, host, early})
		host, early = timed(func() (string, error) {
			q := s.Query(stmt).Idempotent(tc.idempotent)
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
	if !want[0].Early || want[0].Served != addrs[2] || want[1].Early || want[1].Served != addrs[1] || want[2].Early {
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
