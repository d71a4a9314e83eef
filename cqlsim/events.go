package cqlsim

import (
	"net"
	"sync"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// Event type bits of conn.events.
const (
	eventTopology uint32 = 1 << iota
	eventStatus
	eventSchema
)

// eventHub knows the connections that registered for events, on every node.
type eventHub struct {
	mu    sync.Mutex
	conns map[*conn]struct{}
}

func newEventHub() *eventHub { return &eventHub{conns: make(map[*conn]struct{})} }

func (e *eventHub) add(c *conn) {
	e.mu.Lock()
	e.conns[c] = struct{}{}
	e.mu.Unlock()
}

func (e *eventHub) remove(c *conn) {
	e.mu.Lock()
	delete(e.conns, c)
	e.mu.Unlock()
}

// publish pushes an event on stream -1 to every connection registered for its type, encoded in
// each connection's protocol version. A connection whose send queue is full misses the event
// (logged), so a client that stops reading cannot stall the statement that caused the event.
func (e *eventHub) publish(bit uint32, ev message.Message) {
	e.mu.Lock()
	targets := make([]*conn, 0, len(e.conns))
	for c := range e.conns {
		if c.events.Load()&bit != 0 {
			targets = append(targets, c)
		}
	}
	e.mu.Unlock()
	encoded := map[uint32][]byte{}
	for _, c := range targets {
		v := c.version.Load()
		b, ok := encoded[v]
		if !ok {
			var err error
			b, err = encodeFrame(wire.Header{Version: uint8(v), Stream: -1}, ev, nil)
			if err != nil {
				c.log.Warn("cqlsim: cannot encode event", "err", err)
				continue
			}
			encoded[v] = b
		}
		if !c.trySend(outFrame{b: b}) {
			c.log.Warn("cqlsim: event dropped: the connection's send queue is full")
		}
	}
}

// register handles REGISTER: it records the event types and answers READY.
func (c *conn) register(h wire.Header, types []string) {
	var bits uint32
	for _, t := range types {
		switch t {
		case string(primitive.EventTypeTopologyChange):
			bits |= eventTopology
		case string(primitive.EventTypeStatusChange):
			bits |= eventStatus
		case string(primitive.EventTypeSchemaChange):
			bits |= eventSchema
		default:
			c.protocolError(h, "Invalid value '"+t+"' for Type") // Cassandra's words
			return
		}
	}
	c.events.Or(bits)
	c.node.cluster.events.add(c)
	c.reply(h, &message.Ready{}, nil)
}

// publishStatusChange pushes STATUS_CHANGE for node n's address to the registered connections.
func (c *Cluster) publishStatusChange(n *node, change primitive.StatusChangeType) {
	tcp, err := net.ResolveTCPAddr("tcp4", n.addr)
	if err != nil {
		c.opts.Logger.Warn("cqlsim: cannot resolve a node address for an event", "node", n.addr, "err", err)
		return
	}
	c.events.publish(eventStatus, &message.StatusChangeEvent{
		ChangeType: change,
		Address:    &primitive.Inet{Addr: tcp.IP.To4(), Port: int32(tcp.Port)},
	})
}

// publishSchemaChange pushes the SCHEMA_CHANGE event for a DDL result.
func (c *Cluster) publishSchemaChange(sc *engine.SchemaChange) {
	c.events.publish(eventSchema, &message.SchemaChangeEvent{
		ChangeType: primitive.SchemaChangeType(sc.Change),
		Target:     primitive.SchemaChangeTarget(sc.Target),
		Keyspace:   sc.Keyspace,
		Object:     sc.Name,
	})
}
