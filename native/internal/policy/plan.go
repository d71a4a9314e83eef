package policy

import "slices"

// Plan yields node indexes for one request: the replicas of its partition first (when
// known), then every other node, each group starting at a rotating offset so that load
// spreads evenly. When a node is marked remote (another data center than the local one),
// all local nodes come before any remote one.
type Plan struct {
	replicas []int32 // replicas of the partition, primary first; may be nil
	remote   []bool  // remote[i] marks node i as remote; nil when every node is local
	nodes    int
	start    int
	inOrder  bool // replicas are offered in ring order (InOrder)
	phase    int  // 0 local replicas, 1 local others, 2 remote replicas, 3 remote others
	k        int  // position within the phase
}

// NewPlan returns a plan over nodes nodes that tries replicas first. start rotates the order
// (pass a counter incremented per request); remote, when not nil, has one entry per node.
func NewPlan(replicas []int32, nodes int, remote []bool, start uint64) Plan {
	s := 0
	if nodes > 0 {
		s = int(start % uint64(nodes))
	}
	return Plan{replicas: replicas, remote: remote, nodes: nodes, start: s}
}

// InOrder makes the plan offer the replicas in ring order, the primary replica first, instead
// of from the rotating offset: for lightweight transactions, whose Paxos rounds contend when
// several coordinators run them on one partition at once. Call it before Next.
func (p *Plan) InOrder() { p.inOrder = true }

func (p *Plan) isRemote(n int) bool { return p.remote != nil && n < len(p.remote) && p.remote[n] }

// Next returns the next node to try, and false when every node has been offered once.
func (p *Plan) Next() (node int, ok bool) {
	for p.phase < 4 {
		wantRemote := p.phase >= 2
		if p.phase%2 == 0 {
			first := p.start
			if p.inOrder {
				first = 0
			}
			for p.k < len(p.replicas) {
				n := int(p.replicas[(first+p.k)%len(p.replicas)])
				p.k++
				if n < p.nodes && p.isRemote(n) == wantRemote {
					return n, true
				}
			}
		} else {
			for p.k < p.nodes {
				n := (p.start + p.k) % p.nodes
				p.k++
				if p.isRemote(n) == wantRemote && !slices.Contains(p.replicas, int32(n)) {
					return n, true
				}
			}
		}
		p.phase++
		p.k = 0
	}
	return -1, false
}
