package engine

import (
	"encoding/binary"
	"time"
)

// TraceRequest describes a request whose tracing flag was set, for RecordTrace.
type TraceRequest struct {
	Node     int           // index of the coordinator in Options.Nodes
	Client   string        // client IP address
	Command  string        // the trace type: "QUERY" for every client request, as in Cassandra
	Request  string        // e.g. "Execute CQL3 query", "Preparing CQL3 query"
	Query    string        // the statement text, when known
	Started  time.Time     // when the request arrived
	Duration time.Duration // how long it took
}

// RecordTrace stores a trace session and its events in system_traces.sessions and
// system_traces.events, as a Cassandra coordinator does for a traced request, and returns the
// session id to send back in the response's tracing id. Drivers then read the trace from those
// tables (gocql's trace writer, the Python driver's get_query_trace).
func (e *Engine) RecordTrace(tr TraceRequest) [16]byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	var id [16]byte
	copy(id[:], e.newTimeUUID(tr.Started))
	k := e.keyspaces["system_traces"]
	node := NodeInfo{Addr: "127.0.0.1", Port: 9042}
	if tr.Node >= 0 && tr.Node < len(e.opts.Nodes) {
		node = e.opts.Nodes[tr.Node]
	}
	ts := e.nextTimestamp()
	params := map[string]string{"consistency_level": "ONE", "page_size": "5000"}
	if tr.Query != "" {
		params["query"] = tr.Query
	}
	micros := int32(tr.Duration / time.Microsecond)
	writeRow(k.tables["sessions"], ts, map[string][]byte{
		"session_id": id[:], "client": encInet(tr.Client), "command": encText(tr.Command), "coordinator": encInet(node.Addr),
		"coordinator_port": encInt(7000), "duration": encInt(micros), "parameters": encTextMap(params),
		"request": encText(tr.Request), "started_at": binary.BigEndian.AppendUint64(nil, uint64(tr.Started.UnixMilli())),
	})
	for i, activity := range []string{"Parsing " + tr.Query, "Preparing statement", "Request complete"} {
		elapsed := micros * int32(i) / 2
		writeRow(k.tables["events"], ts, map[string][]byte{
			"session_id": id[:], "event_id": e.newTimeUUID(tr.Started.Add(time.Duration(elapsed) * time.Microsecond)),
			"activity": encText(activity), "source": encInet(node.Addr), "source_elapsed": encInt(elapsed),
			"source_port": encInt(7000), "thread": encText("Native-Transport-Requests-1"),
		})
	}
	return id
}

// writeRow inserts a row given by column name into a table's store (e.mu held).
func writeRow(t *table, ts int64, vals map[string][]byte) {
	row := rowOf(t, vals)
	pkv := make([][]byte, len(t.pk))
	for i, c := range t.pk {
		pkv[i] = row[c.idx]
	}
	ckv := make([][]byte, len(t.ck))
	for i, c := range t.ck {
		ckv[i] = row[c.idx]
	}
	p := t.getPartition(pkv, true)
	r := t.getRow(p, ckv, true)
	writeCell(&r.marker, []byte{}, ts, 0, 0, noDeletion)
	for _, c := range t.cols {
		if c.kind == kindRegular && row[c.idx] != nil {
			writeCell(&r.cells[c.idx], row[c.idx], ts, 0, 0, noDeletion)
		}
	}
}
