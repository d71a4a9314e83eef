package native_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"go.uber.org/goleak"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// awaitPending waits for p, failing t after d: a request that never completes fails the test
// instead of hanging it.
func awaitPending(t *testing.T, p *native.Pending, d time.Duration) (*native.Result, error) {
	t.Helper()
	select {
	case <-p.Done():
		return p.Result()
	case <-time.After(d):
		t.Fatalf("the request did not complete within %v", d)
		return nil, nil
	}
}

// Asynchronous requests with a context that never ends run without a goroutine: the
// connection's reader completes them (no worker is ever started), with the right rows, pages,
// errors and schema changes.
func TestDetachedRequests(t *testing.T) {
	s, _ := connect(t, func(c *native.Config) { c.ConnsPerHost = 1 })
	native.SetAsyncTrimTick(s, time.Millisecond) // workers end soon after they go idle
	bg := context.Background()
	// A schema change answers with a SCHEMA_CHANGE result, which goes on in a worker (the wait
	// for schema agreement blocks).
	if res, err := awaitPending(t, s.ExecuteAsync(bg, native.Query("CREATE TABLE kv (k int PRIMARY KEY, v text)")), 30*time.Second); err != nil || res.Kind() != native.ResultSchemaChange {
		t.Fatalf("CREATE TABLE: %v, %v", res, err)
	}
	pollUntil(t, 10*time.Second, "the schema change's worker did not end", func() bool { return native.AsyncIdleWorkers(s) == 0 })

	ins := mustPrepare(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)")
	sel := mustPrepare(t, s, "SELECT v FROM kv WHERE k = ?")
	const n = 2000
	pending := make([]*native.Pending, n)
	for i := range n {
		pending[i] = s.ExecuteAsync(bg, ins.Bind(i, fmt.Sprint("v", i)))
	}
	for i, p := range pending {
		if _, err := awaitPending(t, p, 30*time.Second); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
	for i := range n {
		pending[i] = s.ExecuteAsync(bg, sel.Bind(i))
	}
	for i, p := range pending {
		res, err := awaitPending(t, p, 30*time.Second)
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		v, err := native.ScanOne[string](res)
		if err != nil || v != fmt.Sprint("v", i) {
			t.Fatalf("read %d: %q, %v", i, v, err)
		}
	}
	// Pages, each fetched asynchronously.
	res, err := awaitPending(t, s.ExecuteAsync(bg, native.Query("SELECT k FROM kv").WithPageSize(300)), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Len()
	for res.HasMorePages() {
		if res, err = awaitPending(t, res.NextPageAsync(bg), 30*time.Second); err != nil {
			t.Fatal(err)
		}
		rows += res.Len()
	}
	if rows != n {
		t.Errorf("%d rows over the pages, want %d", rows, n)
	}
	// A server error.
	_, err = awaitPending(t, s.ExecuteAsync(bg, native.Query("SELEKT 1")), 30*time.Second)
	var syn *native.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("SELEKT: %v, want a *SyntaxError", err)
	}
	// The error went on in a worker; everything else ran on none.
	if got := native.AsyncIdleWorkers(s); got > 1 {
		t.Errorf("%d idle workers after %d requests without a goroutine and one error", got, 2*n)
	}
}

// A request answered with a retryable error goes on in a worker, from its first attempt: the
// retry policy sends it to the next node, and it succeeds there.
func TestDetachedRetryOnAnotherNode(t *testing.T) {
	var asked atomic.Int32
	policy := funcRetry(func(ctx context.Context, a *native.Attempt) native.RetryDecision {
		asked.Add(1)
		return native.NextHostRetry{MaxRetries: 2}.Retry(ctx, a)
	})
	cl, s := simClusterSession(t, cqlsim.Options{Nodes: 3}, func(c *native.Config) {
		c.RetryPolicy = policy
		c.Routing = native.RoundRobin
	})
	bg := context.Background()
	mustExec(t, s, "CREATE KEYSPACE dr WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
	mustExec(t, s, "CREATE TABLE dr.t (k int PRIMARY KEY, v int)")
	mustExec(t, s, "INSERT INTO dr.t (k, v) VALUES (1, 7)")
	for _, addr := range cl.Addrs() {
		pollUntil(t, 10*time.Second, "node "+addr+" never served", func() bool {
			_, err := s.Execute(bg, native.Query("SELECT release_version FROM system.local").WithHost(addr))
			return err == nil
		})
	}
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "FROM dr.t", Error: &message.Overloaded{ErrorMessage: "busy"}}); err != nil {
		t.Fatal(err)
	}
	sel := mustPrepare(t, s, "SELECT v FROM dr.t WHERE k = ?")
	for i := range 12 { // every node comes first in some plans
		res, err := awaitPending(t, s.ExecuteAsync(bg, sel.Bind(1).WithIdempotent(true)), 30*time.Second)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if v, err := native.ScanOne[int](res); err != nil || v != 7 {
			t.Fatalf("request %d: %d, %v", i, v, err)
		}
	}
	if asked.Load() == 0 {
		t.Error("the retry policy was never asked: no request met the overloaded node first")
	}
}

