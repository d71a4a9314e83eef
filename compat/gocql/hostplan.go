package gocql

import "sync"

// hostPlan is one query plan being walked: a rotation over hosts for the built-in round-robin
// and data-centre or rack aware policies, or a policy's own NextHost for every other policy
// (user-supplied ones included). The session walks it without allocating a closure. The zero
// hostPlan is an empty plan.
type hostPlan struct {
	next  NextHost    // a policy's own plan; nil for a rotation
	hosts []*HostInfo // the rotation's hosts
	start uint64      // the rotation's first index (modulo the number of hosts it rotates over)
	i     int         // hosts of the rotation (of the current tier) visited so far

	// tiered, when set, makes the rotation go tier by tier (closest first), each tier's
	// hosts rotated from start, as tieredPolicy.Pick does; buf[:n] holds the hosts of tier.
	tiered *tieredPolicy
	tier   uint
	loaded bool
	n      int
	buf    [maxTieredPlanHosts]*HostInfo

	// The replicas of a token-aware plan, tried first and skipped afterwards: rep[:nrep],
	// then moreRep; r counts those yielded.
	rep     [maxPlanReplicas]*HostInfo
	nrep    int
	moreRep []*HostInfo
	r       int

	// seen holds the hosts a policy's own plan (next) yielded after the replicas of a
	// token-aware plan: as the replicas, they are skipped when named again. ended is set
	// once the plan ended (see maxFallbackRepeats).
	seen  []*HostInfo
	ended bool

	// fallback, when set, is the policy whose plan follows the replicas of a token-aware
	// plan, for q: made only once the replicas are used up, as gocql does.
	fallback HostSelectionPolicy
	q        ExecutableQuery

	// placeholder makes the first step yield a host-less entry when the plan is empty (the
	// session knows no host yet), letting the native core route the request itself.
	placeholder bool
	stepped     bool

	// mu, when set, serialises steps shared by speculative executions.
	mu *sync.Mutex
}

// routeByCore is the placeholder entry of a plan (see hostPlan.placeholder): the session
// sends the attempt without a host, and the native core routes it. Only this entry is; an
// entry of a policy's plan without a host (a nil Info(), a zero HostInfo) is skipped, as
// gocql v1.7.0 skips a host it has no pool for.
var routeByCore SelectedHost = &selectedHost{}

// maxTieredPlanHosts is the largest host list whose tiered plans are walked without
// allocating; larger clusters use tieredPolicy.Pick.
const maxTieredPlanHosts = 16

// fillPlan sets p to the plan of policy for q: the same hosts, in the same order and with the
// same effect on the policy's round-robin position, as policy.Pick(q) would give.
func fillPlan(policy HostSelectionPolicy, q ExecutableQuery, p *hostPlan) {
	policy = unwrapReady(policy)
	if ta, ok := policy.(*tokenAwareHostPolicy); ok {
		// As in its Pick: the replicas to try first, then, once they are used up, the
		// fallback's plan (at once when there is no replica).
		p.nrep, p.moreRep = ta.planReplicas(q, &p.rep)
		if p.nrep == 0 {
			fillRotation(unwrapReady(ta.fallback), q, p)
		} else {
			p.fallback, p.q = unwrapReady(ta.fallback), q
		}
		return
	}
	fillRotation(policy, q, p)
}

// unwrapReady returns the policy SingleHostReadyPolicy wraps (whose Pick it uses), else
// policy.
func unwrapReady(policy HostSelectionPolicy) HostSelectionPolicy {
	for {
		w, ok := policy.(*singleHostReadyPolicy)
		if !ok {
			return policy
		}
		policy = w.HostSelectionPolicy
	}
}

// fillRotation sets p to the plan of a policy other than a token-aware one: a rotation for
// the built-in ones, Pick's plan for the others.
func fillRotation(policy HostSelectionPolicy, q ExecutableQuery, p *hostPlan) {
	if dc, ok := policy.(*dcAwarePolicy); ok {
		policy = dc.t
	}
	switch pol := policy.(type) {
	case *roundRobinHostPolicy:
		p.hosts, p.start = pol.hosts.get(), pol.next.Add(1)-1
		return
	case *tieredPolicy:
		if hosts := pol.hosts.get(); len(hosts) <= maxTieredPlanHosts {
			p.hosts, p.start, p.tiered = hosts, pol.next.Add(1)-1, pol
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
	h := p.step()
	if !p.stepped {
		p.stepped = true
		if h == nil && p.placeholder {
			return routeByCore
		}
	}
	return h
}

// step returns the next replica, then the next host of the rotation (or of the policy's own
// plan) not tried yet, ending the plan after maxFallbackRepeats hosts already tried in a row.
func (p *hostPlan) step() SelectedHost {
	if p.r < p.nrep+len(p.moreRep) {
		p.r++
		if p.r <= p.nrep {
			return (*selectedHost)(p.rep[p.r-1])
		}
		return (*selectedHost)(p.moreRep[p.r-1-p.nrep])
	}
	if p.fallback != nil {
		fb, q := p.fallback, p.q
		p.fallback, p.q = nil, nil
		fillRotation(fb, q, p)
	}
	if p.ended {
		return nil
	}
	// A plan without replicas has tried nothing yet: the rotation's hosts go as they come.
	h, exhausted := untried(p.following, func(h *HostInfo) bool { return p.r != 0 && p.tried(h) })
	if exhausted {
		p.ended = true
	}
	if h != nil && p.r != 0 && p.next != nil {
		p.seen = append(p.seen, h.Info())
	}
	return h
}

// following returns the next host of the rotation, or of the policy's own plan.
func (p *hostPlan) following() SelectedHost {
	switch {
	case p.next != nil:
		return p.next()
	case p.tiered != nil:
		return p.rotateTiers()
	}
	return p.rotate()
}

// tried reports whether h is a replica of the plan or a host the policy's own plan yielded
// after them.
func (p *hostPlan) tried(h *HostInfo) bool {
	return isReplica(p.rep[:p.nrep], h) || isReplica(p.moreRep, h) || isReplica(p.seen, h)
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

// rotateTiers walks the tiers of p.tiered in order, each one's hosts (in list order) from
// start, skipping the hosts that are down.
func (p *hostPlan) rotateTiers() SelectedHost {
	d := p.tiered
	for p.tier <= d.maxTier {
		if !p.loaded {
			p.n, p.i, p.loaded = 0, 0, true
			for _, h := range p.hosts {
				if d.tier(h) == p.tier {
					p.buf[p.n] = h
					p.n++
				}
			}
		}
		for p.i < p.n {
			h := p.buf[(p.start+uint64(p.i))%uint64(p.n)]
			p.i++
			if h.IsUp() {
				return (*selectedHost)(h)
			}
		}
		p.tier++
		p.loaded = false
	}
	return nil
}
