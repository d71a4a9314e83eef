package gocql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
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
	iter := t.session.internalQuery(traceSessionStmt, traceId).Iter()
	iter.Scan(&coordinator, &duration)
	if err := iter.Close(); err != nil {
		t.mu.Lock()
		fmt.Fprintln(t.w, "Error:", t.readError(traceSessionStmt, err))
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
	iter = t.session.internalQuery(traceEventsStmt, traceId).Iter()
	var eventID UUID
	for iter.Scan(&eventID, &activity, &source, &elapsed, &thread) {
		timestamp = eventID.Time()
		fmt.Fprintf(t.w, "%s: %s [%s] (source: %s, elapsed: %d)\n", timestamp.Format("2006/01/02 15:04:05.999999"), activity, thread, source, elapsed)
	}
	if err := iter.Close(); err != nil {
		fmt.Fprintln(t.w, "Error:", t.readError(traceEventsStmt, err))
	}
}

// The trace writer's reads of system_traces.
const (
	traceSessionStmt = `SELECT coordinator, duration FROM system_traces.sessions WHERE session_id = ?`
	traceEventsStmt  = `SELECT event_id, activity, source, source_elapsed, thread FROM system_traces.events WHERE session_id = ?`
)

// readError is the error the trace writer writes for err, the failure of its read stmt.
// gocql v1.7.0 reads on its control connection, which Session.Close closes, so on a closed
// session its read fails with that connection's error, not ErrSessionClosed: the PREPARE of a
// statement the connection had not prepared yet fails with the connection's cancelled context
// (context.Canceled), the execution of one it had prepared with ErrConnectionClosed.
func (t *traceWriter) readError(stmt string, err error) error {
	if !errors.Is(err, ErrSessionClosed) {
		return err
	}
	if t.session.preparedByText(stmt) == nil {
		return context.Canceled
	}
	return ErrConnectionClosed
}

// prepareTraced is prepare for a statement traced by tracer. As in gocql v1.7.0, the PREPARE
// the statement needs (when it is not prepared yet) is sent traced too, and tracer is given
// its trace id, also when the server refuses the statement.
func (s *Session) prepareTraced(ctx context.Context, stmt string, tracer Tracer) (*preparedInfo, error) {
	if tracer == nil {
		return s.prepare(ctx, stmt)
	}
	if info := s.preparedByText(stmt); info != nil {
		return info, nil // prepared already: no PREPARE is sent, so none is traced
	}
	ctx, cancel := s.prepareContext(ctx)
	defer cancel()
	p, traceID, err := s.native.PrepareTraced(ctx, stmt)
	if traceID != nil {
		tracer.Trace(traceID)
	}
	if err != nil {
		return nil, timedPrepareError(ctx, err)
	}
	return s.remember(p), nil
}

// traceFailure gives tracer the trace id of a failed traced request, when the server sent one
// with its error: gocql v1.7.0 calls the Tracer for every traced response, errors included.
func traceFailure(tracer Tracer, err error) {
	if tracer == nil {
		return
	}
	var re *native.RequestError
	if errors.As(err, &re) && re.Traced {
		id := re.TraceID
		tracer.Trace(id[:])
	}
}