// The request timeout (one the coarse clock checks) ends a request the node does not answer.
func TestDetachedTimeout(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{}, func(c *native.Config) { c.Timeout = time.Second })
	mustExec(t, s, "CREATE KEYSPACE dt WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE dt.t (k int PRIMARY KEY)")
	if err := cl.InjectFault(0, cqlsim.Fault{Match: "FROM dt.t", Delay: 5 * time.Second, Times: 1}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := awaitPending(t, s.ExecuteAsync(context.Background(), native.Query("SELECT k FROM dt.t")), 30*time.Second)
	if !errors.Is(err, native.ErrTimeout) {
		t.Fatalf("a request the node held back 5s: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("the 1s timeout ended the request after %v", d)
	}
	// The connection serves the next one.
	if _, err := awaitPending(t, s.ExecuteAsync(context.Background(), native.Query("SELECT k FROM dt.t")), 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// OnDone hooks of a request completed by the connection's reader run elsewhere: a hook may wait
// for another request on the same connection (in the reader it would wait for itself).
func TestDetachedOnDoneMayWaitForRequests(t *testing.T) {
	s, _ := connect(t, func(c *native.Config) { c.ConnsPerHost = 1 })
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
	bg := context.Background()
	done := make(chan error, 10)
	for i := range 10 {
		p := s.ExecuteAsync(bg, native.Query("INSERT INTO kv (k, v) VALUES (?, ?)", int32(i), int32(i)))
		p.OnDone(func() {
			_, err := s.Execute(bg, native.Query("SELECT v FROM kv WHERE k = ?", int32(i)))
			done <- err
		})
	}
	for range 10 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a hook waiting for a request never returned")
		}
	}
}

// Close completes every request in flight without a goroutine, and leaves no goroutine.
func TestDetachedRequestsAtClose(t *testing.T) {
	defer goleak.VerifyNone(t, append(cqltest.GoleakOptions(), goleak.IgnoreCurrent())...)
	cl := cqlsim.StartT(t, cqlsim.Options{})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), ConnsPerHost: 1})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "CREATE KEYSPACE dc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE dc.t (k int PRIMARY KEY)")
	if err := cl.SetNodeDelay(0, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	pending := make([]*native.Pending, 300)
	for i := range pending {
		pending[i] = s.ExecuteAsync(context.Background(), native.Query("INSERT INTO dc.t (k) VALUES (?)", int32(i)))
	}
	s.Close()
	for i, p := range pending {
		select {
		case <-p.Done():
		default:
			t.Fatalf("request %d not complete when Close returned", i)
		}
		if _, err := p.Result(); err != nil && !errors.Is(err, native.ErrSessionClosed) {
			t.Errorf("request %d: %v, want success or ErrSessionClosed", i, err)
		}
	}
	cl.Close()
}

