package gocql

import (
	"context"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// The tests of this file pin deviations of docs/deviations.md that no other test pinned: each
// checks compat's side and, where gocql v1.7.0 can run the same steps without ending or
// hanging the test binary, gocql's side too.

// pinCluster starts a cqlsim cluster of n nodes with the table pins.t (k int PRIMARY KEY,
// v int).
func pinCluster(t *testing.T, n int) *cqlsim.Cluster {
	t.Helper()
	return keyspaceCluster(t, cqlsim.Options{Nodes: n}, "pins", "{'class': 'SimpleStrategy', 'replication_factor': 1}")
}

// pinRetryable is a RetryableQuery of both drivers: attempts made so far and a context.
type pinRetryable struct {
	attempts int
	ctx      context.Context
}

func (q pinRetryable) Attempts() int                          { return q.attempts }
func (q pinRetryable) SetConsistency(Consistency)             {}
func (q pinRetryable) GetConsistency() Consistency            { return One }
func (q pinRetryable) Context() context.Context               { return q.ctx }
func (q legacyRetryable) SetConsistency(gocqlv1.Consistency)  {}
func (q legacyRetryable) GetConsistency() gocqlv1.Consistency { return gocqlv1.One }

type legacyRetryable struct{ pinRetryable }

// G3: ExponentialBackoffRetryPolicy's sleep ends, without a retry, when the query's context
// is done; gocql v1.7.0 sleeps it out (time.Sleep) and retries.
func TestPinG3ExponentialBackoffEndsWithTheContext(t *testing.T) {
	// One attempt made: the nap is Min plus or minus half of Min, capped at Max, so at least
	// Min/2 in both drivers.
	const nap = 400 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	retry := (&gocqlv1.ExponentialBackoffRetryPolicy{NumRetries: 3, Min: nap, Max: nap}).
		Attempt(legacyRetryable{pinRetryable{1, ctx}})
	if took := time.Since(start); !retry || took < nap/2 {
		t.Errorf("gocql v1.7.0: Attempt = %v after %v, want true after at least %v (it ignores the context)", retry, took, nap/2)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start = time.Now()
	retry = (&ExponentialBackoffRetryPolicy{NumRetries: 3, Min: 10 * nap, Max: 10 * nap}).
		Attempt(pinRetryable{1, ctx})
	if took := time.Since(start); retry || took >= nap {
		t.Errorf("compat: Attempt = %v after %v, want false once the context is cancelled (20ms)", retry, took)
	}

	// A query failing on its node: its backoff ends with its context, no retry is made.
	sim := pinCluster(t, 1)
	s, _ := sessionsOn(t, sim, nil)
	if err := sim.InjectFault(0, cqlsim.Fault{Match: "FROM pins.t", Error: &message.Overloaded{ErrorMessage: "busy"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	obs := &countingObserver{}
	start = time.Now()
	err := s.Query("SELECT v FROM pins.t WHERE k = 1").WithContext(ctx).Observer(obs).
		RetryPolicy(&ExponentialBackoffRetryPolicy{NumRetries: 3, Min: 10 * time.Second, Max: 10 * time.Second}).Exec()
	if took := time.Since(start); err == nil || len(obs.all()) != 1 || took > 5*time.Second {
		t.Errorf("compat query with a 100ms context: %v after %v and %d attempts, want an error after one attempt, long before the 10s backoff", err, took, len(obs.all()))
	}
}

// G4: MapScan uses only pointer values of the map as destinations, so a map filled by a
// previous MapScan can be given again; gocql v1.7.0 tries to unmarshal into its values.
func TestPinG4MapScanReusesItsMap(t *testing.T) {
	sim := pinCluster(t, 1)
	s, ls := sessionsOn(t, sim, nil)
	for k := 1; k <= 2; k++ {
		if err := s.Query("INSERT INTO pins.t (k, v) VALUES (?, ?)", k, 10*k).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	const sel = "SELECT k, v FROM pins.t"

	lit := ls.Query(sel).Iter()
	lm := map[string]interface{}{}
	first, second := lit.MapScan(lm), lit.MapScan(lm)
	if err := lit.Close(); !first || second || err == nil || !strings.Contains(err.Error(), "unmarshal") {
		t.Errorf("gocql v1.7.0, MapScan twice with one map: %v, %v, Close %v; want true, false and an unmarshal error", first, second, err)
	}

	it := s.Query(sel).Iter()
	m := map[string]interface{}{}
	var keys []int
	for it.MapScan(m) {
		keys = append(keys, m["k"].(int))
		if m["v"] != 10*m["k"].(int) {
			t.Errorf("compat: row %v", m)
		}
	}
	if err := it.Close(); err != nil || len(keys) != 2 || keys[0] == keys[1] {
		t.Errorf("compat, MapScan with one map: keys %v, Close %v; want both rows and no error", keys, err)
	}
}

// G5: a released query is zeroed, never handed out again by the package, and executing it
// fails with "gocql: query used after Release"; gocql v1.7.0 puts it back in its pool and
// hands it out to the next Session.Query.
func TestPinG5QueryUsedAfterRelease(t *testing.T) {
	sim := pinCluster(t, 1)
	s, ls := sessionsOn(t, sim, nil)
	const sel = "SELECT v FROM pins.t WHERE k = ?"

	reused := false
	for i := 0; i < 100 && !reused; i++ {
		lq := ls.Query(sel, 1)
		lq.Release()
		next := ls.Query(sel, 2)
		reused = next == lq && slices.Equal(lq.Values(), []interface{}{2})
	}
	if !reused {
		t.Error("gocql v1.7.0 never handed a released query out again in 100 tries")
	}

	q := s.Query(sel, 1)
	q.Release()
	if q.Statement() != "" || q.Values() != nil {
		t.Errorf("released query: Statement %q, Values %v; want them zeroed", q.Statement(), q.Values())
	}
	for i := 0; i < 100; i++ {
		if s.Query(sel, 2) == q {
			t.Fatal("compat handed a released query out again")
		}
	}
	const want = "gocql: query used after Release"
	var v int
	_, casErr := q.ScanCAS(&v)
	_, mapCASErr := q.MapScanCAS(map[string]interface{}{})
	_, asyncErr := q.IterAsync().Result()
	for name, err := range map[string]error{
		"Exec":       q.Exec(),
		"Iter":       q.Iter().Close(),
		"Scan":       q.Scan(&v),
		"MapScan":    q.MapScan(map[string]interface{}{}),
		"ScanCAS":    casErr,
		"MapScanCAS": mapCASErr,
		"IterAsync":  asyncErr,
	} {
		if err == nil || err.Error() != want {
			t.Errorf("%s after Release: %v, want %q", name, err, want)
		}
	}
}

// G6: a Conn carries no connection: Closed is true, Pick returns nil and the methods that
// would use the connection return an error.
func TestPinG6ConnNotExposed(t *testing.T) {
	c := &Conn{addr: "127.0.0.1:9042"}
	if !c.Closed() || c.Pick(nil) != nil || c.AvailableStreams() != 0 || c.Address() != "127.0.0.1:9042" {
		t.Errorf("Conn: Closed %v, Pick %v, AvailableStreams %d, Address %q", c.Closed(), c.Pick(nil), c.AvailableStreams(), c.Address())
	}
	c.Close()
	_, rerr := c.Read(make([]byte, 8))
	_, werr := c.Write([]byte("x"))
	for name, err := range map[string]error{"Read": rerr, "Write": werr, "UseKeyspace": c.UseKeyspace("ks")} {
		if err == nil || !strings.Contains(err.Error(), "not exposed") {
			t.Errorf("Conn.%s: %v, want the error saying raw connections are not exposed", name, err)
		}
	}
}

type pinFrameObserver struct{ n *atomic.Int64 }

func (o pinFrameObserver) ObserveFrameHeader(context.Context, ObservedFrameHeader) { o.n.Add(1) }

type pinStreamObserver struct{ n *atomic.Int64 }

func (o pinStreamObserver) StreamContext(context.Context) StreamObserverContext {
	o.n.Add(1)
	return nil
}

type legacyFrameObserver struct{ n *atomic.Int64 }

func (o legacyFrameObserver) ObserveFrameHeader(context.Context, gocqlv1.ObservedFrameHeader) {
	o.n.Add(1)
}

type legacyStreamObserver struct{ n *atomic.Int64 }

func (o legacyStreamObserver) StreamContext(context.Context) gocqlv1.StreamObserverContext {
	o.n.Add(1)
	return nil
}

// pinConnectCounter counts the successful connections a ConnectObserver of either driver is
// told of, by address.
type pinConnectCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *pinConnectCounter) add(addr string, err error) {
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[addr]++
}

func (c *pinConnectCounter) get(addr string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[addr]
}

type pinConnectObserver struct{ *pinConnectCounter }

func (o pinConnectObserver) ObserveConnect(c ObservedConnect) {
	o.add(c.Host.ConnectAddressAndPort(), c.Err)
}

type legacyPinConnectObserver struct{ *pinConnectCounter }

func (o legacyPinConnectObserver) ObserveConnect(c gocqlv1.ObservedConnect) {
	o.add(c.Host.ConnectAddressAndPort(), c.Err)
}

// G7: FrameHeaderObserver and StreamObserver are accepted but never called; gocql v1.7.0 calls
// them for every frame and stream. With ProtoVersion 0 gocql tells the ConnectObserver of one
// more connection than with ProtoVersion 4 (its protocol discovery) on a v4 server; compat of
// as many.
func TestPinG7FrameAndStreamObserversNeverCalled(t *testing.T) {
	sim := pinCluster(t, 1)
	var frames, streams, lframes, lstreams atomic.Int64
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.FrameHeaderObserver, c.StreamObserver = pinFrameObserver{&frames}, pinStreamObserver{&streams}
		l.FrameHeaderObserver, l.StreamObserver = legacyFrameObserver{&lframes}, legacyStreamObserver{&lstreams}
	})
	for i := 0; i < 3; i++ {
		if err := ls.Query("SELECT v FROM pins.t WHERE k = ?", i).Exec(); err != nil {
			t.Fatal(err)
		}
		if err := s.Query("SELECT v FROM pins.t WHERE k = ?", i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	if lframes.Load() == 0 || lstreams.Load() == 0 {
		t.Errorf("gocql v1.7.0 called its FrameHeaderObserver %d times, its StreamObserver %d times; want both called", lframes.Load(), lstreams.Load())
	}
	if frames.Load() != 0 || streams.Load() != 0 {
		t.Errorf("compat called its FrameHeaderObserver %d times, its StreamObserver %d times; want never", frames.Load(), streams.Load())
	}

	// Connections to the node with ProtoVersion 0 and 4 (one connection per pool).
	addr := sim.Addrs()[0]
	count := func(proto int) (compat, legacy int) {
		var c, l pinConnectCounter
		s, ls := sessionsOn(t, sim, func(cc *ClusterConfig, lc *gocqlv1.ClusterConfig) {
			cc.ProtoVersion, lc.ProtoVersion = proto, proto
			cc.NumConns, lc.NumConns = 1, 1
			cc.ConnectObserver, lc.ConnectObserver = pinConnectObserver{&c}, legacyPinConnectObserver{&l}
		})
		if err := s.Query("SELECT v FROM pins.t WHERE k = 1").Exec(); err != nil {
			t.Fatal(err)
		}
		if err := ls.Query("SELECT v FROM pins.t WHERE k = 1").Exec(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // pools that connect after CreateSession returned
		s.Close()
		ls.Close()
		return c.get(addr), l.get(addr)
	}
	c0, l0 := count(0)
	c4, l4 := count(4)
	if l0 != l4+1 {
		t.Errorf("gocql v1.7.0 connected %d times with ProtoVersion 0, %d with 4; want one more with 0", l0, l4)
	}
	if c0 != c4 || c4 == 0 {
		t.Errorf("compat connected %d times with ProtoVersion 0, %d with 4; want as many, and some", c0, c4)
	}
}

// G8: WriteCoalesceWaitTime has no effect; gocql v1.7.0 holds each write back that long.
func TestPinG8WriteCoalesceWaitTimeHasNoEffect(t *testing.T) {
	sim := pinCluster(t, 1)
	const wait = 300 * time.Millisecond
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.WriteCoalesceWaitTime, l.WriteCoalesceWaitTime = 10*wait, wait
	})
	fastest := func(exec func() error) time.Duration {
		best := time.Hour
		for i := 0; i < 3; i++ {
			start := time.Now()
			if err := exec(); err != nil {
				t.Fatal(err)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	const q = "SELECT v FROM pins.t WHERE k = 1"
	if d := fastest(ls.Query(q).Exec); d < wait {
		t.Errorf("gocql v1.7.0 with WriteCoalesceWaitTime %v: a query took %v, want at least that wait", wait, d)
	}
	if d := fastest(s.Query(q).Exec); d >= wait {
		t.Errorf("compat with WriteCoalesceWaitTime %v: a query took %v, want no wait", 10*wait, d)
	}
}

// pinCompressor is a Compressor of compat named name, counting its calls (delegating to
// SnappyCompressor).
type pinCompressor struct {
	name  string
	calls *atomic.Int64
}

func (c pinCompressor) Name() string { return c.name }
func (c pinCompressor) Encode(b []byte) ([]byte, error) {
	c.calls.Add(1)
	return SnappyCompressor{}.Encode(b)
}
func (c pinCompressor) Decode(b []byte) ([]byte, error) {
	c.calls.Add(1)
	return SnappyCompressor{}.Decode(b)
}

// legacyPinCompressor is pinCompressor for gocql v1.7.0.
type legacyPinCompressor struct {
	name  string
	calls *atomic.Int64
}

func (c legacyPinCompressor) Name() string { return c.name }
func (c legacyPinCompressor) Encode(b []byte) ([]byte, error) {
	c.calls.Add(1)
	return gocqlv1.SnappyCompressor{}.Encode(b)
}
func (c legacyPinCompressor) Decode(b []byte) ([]byte, error) {
	c.calls.Add(1)
	return gocqlv1.SnappyCompressor{}.Decode(b)
}

// G10: a Compressor is taken by its name only: snappy (or lz4) is compressed by the native
// core, never by the Compressor's own methods, and any other name fails CreateSession. gocql
// v1.7.0 uses any implementation (its Encode and Decode), and goes uncompressed when the node
// does not offer its name.
func TestPinG10CompressorTakenByName(t *testing.T) {
	sim := pinCluster(t, 1)
	var calls, lcalls atomic.Int64
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Compressor, l.Compressor = pinCompressor{"snappy", &calls}, legacyPinCompressor{"snappy", &lcalls}
	})
	for i := 0; i < 3; i++ {
		if err := ls.Query("INSERT INTO pins.t (k, v) VALUES (?, ?)", i, i).Exec(); err != nil {
			t.Fatal(err)
		}
		if err := s.Query("INSERT INTO pins.t (k, v) VALUES (?, ?)", i, i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	if lcalls.Load() == 0 {
		t.Error("gocql v1.7.0 never called its snappy Compressor's methods")
	}
	if calls.Load() != 0 {
		t.Errorf("compat called the Compressor's methods %d times, want never (the native core compresses)", calls.Load())
	}

	var zcalls atomic.Int64
	l := gocqlv1.NewCluster(sim.Addrs()[0])
	l.Port, l.Compressor = sim.Port(), legacyPinCompressor{"zstd", &zcalls}
	if lz, err := l.CreateSession(); err != nil {
		t.Errorf("gocql v1.7.0 with a compressor named zstd: %v, want a session without compression", err)
	} else {
		if err := lz.Query("SELECT v FROM pins.t WHERE k = 1").Exec(); err != nil || zcalls.Load() != 0 {
			t.Errorf("gocql v1.7.0 with a compressor named zstd: %v, %d calls; want an uncompressed session", err, zcalls.Load())
		}
		lz.Close()
	}
	c := NewCluster(sim.Addrs()[0])
	c.Port, c.Compressor = sim.Port(), pinCompressor{"zstd", &zcalls}
	if cz, err := c.CreateSession(); err == nil {
		cz.Close()
		t.Error("compat with a compressor named zstd: CreateSession succeeded")
	} else if !strings.Contains(err.Error(), `"zstd" is not supported`) || !strings.Contains(err.Error(), "snappy and lz4") {
		t.Errorf("compat with a compressor named zstd: %v, want an error naming zstd and the supported names", err)
	}
}

// pinOverlapPolicy wraps a policy of compat: its plans report a call made while another call
// of the same plan is running (sleeping in it to let one come).
type pinOverlapPolicy struct {
	HostSelectionPolicy
	calls, overlaps atomic.Int64
}

func (p *pinOverlapPolicy) Pick(q ExecutableQuery) NextHost {
	next := p.HostSelectionPolicy.Pick(q)
	var in atomic.Int32
	return func() SelectedHost {
		if in.Add(1) > 1 {
			p.overlaps.Add(1)
		}
		defer in.Add(-1)
		p.calls.Add(1)
		time.Sleep(5 * time.Millisecond)
		return next()
	}
}

// legacyOverlapPolicy is pinOverlapPolicy for gocql v1.7.0.
type legacyOverlapPolicy struct {
	gocqlv1.HostSelectionPolicy
	calls, overlaps atomic.Int64
}

func (p *legacyOverlapPolicy) Pick(q gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	next := p.HostSelectionPolicy.Pick(q)
	var in atomic.Int32
	return func() gocqlv1.SelectedHost {
		if in.Add(1) > 1 {
			p.overlaps.Add(1)
		}
		defer in.Add(-1)
		p.calls.Add(1)
		time.Sleep(5 * time.Millisecond)
		return next()
	}
}

// G12: the speculative executions of a query share its plan, whose NextHost is never called
// concurrently: compat calls it under a mutex, and so does gocql v1.7.0 (its queryExecutor
// wraps the plan in one), so both drivers behave alike here.
func TestPinG12SpeculativeExecutionsShareThePlanUnderALock(t *testing.T) {
	sim := pinCluster(t, 3)
	p := &pinOverlapPolicy{HostSelectionPolicy: RoundRobinHostPolicy()}
	lp := &legacyOverlapPolicy{HostSelectionPolicy: gocqlv1.RoundRobinHostPolicy()}
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy, l.PoolConfig.HostSelectionPolicy = p, lp
	})
	for i := 0; i < 3; i++ {
		if err := sim.SetNodeDelay(i, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	const q = "SELECT v FROM pins.t WHERE k = 1"
	for i := 0; i < 5; i++ {
		if err := ls.Query(q).Idempotent(true).
			SetSpeculativeExecutionPolicy(&gocqlv1.SimpleSpeculativeExecution{NumAttempts: 2, TimeoutDelay: time.Millisecond}).Exec(); err != nil {
			t.Fatal(err)
		}
		if err := s.Query(q).Idempotent(true).
			SetSpeculativeExecutionPolicy(&SimpleSpeculativeExecution{NumAttempts: 2, TimeoutDelay: time.Millisecond}).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	if lp.calls.Load() < 10 || lp.overlaps.Load() != 0 {
		t.Errorf("gocql v1.7.0: %d NextHost calls, %d while another ran; want several calls, none concurrent", lp.calls.Load(), lp.overlaps.Load())
	}
	if p.calls.Load() < 10 || p.overlaps.Load() != 0 {
		t.Errorf("compat: %d NextHost calls, %d while another ran; want several calls, none concurrent", p.calls.Load(), p.overlaps.Load())
	}
}

// G14: an error iterator has no warnings or custom payload (the native core's errors carry
// none); gocql v1.7.0 returns the warnings of the error response.
func TestPinG14ErrorIteratorHasNoWarnings(t *testing.T) {
	sim := pinCluster(t, 1)
	s, ls := sessionsOn(t, sim, nil)
	if err := sim.InjectFault(0, cqlsim.Fault{Match: "FROM pins.t WHERE k = 7",
		Error: &message.Invalid{ErrorMessage: "refused"}, Warnings: []string{"pinned warning"}}); err != nil {
		t.Fatal(err)
	}
	const q = "SELECT v FROM pins.t WHERE k = 7"
	// Read before Close, which drops them in both drivers.
	lit := ls.Query(q).RetryPolicy(nil).Iter()
	if lw := lit.Warnings(); lit.Close() == nil || !slices.Equal(lw, []string{"pinned warning"}) {
		t.Errorf("gocql v1.7.0: Warnings %q; want the error response's warning", lw)
	}
	it := s.Query(q).RetryPolicy(nil).Iter()
	if w, p := it.Warnings(), it.GetCustomPayload(); it.Close() == nil || w != nil || p != nil {
		t.Errorf("compat: Warnings %q, GetCustomPayload %v; want an error, no warnings, no payload", w, p)
	}
}

// voidAnnotator returns a Dialer whose connections add a warning and a custom payload to
// every uncompressed protocol v4 RESULT Void frame that carries neither (nor a tracing id).
func voidAnnotator() *cqltest.FrameRewriter { return &cqltest.FrameRewriter{Rewrite: annotateVoid} }

func annotateVoid(frame []byte) []byte {
	if len(frame) != 13 || frame[0] != 0x84 || frame[1] != 0 || frame[4] != 0x08 || binary.BigEndian.Uint32(frame[9:]) != 1 {
		return frame
	}
	out := append([]byte(nil), frame[:9]...)
	out[1] = 0x04 | 0x08 // custom payload, warning
	out = binary.BigEndian.AppendUint16(out, 1)
	out = binary.BigEndian.AppendUint16(out, uint16(len("void warning")))
	out = append(out, "void warning"...)
	out = binary.BigEndian.AppendUint16(out, 1)
	out = binary.BigEndian.AppendUint16(out, 1)
	out = append(out, 'k')
	out = binary.BigEndian.AppendUint32(out, 1)
	out = append(out, 'v')
	out = append(out, frame[9:]...)
	binary.BigEndian.PutUint32(out[5:9], uint32(len(out)-9))
	return out
}

// G15: the iterator of a successful VOID batch keeps the response's warnings and custom
// payload (seen by ExecuteBatchAsync's future); gocql v1.7.0 drops them (&Iter{}), in an
// iterator it never hands to the application, so only compat's side is run.
func TestPinG15VoidBatchKeepsWarnings(t *testing.T) {
	sim := pinCluster(t, 1)
	c := NewCluster(sim.Addrs()[0])
	c.Port, c.ProtoVersion, c.Dialer = sim.Port(), 4, voidAnnotator()
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatch(LoggedBatch)
	b.Query("INSERT INTO pins.t (k, v) VALUES (1, 1)")
	b.Query("INSERT INTO pins.t (k, v) VALUES (2, 2)")
	it := s.executeBatch(b)
	w, p := it.Warnings(), it.GetCustomPayload() // before Close, which drops them
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w, []string{"void warning"}) || string(p["k"]) != "v" {
		t.Errorf("batch iterator: Warnings %q, GetCustomPayload %q; want the response's", w, p)
	}
	f := s.ExecuteBatchAsync(b)
	if _, err := f.Result(); err != nil {
		t.Fatal(err)
	}
	w, werr := f.Warnings()
	if werr != nil || !slices.Equal(w, []string{"void warning"}) {
		t.Errorf("ExecuteBatchAsync: Warnings %q, %v; want the response's", w, werr)
	}
}

// G16: fields for machinery the native core owns have no effect. CQLVersion is not sent:
// "2.0.0", which cqlsim refuses as Cassandra does, fails gocql v1.7.0's CreateSession and not
// compat's; a session with every such field set to values gocql would act on (nil policies
// included, on which gocql panics: G52) opens and runs queries.
func TestPinG16FieldsWithoutEffect(t *testing.T) {
	sim := pinCluster(t, 2)
	l := gocqlv1.NewCluster(sim.Addrs()[0])
	l.Port, l.CQLVersion = sim.Port(), "2.0.0"
	if ls, err := l.CreateSession(); err == nil {
		ls.Close()
		t.Error("gocql v1.7.0 with CQLVersion 2.0.0 opened a session on cqlsim, which refuses it")
	}
	c := NewCluster(sim.Addrs()...)
	c.Port = sim.Port()
	c.CQLVersion = "2.0.0"
	c.ConvictionPolicy, c.ReconnectionPolicy = nil, nil
	c.ReconnectInterval = -1
	c.Events.DisableNodeStatusEvents, c.Events.DisableTopologyEvents = true, true
	c.IgnorePeerAddr = true
	c.MaxRoutingKeyInfo = -1
	c.WriteTimeout = time.Hour
	c.Timeout = 10 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("compat with fields it ignores set: %v", err)
	}
	defer s.Close()
	for k := 0; k < 6; k++ {
		if err := s.Query("INSERT INTO pins.t (k, v) VALUES (?, ?)", k, k).Exec(); err != nil {
			t.Fatalf("query %d: %v", k, err)
		}
	}
	// As in gocql, a write timeout under a microsecond fails CreateSession (checkLikeGocqlInit).
	c.WriteTimeout = time.Nanosecond
	if s2, err := c.CreateSession(); err == nil {
		s2.Close()
		t.Error("compat with WriteTimeout 1ns opened a session, unlike gocql v1.7.0")
	}
}
