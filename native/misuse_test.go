package native_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// Misuse an application can fall into fails with an error, without a panic, a hang or a
// request sent: Bind on a nil or zero *Prepared (a Prepare error not checked), in a request
// and in a batch (a zero Statement, empty CQL, goes to the server, which refuses it, as
// gocql's does); a zero Pending (no Async method returned it); a nil
// OnDone function; a NoHostAvailableError built with a nil host error.
func TestMisuseFailsCleanly(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var nilPrepared *native.Prepared
	for name, st := range map[string]native.Statement{
		"Bind on nil Prepare": nilPrepared.Bind(1),
		"Bind on a zero one":  (&native.Prepared{}).Bind(1),
	} {
		var be *native.BindError
		if _, err := s.Execute(ctxT(t), st); !errors.As(err, &be) {
			t.Errorf("%s: %v, want a BindError (nothing sent)", name, err)
		}
		if _, err := s.ExecuteBatch(ctxT(t), native.NewBatch(native.UnloggedBatch, native.Query("INSERT INTO system.local (key) VALUES ('x')"), st)); !errors.As(err, &be) {
			t.Errorf("%s in a batch: %v, want a BindError (nothing sent)", name, err)
		} else if msg := err.Error(); strings.Count(msg, "native:") != 1 {
			t.Errorf("%s in a batch: %q, want one \"native:\" prefix", name, msg)
		}
	}

	if _, err := s.Execute(ctxT(t), native.Statement{}); err == nil {
		t.Error("the zero Statement (empty CQL): no error from the server")
	}

	var zero native.Pending
	if _, err := zero.Result(); err == nil {
		t.Error("a zero Pending's Result: no error")
	}
	<-zero.Done() // closed: does not block
	ran := false
	zero.OnDone(func() { ran = true })
	if !ran {
		t.Error("OnDone on a zero Pending did not run its function")
	}
	p := s.ExecuteAsync(ctxT(t), native.Query("SELECT key FROM system.local"))
	p.OnDone(nil) // ignored
	if _, err := p.Result(); err != nil {
		t.Fatal(err)
	}
	p.OnDone(nil)

	nh := &native.NoHostAvailableError{Errors: []native.HostError{{Host: "10.0.0.1:9042"}}}
	if got := nh.Error(); got == "" {
		t.Error("empty message")
	}
}

// A Session that Connect did not make (the zero value, a field of a struct never connected)
// fails every call with ErrNotConnected, and closes without a panic. Every request method
// panicked with a nil dereference deep in routing (ExecuteAsync and ExecuteBatchAsync in a
// worker goroutine, ending the program), as did Prepare, AwaitSchemaAgreement, Keyspace and
// Close.
func TestZeroSessionNotConnected(t *testing.T) {
	ctx := ctxT(t)
	var s native.Session
	batch := native.NewBatch(native.UnloggedBatch, native.Query("INSERT INTO ks.t (k) VALUES (1)"))
	calls := map[string]func() error{
		"Execute": func() error { _, err := s.Execute(ctx, native.Query("SELECT key FROM system.local")); return err },
		"ExecuteAsync": func() error {
			_, err := s.ExecuteAsync(ctx, native.Query("SELECT key FROM system.local")).Result()
			return err
		},
		"ExecuteBatch":      func() error { _, err := s.ExecuteBatch(ctx, batch); return err },
		"ExecuteBatchAsync": func() error { _, err := s.ExecuteBatchAsync(ctx, batch).Result(); return err },
		"Prepare":           func() error { _, err := s.Prepare(ctx, "SELECT key FROM system.local"); return err },
		"PrepareTraced":     func() error { _, _, err := s.PrepareTraced(ctx, "SELECT key FROM system.local"); return err },
		"Iter": func() error {
			for _, err := range s.Iter(ctx, native.Query("SELECT key FROM system.local")) {
				return err
			}
			return nil
		},
		"AwaitSchemaAgreement": func() error { return s.AwaitSchemaAgreement(ctx) },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, native.ErrNotConnected) {
			t.Errorf("%s on the zero Session: %v, want ErrNotConnected", name, err)
		}
	}
	if ks, hosts := s.Keyspace(), s.Hosts(); ks != "" || hosts != nil {
		t.Errorf("Keyspace() = %q, Hosts() = %v, want none", ks, hosts)
	}
	for range 2 {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if _, err := s.Execute(ctx, native.Query("SELECT key FROM system.local")); !errors.Is(err, native.ErrSessionClosed) {
		t.Errorf("Execute after Close: %v, want ErrSessionClosed", err)
	}
}

// A batch statement whose values cannot be bound is named by its index, and the error
// reads with one "native:" prefix (it read "native: batch statement 1: native: binding
// ..."), still a *BindError for errors.As.
func TestBatchBindErrorHasOnePrefix(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := native.NewBatch(native.UnloggedBatch,
		native.Query("INSERT INTO system.local (key) VALUES ('x')"),
		native.Query("INSERT INTO system.local (key) VALUES (?)", make(chan int)))
	_, err = s.ExecuteBatch(ctxT(t), b)
	var be *native.BindError
	if !errors.As(err, &be) {
		t.Fatalf("ExecuteBatch: %v, want a BindError", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "native: batch statement 1: binding ") || strings.Count(msg, "native:") != 1 {
		t.Errorf("error %q: want one prefix, then the statement's index, then the binding error", msg)
	}
}
