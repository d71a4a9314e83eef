package gocql

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// planHosts walks a plan to its end and returns the addresses it yields.
func planHosts(next func() SelectedHost) []string {
	var out []string
	for h := next(); h != nil; h = next() {
		if h.Info() == nil || h.Info().ConnectAddress() == nil {
			out = append(out, "placeholder")
			continue
		}
		out = append(out, h.Info().ConnectAddress().String())
	}
	return out
}

// testHosts returns n hosts 10.0.0.1..n, those listed in down being down. Host i is in data
// centre dc1 when i is odd, dc2 otherwise, and in rack r1 when i%4 is 1 or 2, r2 otherwise.
func testHosts(n int, down ...int) []*HostInfo {
	hosts := make([]*HostInfo, n)
	for i := range hosts {
		h := &HostInfo{connectAddress: net.ParseIP(fmt.Sprintf("10.0.0.%d", i+1)), port: 9042, state: NodeUp,
			dataCenter: []string{"dc2", "dc1"}[(i+1)%2], rack: []string{"r2", "r1", "r1", "r2"}[(i+1)%4]}
		if slices.Contains(down, i+1) {
			h.state = NodeDown
		}
		hosts[i] = h
	}
	return hosts
}

// reversePolicy is a user-supplied policy: its plans visit the hosts that are up in reverse
// order.
type reversePolicy struct {
	HostSelectionPolicy
	hosts []*HostInfo
}

func (r *reversePolicy) Pick(ExecutableQuery) NextHost {
	i := len(r.hosts)
	return func() SelectedHost {
		for i > 0 {
			i--
			if r.hosts[i].IsUp() {
				return (*selectedHost)(r.hosts[i])
			}
		}
		return nil
	}
}

// TestHostPlanMatchesPick checks that the session's closure-free walk of a plan yields the
// hosts Pick yields, in the same order, plan after plan (the round-robin start advancing
// alike), for the built-in round-robin policy, the same wrapped in SingleHostReadyPolicy,
// and policies the session can only use through Pick.
func TestHostPlanMatchesPick(t *testing.T) {
	cases := []struct {
		name string
		new  func(hosts []*HostInfo) HostSelectionPolicy
	}{
		{"round robin", func([]*HostInfo) HostSelectionPolicy { return RoundRobinHostPolicy() }},
		{"single host ready", func([]*HostInfo) HostSelectionPolicy { return SingleHostReadyPolicy(RoundRobinHostPolicy()) }},
		{"dc aware", func([]*HostInfo) HostSelectionPolicy { return DCAwareRoundRobinPolicy("dc1") }},
		{"rack aware", func([]*HostInfo) HostSelectionPolicy { return RackAwareRoundRobinPolicy("dc2", "r1") }},
		{"wrapped dc aware", func([]*HostInfo) HostSelectionPolicy {
			return SingleHostReadyPolicy(SingleHostReadyPolicy(DCAwareRoundRobinPolicy("dc2")))
		}},
		{"user policy", func(h []*HostInfo) HostSelectionPolicy {
			return &reversePolicy{HostSelectionPolicy: RoundRobinHostPolicy(), hosts: h}
		}},
		{"wrapped user policy", func(h []*HostInfo) HostSelectionPolicy {
			return SingleHostReadyPolicy(&reversePolicy{HostSelectionPolicy: RoundRobinHostPolicy(), hosts: h})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hosts := testHosts(4, 3)
			if !strings.Contains(c.name, "user") {
				var p hostPlan
				fillPlan(c.new(hosts), nil, &p)
				if p.next != nil {
					t.Fatal("a built-in policy's plan is walked through Pick's closure")
				}
			}
			viaPick, viaPlan := c.new(hosts), c.new(hosts)
			for _, h := range hosts {
				viaPick.AddHost(h)
				viaPlan.AddHost(h)
			}
			for round := 0; round < 6; round++ {
				want := planHosts(viaPick.Pick(nil))
				var p hostPlan
				fillPlan(viaPlan, nil, &p)
				got := planHosts(p.nextHost)
				if !slices.Equal(got, want) {
					t.Fatalf("plan %d: walked %v, Pick yields %v", round, got, want)
				}
				if c.name == "user policy" && !slices.Equal(got, []string{"10.0.0.4", "10.0.0.2", "10.0.0.1"}) {
					t.Fatalf("plan %d: %v, not the user policy's own order", round, got)
				}
				if len(got) != 3 || slices.Contains(got, "10.0.0.3") {
					t.Fatalf("plan %d: %v, want the 3 hosts that are up", round, got)
				}
			}
		})
	}
}

