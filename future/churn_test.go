package future_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// While the nodes of a three-node cluster restart one after another, 16 goroutines page
// through 25 rows three pages at a time in the callback style (the callback starts the next
// page): every read completes with all its rows, the Python driver's default retry policy
// moving requests caught on a stopping node to the next one, and every page fires exactly one
// callback, none lost and none twice. Close then leaves no goroutine behind.
func TestCallbacksSurviveRollingRestarts(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cl, err := cqlsim.Start(cqlsim.Options{Nodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()[:1], Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, cql := range []string{
		"CREATE KEYSPACE churn WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE churn.t (p int, k int, v text, PRIMARY KEY (p, k))",
	} {
		if _, err := sess.Execute(ctx, native.Query(cql)); err != nil {
			t.Fatal(err)
		}
	}
	for k := range 25 {
		if _, err := sess.Execute(ctx, native.Query("INSERT INTO churn.t (p, k, v) VALUES (0, ?, 'v')", int32(k))); err != nil {
			t.Fatal(err)
		}
	}
	stmt := native.Query("SELECT k, v FROM churn.t WHERE p = 0").WithPageSize(10).WithIdempotent(true)
	opts := future.Options{Timeout: 20 * time.Second}

	var fired, pages atomic.Int64 // callbacks and errbacks fired; pages delivered and errors
	got := cqltest.RollingRestarts(t, cl, 16, func(w, i int) (string, error) {
		f := future.ExecuteAsync(ctx, sess, stmt, opts)
		done := make(chan error, 1)
		rows, n := 0, 0
		f.AddCallbacks(func(p future.Page) {
			fired.Add(1)
			rs, err := p.Rows()
			if err != nil {
				done <- err
				return
			}
			rows += len(rs)
			n++
			if f.HasMorePages() {
				if err := f.StartFetchingNextPage(); err != nil {
					done <- err
				}
				return
			}
			done <- nil
		}, func(err error) {
			fired.Add(1)
			done <- err
		})
		err := <-done
		pages.Add(int64(n))
		if err != nil {
			pages.Add(1) // the errback's
			return "", err
		}
		if rows != 25 || n != 3 {
			return "", fmt.Errorf("%d rows in %d pages, want 25 in 3", rows, n)
		}
		return "", nil
	})
	// A callback fired twice, or late, would show here.
	time.Sleep(100 * time.Millisecond)
	if fired.Load() != pages.Load() {
		t.Errorf("%d callbacks and errbacks fired for %d pages and errors", fired.Load(), pages.Load())
	}
	t.Logf("%d paged reads (%d callbacks)", got.OK, fired.Load())
	sess.Close()
	cl.Close()
}
