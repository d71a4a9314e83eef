package cqlsim

import (
	"errors"
	"net"
	"sync"
)

// node is one simulated node: a listener and the connections it accepted.
type node struct {
	cluster *Cluster
	index   int
	addr    string
	ln      net.Listener

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool
	wg     sync.WaitGroup // accept loop and connection goroutines
}

func newNode(c *Cluster, index int, ln net.Listener) *node {
	return &node{cluster: c, index: index, addr: ln.Addr().String(), ln: ln, conns: make(map[*conn]struct{})}
}

func (n *node) start() {
	n.wg.Add(1)
	go n.acceptLoop()
}

func (n *node) acceptLoop() {
	defer n.wg.Done()
	log := n.cluster.opts.Logger
	for {
		nc, err := n.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				log.Warn("cqlsim: accept failed; node stops accepting", "node", n.addr, "err", err)
			}
			return
		}
		c := newConn(n, nc)
		n.mu.Lock()
		if n.closed {
			n.mu.Unlock()
			_ = nc.Close()
			return
		}
		n.conns[c] = struct{}{}
		n.wg.Add(2)
		n.mu.Unlock()
		log.Debug("cqlsim: connection accepted", "node", n.addr, "client", nc.RemoteAddr().String())
		go c.readLoop()
		go c.writeLoop()
	}
}

// forget removes a finished connection from the node's set.
func (n *node) forget(c *conn) {
	n.mu.Lock()
	delete(n.conns, c)
	n.mu.Unlock()
}

// close stops the listener, closes every connection and waits for their goroutines.
func (n *node) close() error {
	n.mu.Lock()
	n.closed = true
	conns := make([]*conn, 0, len(n.conns))
	for c := range n.conns {
		conns = append(conns, c)
	}
	n.mu.Unlock()
	err := n.ln.Close()
	for _, c := range conns {
		c.shutdown()
	}
	n.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}
