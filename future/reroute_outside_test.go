package future_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/callbacks"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// With callbacks.PythonReroute, a panic in a callback or errback is re-routed to the errbacks
// only where the Python driver re-routes it: in its response handler (_set_result). A client
// timeout (delivered by its timer thread), a NoHostAvailable (by send_request, on its executor
// after a retry) and a schema change result (on its executor) run the functions outside it, so
// the exception only skips the functions after the raising one: the outcome stays, and no
// errback runs with the panic (legacy semantics A12, A13; conformance scenarios
// fault_errback_raises_on_timeout_python_reroute, fault_errback_raises_no_host_python_reroute,
// schema_change_callback_raises_python_reroute). They were re-routed like a server error.
func TestPythonRerouteOutsideResponseHandler(t *testing.T) {
	noHost := &native.NoHostAvailableError{Errors: []native.HostError{{Host: "h1", Err: errors.New("overloaded")}}}
	for _, tc := range []struct {
		name    string
		page    fakePage
		timeout time.Duration
		isErr   func(error) bool
	}{
		{"client timeout", fakePage{hang: true}, 20 * time.Millisecond, func(err error) bool { return errors.As(err, new(*future.TimeoutError)) }},
		{"NoHostAvailable", fakePage{err: noHost, manual: true}, 0, func(err error) bool { return errors.Is(err, noHost) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &fakeSource{pages: map[string]fakePage{"": tc.page}, notify: true}
			defer src.stop()
			var l log
			opts := future.Options{Timeout: tc.timeout, Callbacks: callbacks.Options{Panics: callbacks.PythonReroute,
				OnPanic: func(pe *callbacks.PanicError) { l.add("reported %v", pe.Value) }}}
			f := future.Start(context.Background(), src, opts)
			f.AddErrback(func(err error) { l.add("eb1 outcome=%v", tc.isErr(err)) })
			f.AddErrback(func(error) { panic("eb2") })
			f.AddErrback(func(err error) { l.add("eb3 outcome=%v", tc.isErr(err)) })
			if tc.timeout == 0 {
				src.release()
			}
			_, err := f.Result()
			if !tc.isErr(err) {
				t.Fatalf("Result = %v; want the page's own error, not the errback's panic", err)
			}
			waitFor(t, &l, 2)
			diff(t, []string{"eb1 outcome=true", "reported eb2"}, l.take())
		})
	}
	t.Run("schema change", func(t *testing.T) {
		src := &fakeSource{pages: map[string]fakePage{"": {kind: future.KindSchemaChange, manual: true}}, notify: true}
		defer src.stop()
		var l log
		opts := future.Options{Callbacks: callbacks.Options{Panics: callbacks.PythonReroute,
			OnPanic: func(pe *callbacks.PanicError) { l.add("reported %v", pe.Value) }}}
		f := future.Start(context.Background(), src, opts)
		f.AddCallback(func(future.Page) { l.add("cb1"); panic("cb1") })
		f.AddCallback(func(future.Page) { l.add("cb2") })
		f.AddErrback(l.eb("eb1"))
		src.release() // with a notifier, the callbacks run inside this call
		diff(t, []string{"cb1", "reported cb1"}, l.take())
		if _, err := f.Result(); err != nil {
			t.Fatalf("Result = %v; want the schema change's result", err)
		}
		f.AddErrback(l.eb("eb2")) // the page succeeded and did not fail: not run
		if got := l.take(); len(got) != 0 {
			t.Fatalf("an errback added afterwards ran: %v", got)
		}
	})
}
