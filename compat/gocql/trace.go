package gocql

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Tracer receives the tracing session id of every traced request.
type Tracer interface {
	Trace(traceId []byte)
}

type traceWriter struct {
	session *Session
	w       io.Writer
	mu      sync.Mutex
}

// NewTraceWriter returns a Tracer that reads each trace from system_traces and writes it to
// w in gocql's format.
func NewTraceWriter(session *Session, w io.Writer) Tracer {
	return &traceWriter{session: session, w: w}
}

// Trace writes the session and events of trace traceId.
func (t *traceWriter) Trace(traceId []byte) {
	var (
		coordinator string
		duration    int
	)
	iter := t.session.Query(`SELECT coordinator, duration FROM system_traces.sessions WHERE session_id = ?`, traceId).
		Consistency(One).Iter()
	iter.Scan(&coordinator, &duration)
	if err := iter.Close(); err != nil {
		t.mu.Lock()
		fmt.Fprintln(t.w, "Error:", err)
		t.mu.Unlock()
		return
	}
	var (
		timestamp time.Time
		activity  string
		source    string
		elapsed   int
		thread    string
	)
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "Tracing session %016x (coordinator: %s, duration: %v):\n",
		traceId, coordinator, time.Duration(duration)*time.Microsecond)
	iter = t.session.Query(`SELECT event_id, activity, source, source_elapsed, thread FROM system_traces.events WHERE session_id = ?`, traceId).
		Consistency(One).Iter()
	var eventID UUID
	for iter.Scan(&eventID, &activity, &source, &elapsed, &thread) {
		timestamp = eventID.Time()
		fmt.Fprintf(t.w, "%s: %s [%s] (source: %s, elapsed: %d)\n", timestamp.Format("2006/01/02 15:04:05.999999"), activity, thread, source, elapsed)
	}
	if err := iter.Close(); err != nil {
		fmt.Fprintln(t.w, "Error:", err)
	}
}
