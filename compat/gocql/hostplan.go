package gocql

import "sync"

// rotationPolicy is implemented by the built-in host selection policies whose plans are
// rotations over a host list. pickRotation returns the hosts and the first index of the plan
// Pick(q) would return, with the same side effects on the policy, so that the session can walk
// the plan without allocating a closure; ok is false, with no side effect, when the plan is no
// such rotation. Other policies (user-supplied ones included) are used through Pick.
type rotationPolicy interface {
	pickRotation(q ExecutableQuery) (hosts []*HostInfo, start uint64, ok bool)
}

// hostPlan is one query plan being walked: either a rotation over hosts (the built-in
// policies) or a policy's NextHost. The zero hostPlan is an empty plan.
type hostPlan struct {
	next  NextHost    // a policy's own plan; nil for a rotation
	hosts []*HostInfo // the rotation's hosts
	start uint64      // the rotation's first index (modulo len(hosts))
	i     int         // hosts of the rotation visited so far

	// placeholder makes the first step yield a host-less entry when the plan is empty (the
	// session knows no host yet), letting the native core route the request itself.
	placeholder bool
	stepped     bool

	// mu, when set, serialises steps shared by speculative executions.
	mu *sync.Mutex
}

// fillPlan sets p to the plan of policy for q.
func fillPlan(policy HostSelectionPolicy, q ExecutableQuery, p *hostPlan) {
	if r, ok := policy.(rotationPolicy); ok {
		if hosts, start, ok := r.pickRotation(q); ok {
			p.hosts, p.start = hosts, start
			return
		}
	}
	p.next = policy.Pick(q)
}

// nextHost returns the next host of the plan, nil when it is exhausted.
func (p *hostPlan) nextHost() SelectedHost {
	if p.mu != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	var h SelectedHost
	if p.next != nil {
		h = p.next()
	} else {
		h = p.rotate()
	}
	if !p.stepped {
		p.stepped = true
		if h == nil && p.placeholder {
			return &selectedHost{}
		}
	}
	return h
}

// rotate walks hosts from start, skipping the hosts that are down.
func (p *hostPlan) rotate() SelectedHost {
	n := uint64(len(p.hosts))
	for p.i < len(p.hosts) {
		h := p.hosts[(p.start+uint64(p.i))%n]
		p.i++
		if h.IsUp() {
			return (*selectedHost)(h)
		}
	}
	return nil
}
