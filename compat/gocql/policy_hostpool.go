package gocql

import (
	"sync"

	"github.com/hailocab/go-hostpool"
)

// HostPoolHostPolicy is a host selection policy that lets a hailocab/go-hostpool HostPool choose
// the host of each attempt (for example an epsilon-greedy pool that favours fast hosts). The
// outcome of every attempt is reported back to the pool through SelectedHost.Mark.
func HostPoolHostPolicy(hp hostpool.HostPool) HostSelectionPolicy {
	return &hostPoolPolicy{pool: hp, byAddr: map[string]*HostInfo{}}
}

type hostPoolPolicy struct {
	pool   hostpool.HostPool
	mu     sync.RWMutex
	byAddr map[string]*HostInfo // connect address -> host
}

func (p *hostPoolPolicy) Init(*Session)                       {}
func (p *hostPoolPolicy) KeyspaceChanged(KeyspaceUpdateEvent) {}
func (p *hostPoolPolicy) SetPartitioner(string)               {}
func (p *hostPoolPolicy) IsLocal(*HostInfo) bool              { return true }
func (p *hostPoolPolicy) HostUp(h *HostInfo)                  { p.AddHost(h) }
func (p *hostPoolPolicy) HostDown(h *HostInfo)                { p.RemoveHost(h) }

// AddHost adds h to the pool's host list (once).
func (p *hostPoolPolicy) AddHost(h *HostInfo) {
	addr := h.ConnectAddress().String()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byAddr[addr] != nil {
		return
	}
	p.byAddr[addr] = h
	p.syncPool()
}

// RemoveHost drops h from the pool's host list.
func (p *hostPoolPolicy) RemoveHost(h *HostInfo) {
	addr := h.ConnectAddress().String()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.byAddr[addr]; !ok {
		return
	}
	delete(p.byAddr, addr)
	p.syncPool()
}

// SetHosts replaces the policy's hosts, and its pool's, by hosts.
func (p *hostPoolPolicy) SetHosts(hosts []*HostInfo) {
	byAddr := make(map[string]*HostInfo, len(hosts))
	for _, h := range hosts {
		byAddr[h.ConnectAddress().String()] = h
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byAddr = byAddr
	p.syncPool()
}

// syncPool hands the current address list to the pool; p.mu must be held.
func (p *hostPoolPolicy) syncPool() {
	addrs := make([]string, 0, len(p.byAddr))
	for a := range p.byAddr {
		addrs = append(addrs, a)
	}
	p.pool.SetHosts(addrs)
}

// Pick returns a plan that asks the pool for a host on every call; it ends (nil) when the pool
// has no hosts or names one the policy does not know.
func (p *hostPoolPolicy) Pick(ExecutableQuery) NextHost {
	return func() SelectedHost {
		p.mu.RLock()
		defer p.mu.RUnlock()
		if len(p.byAddr) == 0 {
			return nil
		}
		resp := p.pool.Get()
		h := p.byAddr[resp.Host()]
		if h == nil {
			return nil
		}
		return hostPoolSelection{policy: p, host: h, resp: resp}
	}
}

// hostPoolSelection reports an attempt's outcome to the pool.
type hostPoolSelection struct {
	policy *hostPoolPolicy
	host   *HostInfo
	resp   hostpool.HostPoolResponse
}

func (s hostPoolSelection) Info() *HostInfo { return s.host }

// Mark reports err to the pool, unless the host left the policy since the plan named it (it
// went down): go-hostpool's pools end the program (log.Fatalf) on the outcome of a host they
// no longer have, and gocql v1.7.0 drops it too.
func (s hostPoolSelection) Mark(err error) {
	addr := s.host.ConnectAddress().String()
	s.policy.mu.RLock()
	defer s.policy.mu.RUnlock()
	if s.policy.byAddr[addr] == nil {
		return
	}
	s.resp.Mark(err)
}