// A retry policy that panics or calls runtime.Goexit while Close fails the requests in flight
// (no worker takes them then) fails its request with an error saying so; Close returns.
func TestDetachedPolicyPanicDuringClose(t *testing.T) {
	for name, act := range map[string]func(){
		"panic":  func() { panic("policy bug") },
		"goexit": runtime.Goexit,
	} {
		t.Run(name, func(t *testing.T) {
			var armed atomic.Bool
			policy := funcRetry(func(ctx context.Context, a *native.Attempt) native.RetryDecision {
				if armed.Load() {
					act()
				}
				return native.RetryDecision{}
			})
			cl := cqlsim.StartT(t, cqlsim.Options{})
			s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs(), ConnsPerHost: 1, RetryPolicy: policy})
			if err != nil {
				t.Fatal(err)
			}
			if err := cl.SetNodeDelay(0, 2*time.Second); err != nil {
				t.Fatal(err)
			}
			p := s.ExecuteAsync(context.Background(), native.Query("SELECT release_version FROM system.local"))
			armed.Store(true)
			closed := make(chan struct{})
			go func() { s.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(30 * time.Second):
				t.Fatal("Close did not return")
			}
			_, err = awaitPending(t, p, 30*time.Second)
			if err == nil {
				t.Fatal("the request succeeded; Close should have cut it")
			}
			if !errors.Is(err, native.ErrSessionClosed) && !strings.Contains(err.Error(), "asynchronous request") {
				t.Errorf("error %v, want ErrSessionClosed or the asynchronous request's failure", err)
			}
		})
	}
}

