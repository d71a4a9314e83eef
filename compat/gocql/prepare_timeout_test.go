package gocql

import (
	"errors"
	"io"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// A statement's PREPARE is bounded by ClusterConfig.Timeout, as every request of gocql
// v1.7.0 on a connection is: a node that does not answer it fails the query with
// ErrTimeoutNoResponse after Timeout, in both drivers, instead of holding it until the node
// answers. The same for a batch entry and for a traced query (whose PREPARE is traced).
func TestPrepareBoundedByTimeoutLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	const timeout, delay = 300 * time.Millisecond, 20 * time.Second
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Timeout, l.Timeout = timeout, timeout
	})
	if err := sim.SetNodeDelay(0, delay); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sim.SetNodeDelay(0, 0) }()
	check := func(what string, run func() error, want error) {
		t.Helper()
		start := time.Now()
		err := run()
		if took := time.Since(start); took >= delay {
			t.Errorf("%s: returned after %v, when the node answered (Timeout %v)", what, took, timeout)
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
	}
	check("gocql query", func() error {
		return ls.Query("SELECT key FROM system.local WHERE key = ?", "gocql").Exec()
	}, gocqlv1.ErrTimeoutNoResponse)
	check("compat query", func() error {
		return s.Query("SELECT key FROM system.local WHERE key = ?", "compat").Exec()
	}, ErrTimeoutNoResponse)
	check("compat traced query", func() error {
		return s.Query("SELECT key FROM system.local WHERE key = ? ", "traced").Trace(NewTraceWriter(s, io.Discard)).Exec()
	}, ErrTimeoutNoResponse)
	check("compat batch", func() error {
		b := s.NewBatch(UnloggedBatch)
		b.Query("INSERT INTO system.local (key) VALUES (?)", "x") // never reaches the server
		return s.ExecuteBatch(b)
	}, ErrTimeoutNoResponse)
}
