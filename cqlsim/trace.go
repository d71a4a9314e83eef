package cqlsim

import (
	"encoding/binary"
	"net"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/engine"
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/wire"
)

// Request descriptions Cassandra writes in system_traces.sessions.request, by request type.
const (
	traceQuery   = "Execute CQL3 query"
	traceExecute = "Execute CQL3 prepared query"
	traceBatch   = "Execute batch of CQL3 queries"
	tracePrepare = "Preparing CQL3 query"
)

// recordTrace stores the trace of a statement request that asked for tracing (QUERY, PREPARE,
// EXECUTE or BATCH with the tracing flag) in system_traces, as a Cassandra coordinator does,
// and returns its session id. Unlike Cassandra, which writes the trace asynchronously, the rows
// are in place before the response is sent.
func (c *conn) recordTrace(req *wire.Request, started time.Time) [16]byte {
	eng := c.node.cluster.engine
	// Cassandra's trace type of every client request is QUERY.
	tr := engine.TraceRequest{Node: c.node.index, Client: clientIP(c.nc.RemoteAddr()), Command: "QUERY", Started: started}
	switch {
	case req.Prepare != nil:
		tr.Request, tr.Query = tracePrepare, req.Prepare.Query
	case req.Query != nil:
		tr.Request, tr.Query = traceQuery, req.Query.Query
	case req.Execute != nil:
		tr.Request = traceExecute
		if p, ok := eng.Lookup(req.Execute.ID); ok {
			tr.Query = p.Query
		}
	case req.Batch != nil:
		tr.Request = traceBatch
	}
	tr.Duration = time.Since(started)
	return eng.RecordTrace(tr)
}

// clientIP returns the IP address of a client's remote address ("127.0.0.1" when it has none).
func clientIP(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok && t.IP != nil {
		return t.IP.String()
	}
	return "127.0.0.1"
}

// replyTraced queues the response to a traced request: the same frame as without tracing (with
// the custom payload, when set: see encodeResult), with the tracing flag and the trace's
// session id. Errors are traced too, as in Cassandra.
func (c *conn) replyTraced(h wire.Header, msg message.Message, rows rowsReply, warnings []string, payload []byte, id [16]byte) {
	if b := c.encodeResult(h, msg, rows, warnings, payload); b != nil {
		c.send(outFrame{b: withTracingID(b, id)})
	}
}

// withTracingID returns a copy of the response frame b (protocol v3 or later) with the tracing
// flag set and id at the start of the body, where the protocol puts it (before the warnings and
// the custom payload).
func withTracingID(b []byte, id [16]byte) []byte {
	const hl = wire.MaxHeaderLen // v3+ header
	out := make([]byte, 0, len(b)+len(id))
	out = append(out, b[:hl]...)
	out = append(out, id[:]...)
	out = append(out, b[hl:]...)
	out[1] |= wire.FlagTracing
	binary.BigEndian.PutUint32(out[5:hl], uint32(len(out)-hl))
	return out
}
