package future

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
)

// QueryTrace is a request's tracing session, read from system_traces (the Python driver's
// QueryTrace).
type QueryTrace struct {
	// TraceID is the tracing session id.
	TraceID []byte
	// Request names the request ("Execute CQL3 query", ...).
	Request string
	// Coordinator is the node that coordinated the request.
	Coordinator netip.Addr
	// Client is the address the request came from.
	Client netip.Addr
	// StartedAt is when the coordinator started the request.
	StartedAt time.Time
	// Duration is the coordinator's total time for the request.
	Duration time.Duration
	// Parameters are the request's parameters (consistency level, page size, query, ...).
	Parameters map[string]string
	// Events are the trace events in the order the server lists them.
	Events []TraceEvent
}

// TraceEvent is one event of a tracing session.
type TraceEvent struct {
	Activity      string
	Source        netip.Addr
	SourceElapsed time.Duration
	Thread        string
}

// ErrTraceUnavailable is wrapped by QueryTrace's error when the trace of a traced page cannot be
// read: the future was not made by ExecuteAsync, or the server did not finish writing the session
// before ctx ended (the Python driver's TraceUnavailable). When nothing was traced QueryTrace
// returns nil, nil, and while a page is in flight it fails with ErrNotDone.
var ErrTraceUnavailable = errors.New("future: trace unavailable")

// QueryTrace reads the latest traced page's tracing session from system_traces, through the
// session the future was made with at LOCAL_ONE (as Python does), waiting (until ctx ends) for the server to finish writing
// it. It returns nil, nil when no page was traced (like Python's get_query_trace) and fails with
// ErrNotDone while a page is in flight.
func (f *ResponseFuture) QueryTrace(ctx context.Context) (*QueryTrace, error) {
	id, err := f.TraceID()
	if err != nil || id == nil {
		return nil, err
	}
	if f.nat.sess == nil {
		return nil, fmt.Errorf("%w: the future has no native session to read system_traces with", ErrTraceUnavailable)
	}
	return readTrace(ctx, f.nat.sess, id)
}

// QueryTraces reads the tracing session of every traced page so far (TraceIDs), in page
// order, as QueryTrace reads the latest: the Python driver's get_all_query_traces. It returns
// an empty slice when nothing was traced and fails with ErrNotDone while a page is in flight.
func (f *ResponseFuture) QueryTraces(ctx context.Context) ([]*QueryTrace, error) {
	if _, err := f.done("query traces"); err != nil {
		return nil, err
	}
	ids := f.TraceIDs()
	out := make([]*QueryTrace, 0, len(ids))
	if len(ids) > 0 && f.nat.sess == nil {
		return nil, fmt.Errorf("%w: the future has no native session to read system_traces with", ErrTraceUnavailable)
	}
	for _, id := range ids {
		tr, err := readTrace(ctx, f.nat.sess, id)
		if err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}

// ReadTrace reads tracing session id (a native.Result's or native.RequestError's TraceID, an
// id of ResponseFuture.TraceIDs) from system_traces through sess at LOCAL_ONE, waiting (until
// ctx ends) for the coordinator to finish writing it, as QueryTrace does.
func ReadTrace(ctx context.Context, sess *native.Session, id []byte) (*QueryTrace, error) {
	if sess == nil {
		return nil, fmt.Errorf("%w: ReadTrace needs a *native.Session", ErrTraceUnavailable)
	}
	if len(id) != 16 {
		return nil, fmt.Errorf("%w: a tracing session id has 16 bytes, not %d", ErrTraceUnavailable, len(id))
	}
	return readTrace(ctx, sess, id)
}

func readTrace(ctx context.Context, sess *native.Session, id []byte) (*QueryTrace, error) {
	tr := &QueryTrace{TraceID: id}
	sessionQ := native.Query("SELECT request, coordinator, client, started_at, duration, parameters FROM system_traces.sessions WHERE session_id = ?", id).WithConsistency(native.LocalOne)
	wait := 5 * time.Millisecond
	for {
		res, err := sess.Execute(ctx, sessionQ)
		if err != nil {
			return nil, fmt.Errorf("%w: reading system_traces.sessions for %x: %w", ErrTraceUnavailable, id, err)
		}
		if row, ok := res.First(); ok {
			var duration *int32
			if err := row.Scan(&tr.Request, &tr.Coordinator, &tr.Client, &tr.StartedAt, &duration, &tr.Parameters); err != nil {
				return nil, fmt.Errorf("future: decoding trace session %x: %w", id, err)
			}
			if duration != nil { // the coordinator writes the duration last
				tr.Duration = time.Duration(*duration) * time.Microsecond
				break
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: trace session %x not complete: %w", ErrTraceUnavailable, id, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
	res, err := sess.Execute(ctx, native.Query("SELECT activity, source, source_elapsed, thread FROM system_traces.events WHERE session_id = ?", id).WithConsistency(native.LocalOne))
	for err == nil {
		for _, row := range res.Rows() {
			var ev TraceEvent
			var elapsed *int32
			var activity, thread *string
			if err := row.Scan(&activity, &ev.Source, &elapsed, &thread); err != nil {
				return nil, fmt.Errorf("future: decoding trace events of %x: %w", id, err)
			}
			if activity != nil {
				ev.Activity = *activity
			}
			if thread != nil {
				ev.Thread = *thread
			}
			if elapsed != nil {
				ev.SourceElapsed = time.Duration(*elapsed) * time.Microsecond
			}
			tr.Events = append(tr.Events, ev)
		}
		if !res.HasMorePages() {
			return tr, nil
		}
		res, err = res.NextPage(ctx)
	}
	return nil, fmt.Errorf("%w: reading system_traces.events for %x: %w", ErrTraceUnavailable, id, err)
}
