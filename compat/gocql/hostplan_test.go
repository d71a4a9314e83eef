package gocql

import (
	"fmt"
	"net"
	"slices"
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

// testHosts returns n hosts 10.0.0.1..n, those listed in down being down.
func testHosts(n int, down ...int) []*HostInfo {
	hosts := make([]*HostInfo, n)
	for i := range hosts {
		h := &HostInfo{connectAddress: net.ParseIP(fmt.Sprintf("10.0.0.%d", i+1)), port: 9042, state: NodeUp}
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
		{"dc aware", func([]*HostInfo) HostSelectionPolicy { return DCAwareRoundRobinPolicy("") }},
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
