package native_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

func TestServerErrorsAreTyped(t *testing.T) {
	s, ks := connect(t)
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text)")

	_, err := s.Execute(ctxT(t), native.Query("SELEKT * FROM kv"))
	var syn *native.SyntaxError
	if !errors.As(err, &syn) || syn.Code != native.CodeSyntax || syn.Host == "" || syn.Message == "" {
		t.Errorf("syntax error: %#v", err)
	}
	_, err = s.Execute(ctxT(t), native.Query("SELECT nope FROM kv"))
	var inv *native.InvalidError
	if !errors.As(err, &inv) {
		t.Errorf("invalid query: %#v", err)
	}
	_, err = s.Prepare(ctxT(t), "SELECT * FROM missing_table")
	if !errors.As(err, &inv) {
		t.Errorf("preparing on a missing table: %#v", err)
	}
	_, err = s.Execute(ctxT(t), native.Query("CREATE TABLE kv (k int PRIMARY KEY)"))
	var ae *native.AlreadyExistsError
	if !errors.As(err, &ae) || ae.Keyspace != ks || ae.Table != "kv" {
		t.Errorf("already exists: %#v", err)
	}
	_, err = s.Execute(ctxT(t), native.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"))
	if !errors.As(err, &ae) || ae.Keyspace != ks || ae.Table != "" {
		t.Errorf("keyspace already exists: %#v", err)
	}
	var re *native.RequestError
	if !errors.As(err, &re) || re.Code != native.CodeAlreadyExists {
		t.Errorf("every server error should unwrap to a RequestError: %#v", err)
	}
	_, err = s.Execute(ctxT(t), native.Query("CREATE TABLE bad (k int PRIMARY KEY) WITH nonsense_option = 1"))
	var ce *native.ConfigError
	if !errors.As(err, &ce) && !errors.As(err, &syn) {
		t.Errorf("bad table option: %#v", err)
	}
}

func TestUnavailableCarriesFields(t *testing.T) {
	s, _ := connect(t)
	hosts := cqltest.Hosts(t)
	rf3 := cqltest.KeyspaceName(t)
	adminExec(t, hosts, "CREATE KEYSPACE "+rf3+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	t.Cleanup(func() { _ = adminExecErr(hosts, "DROP KEYSPACE IF EXISTS "+rf3) })
	adminExec(t, hosts, "CREATE TABLE "+rf3+".kv (k int PRIMARY KEY, v text)")
	if len(s.Hosts()) >= 3 {
		t.Skip("needs a cluster of fewer than 3 nodes")
	}
	_, err := s.Execute(ctxT(t), native.Query("INSERT INTO "+rf3+".kv (k, v) VALUES (1, 'x')").WithConsistency(native.Quorum))
	var ue *native.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("want UnavailableError, got %#v", err)
	}
	if ue.Consistency != native.Quorum || ue.Required != 2 || ue.Alive != len(s.Hosts()) {
		t.Errorf("fields: %+v", ue)
	}
	if !strings.Contains(err.Error(), "required 2") {
		t.Errorf("message: %v", err)
	}
	// Without an explicit level the session default, LOCAL_QUORUM, applies.
	_, err = s.Execute(ctxT(t), native.Query("INSERT INTO "+rf3+".kv (k, v) VALUES (1, 'x')"))
	if !errors.As(err, &ue) || ue.Consistency != native.LocalQuorum || native.DefaultConsistency != native.LocalQuorum {
		t.Errorf("default consistency: %v", err)
	}
}

// stubRetry records the errors it sees and always asks for the next host.
type stubRetry struct{ calls atomic.Int32 }

func (r *stubRetry) Retry(_ context.Context, a *native.Attempt) native.RetryDecision {
	r.calls.Add(1)
	return native.RetryDecision{Action: native.RetryNextHost}
}

func TestRetryPolicyAndNoHostAvailable(t *testing.T) {
	rp := &stubRetry{}
	s, _ := connect(t, func(c *native.Config) { c.RetryPolicy = rp })
	hosts := cqltest.Hosts(t)
	rf3 := cqltest.KeyspaceName(t)
	adminExec(t, hosts, "CREATE KEYSPACE "+rf3+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	t.Cleanup(func() { _ = adminExecErr(hosts, "DROP KEYSPACE IF EXISTS "+rf3) })
	adminExec(t, hosts, "CREATE TABLE "+rf3+".kv (k int PRIMARY KEY)")
	if len(s.Hosts()) >= 3 {
		t.Skip("needs a cluster of fewer than 3 nodes")
	}
	_, err := s.Execute(ctxT(t), native.Query("INSERT INTO "+rf3+".kv (k) VALUES (1)").WithConsistency(native.All))
	var nh *native.NoHostAvailableError
	if !errors.As(err, &nh) || len(nh.Errors) != len(s.Hosts()) {
		t.Fatalf("want NoHostAvailableError with one error per host, got %#v", err)
	}
	var ue *native.UnavailableError
	if !errors.As(err, &ue) {
		t.Errorf("the per-host causes should be reachable with errors.As: %v", err)
	}
	if int(rp.calls.Load()) != len(s.Hosts()) {
		t.Errorf("retry policy called %d times", rp.calls.Load())
	}
	// A statement's own policy replaces the session's.
	own := &stubRetry{}
	_, err = s.Execute(ctxT(t), native.Query("INSERT INTO "+rf3+".kv (k) VALUES (1)").WithConsistency(native.All).WithRetryPolicy(own))
	if own.calls.Load() == 0 || !errors.As(err, &nh) {
		t.Errorf("statement retry policy: %d calls, %v", own.calls.Load(), err)
	}
	// A syntax error is a server error too, but retrying it on the next host fails the same way.
	if _, err := s.Execute(ctxT(t), native.Query("SELEKT")); err == nil {
		t.Error("syntax error succeeded")
	}
}

func TestConnectErrors(t *testing.T) {
	ctx := ctxT(t)
	if _, err := native.Connect(ctx, native.Config{}); err == nil {
		t.Error("Connect without hosts succeeded")
	}
	if _, err := native.Connect(ctx, native.Config{Hosts: []string{"127.0.0.1"}, Compression: "zip"}); err == nil {
		t.Error("unknown compression accepted")
	}
	if _, err := native.Connect(ctx, native.Config{Hosts: []string{"127.0.0.1"}, ProtocolVersion: 2}); err == nil {
		t.Error("protocol v2 accepted")
	}
	_, err := native.Connect(ctx, native.Config{Hosts: []string{"127.0.0.1:1", "127.0.0.1:2"}})
	var nh *native.NoHostAvailableError
	if !errors.As(err, &nh) || len(nh.Errors) != 2 || nh.Errors[0].Host != "127.0.0.1:1" {
		t.Errorf("unreachable contact points: %#v", err)
	}
}