// A context that can end does not take the request off the goroutine-free path: it is watched
// (context.AfterFunc), and ending it fails the requests in flight with its error, as on the
// other path; the connection serves the next ones.
func TestDetachedCancellableContext(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{}, func(c *native.Config) { c.ConnsPerHost = 1 })
	native.SetAsyncTrimTick(s, time.Millisecond)
	mustExec(t, s, "CREATE KEYSPACE dx WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE dx.t (k int PRIMARY KEY, v int)")
	mustExec(t, s, "INSERT INTO dx.t (k, v) VALUES (1, 1)")
	sel := mustPrepare(t, s, "SELECT v FROM dx.t WHERE k = ?")
	pollUntil(t, 10*time.Second, "workers still idle", func() bool { return native.AsyncIdleWorkers(s) == 0 })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pending := make([]*native.Pending, 1000)
	for i := range pending {
		pending[i] = s.ExecuteAsync(ctx, sel.Bind(1))
	}
	for i, p := range pending {
		if res, err := awaitPending(t, p, 30*time.Second); err != nil || res.Len() != 1 {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if n := native.AsyncIdleWorkers(s); n != 0 {
		t.Errorf("%d idle workers after requests with a cancellable context, want none used", n)
	}

	// Cancelled while the node holds them back.
	if err := cl.SetNodeDelay(0, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	for i := range 50 {
		pending[i] = s.ExecuteAsync(ctx2, sel.Bind(1))
	}
	time.Sleep(50 * time.Millisecond)
	cancel2()
	for i, p := range pending[:50] {
		_, err := awaitPending(t, p, 5*time.Second)
		if !errors.Is(err, context.Canceled) || errors.Is(err, native.ErrConnClosed) {
			t.Fatalf("request %d after its context was cancelled: %v, want context.Canceled alone", i, err)
		}
	}
	// A deadline.
	ctx3, cancel3 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel3()
	if _, err := awaitPending(t, s.ExecuteAsync(ctx3, sel.Bind(1)), 5*time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a request past its context's deadline: %v, want context.DeadlineExceeded", err)
	}
	if err := cl.SetNodeDelay(0, 0); err != nil {
		t.Fatal(err)
	}
	// The late answers were dropped and their stream ids freed: the connection serves on.
	for i := range 100 {
		if _, err := awaitPending(t, s.ExecuteAsync(ctx, sel.Bind(1)), 30*time.Second); err != nil {
			t.Fatalf("request %d after the cancellations: %v", i, err)
		}
	}
}

// Cancellations racing the answers: every request completes once, with its rows or with
// context.Canceled.
func TestDetachedCancelRacesAnswers(t *testing.T) {
	s, _ := connect(t, func(c *native.Config) { c.ConnsPerHost = 1 })
	mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
	mustExec(t, s, "INSERT INTO kv (k, v) VALUES (1, 1)")
	sel := mustPrepare(t, s, "SELECT v FROM kv WHERE k = ?")
	var ok, cancelled int
	for round := range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		ps := make([]*native.Pending, 20)
		for i := range ps {
			ps[i] = s.ExecuteAsync(ctx, sel.Bind(1))
			if i == round%20 {
				cancel()
			}
		}
		for i, p := range ps {
			res, err := awaitPending(t, p, 30*time.Second)
			switch {
			case err == nil && res.Len() == 1:
				ok++
			case errors.Is(err, context.Canceled):
				cancelled++
			default:
				t.Fatalf("round %d request %d: %v, %v", round, i, res, err)
			}
		}
		cancel()
	}
	t.Logf("%d answered, %d cancelled", ok, cancelled)
}

// A request cut off by its context while Close runs matches ErrSessionClosed too, as on the
// worker path.
func TestDetachedCancelDuringClose(t *testing.T) {
	cl, s := simClusterSession(t, cqlsim.Options{}, func(c *native.Config) { c.ConnsPerHost = 1 })
	if err := cl.SetNodeDelay(0, time.Second); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ps := make([]*native.Pending, 50)
	for i := range ps {
		ps[i] = s.ExecuteAsync(ctx, native.Query("SELECT release_version FROM system.local"))
	}
	closing := make(chan struct{})
	go func() { s.Close(); close(closing) }()
	pollUntil(t, 10*time.Second, "Close did not start", s.Closed)
	cancel()
	<-closing
	for i, p := range ps {
		_, err := awaitPending(t, p, 10*time.Second)
		if !errors.Is(err, native.ErrSessionClosed) {
			t.Errorf("request %d: %v, want ErrSessionClosed", i, err)
		}
	}
}

// A page over 64 KiB is decoded on a worker, not by the connection's reader (which would hold
// up the connection's other responses meanwhile); a small page is completed by the reader.
// Both come back whole.
// With compression the size that counts is the decompressed one (the page below compresses to
// a few hundred bytes).
func TestDetachedLargePageDecodedOnWorker(t *testing.T) {
	for _, comp := range []string{"", "lz4", "snappy"} {
		t.Run("compression="+comp, func(t *testing.T) { testDetachedLargePage(t, comp) })
	}
}

func testDetachedLargePage(t *testing.T, compression string) {
	// One node: on a cluster the other nodes learn a statement in the background after Prepare
	// returns, and an UNPREPARED answer (re-prepared on a worker) would be taken for a page
	// the reader did not complete.
	s, _ := connect(t, func(c *native.Config) {
		c.ConnsPerHost = 1
		c.Compression = compression
		c.Hosts = c.Hosts[:1]
		c.DisablePeerDiscovery = true
	})
	native.SetAsyncTrimTick(s, time.Hour) // an idle worker stays
	bg := context.Background()
	if _, err := s.Execute(bg, native.Query("CREATE TABLE big (k int, c int, v text, PRIMARY KEY (k, c))")); err != nil {
		t.Fatal(err)
	}
	ins := mustPrepare(t, s, "INSERT INTO big (k, c, v) VALUES (?, ?, ?)")
	value := strings.Repeat("x", 1024)
	const rows = 100 // about 100 KiB in one page
	for c := range rows {
		if _, err := s.Execute(bg, ins.Bind(1, c, value)); err != nil {
			t.Fatal(err)
		}
		if c < 3 {
			if _, err := s.Execute(bg, ins.Bind(2, c, value)); err != nil {
				t.Fatal(err)
			}
		}
	}
	sel := mustPrepare(t, s, "SELECT c, v FROM big WHERE k = ?")
	check := func(k, want int) {
		t.Helper()
		res, err := awaitPending(t, s.ExecuteAsync(bg, sel.Bind(k)), 30*time.Second)
		if err != nil {
			t.Fatalf("partition %d: %v", k, err)
		}
		got := 0
		for _, row := range res.Rows() {
			var c int
			var v string
			if err := row.Scan(&c, &v); err != nil || c != got || v != value {
				t.Fatalf("partition %d, row %d: c=%d, %d bytes, %v", k, got, c, len(v), err)
			}
			got++
		}
		if got != want {
			t.Fatalf("partition %d: %d rows, want %d", k, got, want)
		}
	}
	check(2, 3)
	if n := native.AsyncIdleWorkers(s); n != 0 {
		t.Errorf("%d idle workers after a small page: the reader should have completed it", n)
	}
	check(1, rows)
	pollUntil(t, 10*time.Second, "no worker decoded the page of about 100 KiB", func() bool { return native.AsyncIdleWorkers(s) == 1 })
}