// TestHostPlanRoundRobinRotates checks the order itself: each plan starts one host further and
// wraps around.
func TestHostPlanRoundRobinRotates(t *testing.T) {
	p := RoundRobinHostPolicy()
	for _, h := range testHosts(3) {
		p.AddHost(h)
	}
	want := [][]string{
		{"10.0.0.1", "10.0.0.2", "10.0.0.3"},
		{"10.0.0.2", "10.0.0.3", "10.0.0.1"},
		{"10.0.0.3", "10.0.0.1", "10.0.0.2"},
		{"10.0.0.1", "10.0.0.2", "10.0.0.3"},
	}
	for i, w := range want {
		var plan hostPlan
		fillPlan(p, nil, &plan)
		if got := planHosts(plan.nextHost); !slices.Equal(got, w) {
			t.Fatalf("plan %d: %v, want %v", i, got, w)
		}
	}
}

// TestHostPlanPlaceholder checks the plan of a session that knows no host yet: one host-less
// entry (the native core routes the request), then the end; a plan with hosts has none.
func TestHostPlanPlaceholder(t *testing.T) {
	empty := RoundRobinHostPolicy()
	p := hostPlan{placeholder: true}
	fillPlan(empty, nil, &p)
	if got := planHosts(p.nextHost); !slices.Equal(got, []string{"placeholder"}) {
		t.Fatalf("empty plan with placeholder: %v", got)
	}
	full := RoundRobinHostPolicy()
	full.AddHost(testHosts(1)[0])
	p = hostPlan{placeholder: true}
	fillPlan(full, nil, &p)
	if got := planHosts(p.nextHost); !slices.Equal(got, []string{"10.0.0.1"}) {
		t.Fatalf("plan with a host and placeholder: %v", got)
	}
}

// TestHostPlanTiers checks the tiered walk on more hosts: the local data centre first (each
// tier rotated), hosts that are down skipped, the same as Pick plan after plan; and a cluster
// larger than the walk's buffer goes through Pick with the same result.
func TestHostPlanTiers(t *testing.T) {
	for _, n := range []int{7, maxTieredPlanHosts, maxTieredPlanHosts + 5} {
		hosts := testHosts(n, 2, 5)
		viaPick, viaPlan := DCAwareRoundRobinPolicy("dc1"), DCAwareRoundRobinPolicy("dc1")
		for _, h := range hosts {
			viaPick.AddHost(h)
			viaPlan.AddHost(h)
		}
		for round := 0; round < n+2; round++ {
			want := planHosts(viaPick.Pick(nil))
			var p hostPlan
			fillPlan(viaPlan, nil, &p)
			if (p.next == nil) != (n <= maxTieredPlanHosts) {
				t.Fatalf("%d hosts: walked through Pick: %v", n, p.next != nil)
			}
			got := planHosts(p.nextHost)
			if !slices.Equal(got, want) {
				t.Fatalf("%d hosts, plan %d: walked %v, Pick yields %v", n, round, got, want)
			}
			if len(got) != n-2 {
				t.Fatalf("%d hosts, plan %d: %v, want the %d hosts that are up", n, round, got, n-2)
			}
			local := 0
			for _, a := range got {
				var last int
				fmt.Sscanf(a, "10.0.0.%d", &last)
				if last%2 == 1 {
					local++
				}
			}
			for i, a := range got[:local] {
				var last int
				fmt.Sscanf(a, "10.0.0.%d", &last)
				if last%2 != 1 {
					t.Fatalf("%d hosts, plan %d: host %d (%s) of the remote data centre comes before a local one: %v", n, round, i, a, got)
				}
			}
		}
	}
}

// keyQuery is an ExecutableQuery with a fixed routing key, for planning only.
type keyQuery struct {
	Query
	key []byte
}

func (k *keyQuery) GetRoutingKey() ([]byte, error) { return k.key, nil }

// TestHostPlanTokenAware checks token-aware plans walked without closures against Pick: the
// replicas of the routing key that are up (local data centre first, the others with
// NonLocalReplicasFallback) then the fallback's plan without them, plan after plan; a query
// without a routing key gets the fallback's plan.
func TestHostPlanTokenAware(t *testing.T) {
	cases := []struct {
		name string
		new  func() HostSelectionPolicy
	}{
		{"round robin", func() HostSelectionPolicy { return TokenAwareHostPolicy(RoundRobinHostPolicy()) }},
		{"dc aware", func() HostSelectionPolicy { return TokenAwareHostPolicy(DCAwareRoundRobinPolicy("dc1")) }},
		{"dc aware, non-local replicas", func() HostSelectionPolicy {
			return TokenAwareHostPolicy(DCAwareRoundRobinPolicy("dc1"), NonLocalReplicasFallback())
		}},
		{"wrapped", func() HostSelectionPolicy {
			return SingleHostReadyPolicy(TokenAwareHostPolicy(SingleHostReadyPolicy(RoundRobinHostPolicy())))
		}},
		{"user fallback", func() HostSelectionPolicy {
			return TokenAwareHostPolicy(&reversePolicy{HostSelectionPolicy: RoundRobinHostPolicy(), hosts: nil})
		}},
	}
	key := []byte{0, 0, 0, 42}
	token := murmur3Token(key)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hosts := testHosts(6, 4)
			// Each host owns one token; the key's token falls just before host 2's.
			for i, h := range hosts {
				h.tokens = []string{strconv.FormatInt(token+int64(i-1)*1000, 10)}
			}
			viaPick, viaPlan := c.new(), c.new()
			for _, p := range []HostSelectionPolicy{viaPick, viaPlan} {
				p.SetPartitioner(murmur3Partitioner)
				if u, ok := unwrapReady(p).(*tokenAwareHostPolicy); ok {
					if r, ok := unwrapReady(u.fallback).(*reversePolicy); ok {
						r.hosts = hosts
					}
				}
				for _, h := range hosts {
					p.AddHost(h)
				}
			}
			for _, q := range []ExecutableQuery{&keyQuery{key: key}, &keyQuery{}} {
				for round := 0; round < 4; round++ {
					want := planHosts(viaPick.Pick(q))
					var p hostPlan
					fillPlan(viaPlan, q, &p)
					if p.next != nil && !strings.Contains(c.name, "user") {
						t.Fatal("a built-in policy's plan is walked through Pick's closure")
					}
					got := planHosts(p.nextHost)
					if !slices.Equal(got, want) {
						t.Fatalf("key %x, plan %d: walked %v, Pick yields %v", q.(*keyQuery).key, round, got, want)
					}
					if len(got) != 5 {
						t.Fatalf("key %x, plan %d: %v, want each of the 5 hosts that are up once", q.(*keyQuery).key, round, got)
					}
					// The key's only replica (rf 1) is host 2, in dc2: a DC-aware fallback for dc1
					// does not try it first unless non-local replicas are allowed.
					replicaFirst := c.name != "dc aware"
					if q.(*keyQuery).key != nil && (got[0] == "10.0.0.2") != replicaFirst {
						t.Fatalf("plan %d starts at %s (replica first: %v): %v", round, got[0], replicaFirst, got)
					}
				}
			}
		})
	}
}
