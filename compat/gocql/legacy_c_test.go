package gocql

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// The tests of this file pin items of section C of the legacy-semantics catalogue (gocql
// v1.7.0) that need a server no real node is (pages emptied, warnings on every page, a slow
// answer) or the fields of a query: each runs gocql v1.7.0 and compat side by side where it
// can.

// pageWarning is the warning pageAnnotator adds to a page: its paging state in hex, "none" on
// the last page.
func pageWarning(state []byte) string {
	if len(state) == 0 {
		return "state none"
	}
	return "state " + hex.EncodeToString(state)
}

// pageAnnotator returns a Dialer whose connections rewrite the uncompressed protocol v4
// RESULT Rows frames of one int column (those of SELECT c FROM legc.kv): each gets a warning
// naming its paging state (pageWarning), and a page whose first row is a value of empty is
// sent without its rows, as a node whose page holds only rows it filtered out would send it.
func pageAnnotator(empty ...int32) *cqltest.FrameRewriter {
	return &cqltest.FrameRewriter{Rewrite: func(frame []byte) []byte {
		return annotatePage(frame, empty)
	}}
}

func annotatePage(frame []byte, empty []int32) []byte {
	const head = 9 + 4 + 4 + 4 // header, result kind, flags, column count
	if len(frame) < head || frame[0] != 0x84 || frame[1] != 0 || frame[4] != 0x08 ||
		binary.BigEndian.Uint32(frame[9:]) != 2 || binary.BigEndian.Uint32(frame[17:]) != 1 {
		return frame
	}
	flags := binary.BigEndian.Uint32(frame[13:])
	pos := head
	var state []byte
	if flags&0x02 != 0 {
		n := int(int32(binary.BigEndian.Uint32(frame[pos:])))
		if n < 0 || pos+4+n > len(frame) {
			return frame
		}
		state = frame[pos+4 : pos+4+n]
		pos += 4 + n
	}
	str := func() (string, bool) {
		if pos+2 > len(frame) {
			return "", false
		}
		n := int(binary.BigEndian.Uint16(frame[pos:]))
		if pos+2+n > len(frame) {
			return "", false
		}
		s := string(frame[pos+2 : pos+2+n])
		pos += 2 + n
		return s, true
	}
	if flags&0x04 == 0 { // the column's metadata: only legc.kv's int column c is rewritten
		if flags&0x01 == 0 {
			return frame
		}
		ks, ok1 := str()
		tbl, ok2 := str()
		name, ok3 := str()
		if !ok1 || !ok2 || !ok3 || ks != "legc" || tbl != "kv" || name != "c" || pos+2 > len(frame) ||
			binary.BigEndian.Uint16(frame[pos:]) != 0x0009 {
			return frame
		}
		pos += 2
	}
	if pos+4 > len(frame) {
		return frame
	}
	rows := int(binary.BigEndian.Uint32(frame[pos:]))
	rowsAt := pos + 4
	emptied := false
	if rows > 0 && rowsAt+8 <= len(frame) && binary.BigEndian.Uint32(frame[rowsAt:]) == 4 &&
		slices.Contains(empty, int32(binary.BigEndian.Uint32(frame[rowsAt+4:]))) {
		emptied = true
	}
	warning := pageWarning(state)
	out := append([]byte(nil), frame[:9]...)
	out[1] = 0x08 // warnings
	out = binary.BigEndian.AppendUint16(out, 1)
	out = binary.BigEndian.AppendUint16(out, uint16(len(warning)))
	out = append(out, warning...)
	if emptied {
		out = append(out, frame[9:pos]...)
		out = binary.BigEndian.AppendUint32(out, 0)
	} else {
		out = append(out, frame[9:]...)
	}
	binary.BigEndian.PutUint32(out[5:9], uint32(len(out)-9))
	return out
}

// legacyCCluster starts a one-node cqlsim with legc.kv (p int, c int, PRIMARY KEY (p, c))
// holding rows c = 1..n of partition 1, and returns it with a compat and a gocql v1.7.0
// session on it, both at protocol v4 through dialer (nil for none).
func legacyCCluster(t *testing.T, n int, dialer *cqltest.FrameRewriter) (*cqlsim.Cluster, *Session, *gocqlv1.Session) {
	t.Helper()
	sim := keyspaceCluster(t, cqlsim.Options{Nodes: 1}, "legc", "{'class': 'SimpleStrategy', 'replication_factor': 1}")
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.ProtoVersion, l.ProtoVersion = 4, 4
		if dialer != nil {
			c.Dialer, l.Dialer = dialer, dialer
		}
	})
	if err := s.Query("CREATE TABLE legc.kv (p int, c int, PRIMARY KEY (p, c))").Exec(); err != nil {
		t.Fatal(err)
	}
	for c := 1; c <= n; c++ {
		if err := s.Query("INSERT INTO legc.kv (p, c) VALUES (1, ?)", c).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	return sim, s, ls
}

// pageStep is what an application sees of an Iter after a Scan (C10, C12, C16).
type pageStep struct {
	ok, willSwitch     bool
	c, numRows         int
	warnings           string
	warningIsThisPages bool
}

func (p pageStep) String() string {
	return fmt.Sprintf("{scan %v c=%d NumRows=%d WillSwitchPage=%v Warnings=%q current page's=%v}",
		p.ok, p.c, p.numRows, p.willSwitch, p.warnings, p.warningIsThisPages)
}

// TestPagesLikeGocql: Iter.Scan skips pages that come without rows and goes on to the next
// (C10: rows [1 4 5] of 1..5 at page size 1 with the pages of 2 and 3 emptied), and
// NumRows, PageState and Warnings are the current page's, changing at each page switch, with
// no warnings after Close (C12, C16); both drivers alike.
func TestPagesLikeGocql(t *testing.T) {
	_, s, ls := legacyCCluster(t, 5, pageAnnotator(2, 3))
	const sel = "SELECT c FROM legc.kv WHERE p = ?"
	step := func(ok bool, c, numRows int, willSwitch bool, warnings []string, state []byte) pageStep {
		return pageStep{ok: ok, c: c, numRows: numRows, willSwitch: willSwitch, warnings: fmt.Sprint(warnings),
			warningIsThisPages: len(warnings) == 1 && warnings[0] == pageWarning(state)}
	}
	var legacy, compat []pageStep
	var legacyAfter, compatAfter []string
	{
		it := ls.Query(sel, 1).PageSize(1).Iter()
		var c int
		legacy = append(legacy, step(true, 0, it.NumRows(), it.WillSwitchPage(), it.Warnings(), it.PageState()))
		for {
			ok := it.Scan(&c)
			legacy = append(legacy, step(ok, c, it.NumRows(), it.WillSwitchPage(), it.Warnings(), it.PageState()))
			if !ok {
				break
			}
		}
		if err := it.Close(); err != nil {
			t.Fatalf("gocql v1.7.0: %v", err)
		}
		legacyAfter = it.Warnings()
	}
	{
		it := s.Query(sel, 1).PageSize(1).Iter()
		var c int
		compat = append(compat, step(true, 0, it.NumRows(), it.WillSwitchPage(), it.Warnings(), it.PageState()))
		for {
			ok := it.Scan(&c)
			compat = append(compat, step(ok, c, it.NumRows(), it.WillSwitchPage(), it.Warnings(), it.PageState()))
			if !ok {
				break
			}
		}
		if err := it.Close(); err != nil {
			t.Fatalf("compat: %v", err)
		}
		compatAfter = it.Warnings()
	}
	// The rewriter did its work: gocql skipped the emptied pages and read every page's
	// warning.
	var rows []int
	for _, st := range legacy[1:] {
		if st.ok {
			rows = append(rows, st.c)
		}
		if !st.warningIsThisPages {
			t.Errorf("gocql v1.7.0: a step without its page's warning: %v", st)
		}
	}
	if !slices.Equal(rows, []int{1, 4, 5}) {
		t.Fatalf("gocql v1.7.0 read rows %v; want [1 4 5] (the rewriter empties the pages of 2 and 3)", rows)
	}
	if !slices.Equal(legacy, compat) {
		t.Errorf("steps differ:\ngocql v1.7.0: %v\ncompat:       %v", legacy, compat)
	}
	if legacyAfter != nil || compatAfter != nil {
		t.Errorf("Warnings after Close: gocql v1.7.0 %q, compat %q; want nil", legacyAfter, compatAfter)
	}
}

// legacyObservedErrs is a gocql v1.7.0 QueryObserver that keeps the errors of the attempts.
type legacyObservedErrs struct {
	mu   sync.Mutex
	errs []error
}

func (o *legacyObservedErrs) ObserveQuery(_ context.Context, q gocqlv1.ObservedQuery) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.errs = append(o.errs, q.Err)
}

// TestDeadlineDuringSlowRequestLikeGocql: a context whose deadline passes while the node holds
// the answer back fails the query with context.DeadlineExceeded itself (not wrapped, not a
// timeout of the driver's), and the observer sees the one attempt with that error (C26);
// both drivers alike.
func TestDeadlineDuringSlowRequestLikeGocql(t *testing.T) {
	sim := pinCluster(t, 1)
	s, ls := sessionsOn(t, sim, nil)
	const q = "SELECT v FROM pins.t WHERE k = 5"
	// Prepared before the node slows down (a PREPARE is never delayed, but be plain about it).
	if err := s.Query(q).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := ls.Query(q).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := sim.InjectFault(0, cqlsim.Fault{Match: "FROM pins.t WHERE k = 5", Delay: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		same, is bool
		attempts int
		observed string
	}
	var lo, co outcome
	{
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		obs := &legacyObservedErrs{}
		lq := ls.Query(q).WithContext(ctx).Observer(obs)
		err := lq.Exec()
		lo = outcome{err == context.DeadlineExceeded, errors.Is(err, context.DeadlineExceeded), lq.Attempts(), fmt.Sprint(obs.errs)}
	}
	{
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		obs := &countingObserver{}
		cq := s.Query(q).WithContext(ctx).Observer(obs)
		err := cq.Exec()
		var errs []error
		for _, o := range obs.all() {
			errs = append(errs, o.Err)
		}
		co = outcome{err == context.DeadlineExceeded, errors.Is(err, context.DeadlineExceeded), cq.Attempts(), fmt.Sprint(errs)}
	}
	want := outcome{true, true, 1, "[" + context.DeadlineExceeded.Error() + "]"}
	if lo != want {
		t.Errorf("gocql v1.7.0: %+v; want %+v", lo, want)
	}
	if co != lo {
		t.Errorf("compat: %+v; gocql v1.7.0: %+v", co, lo)
	}
}

// TestQueryDefaultsOfACreatedSession: a query of a session made by CreateSession from
// NewCluster's configuration takes gocql v1.7.0's defaults (C3): QUORUM, pages of 5000 rows,
// prefetch at a quarter, no retry policy, not idempotent, no speculative execution, the
// session's observer, fresh metrics. TestQueryBuildersMutateAndReturnReceiver checks them on a
// session built by hand.
func TestQueryDefaultsOfACreatedSession(t *testing.T) {
	sim := pinCluster(t, 1)
	cfg := NewCluster(sim.Addrs()[0])
	cfg.Port = sim.Port()
	obs := &countingObserver{}
	cfg.QueryObserver = obs
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := s.Query("SELECT v FROM pins.t WHERE k = 1")
	if q.cons != Quorum || q.pageSize != 5000 || q.prefetch != 0.25 || q.rt != nil || q.idempotent ||
		q.observer != obs || q.Attempts() != 0 {
		t.Errorf("defaults: cons %v pageSize %d prefetch %v rt %v idempotent %v observer %v attempts %d",
			q.cons, q.pageSize, q.prefetch, q.rt, q.idempotent, q.observer, q.Attempts())
	}
	if _, ok := q.spec.(*NonSpeculativeExecution); !ok {
		t.Errorf("default speculative execution policy %T, want *NonSpeculativeExecution", q.spec)
	}
}

// TestPrefetchTriggerIsAtLeastTheSecondRow: the next page's fetch starts once the Scan's row
// index reaches int((1-prefetch)*rows), but never before the page's second Scan (C11): with
// Prefetch(1) (and beyond) the trigger is row 1, not 0.
func TestPrefetchTriggerIsAtLeastTheSecondRow(t *testing.T) {
	_, s, _ := legacyCCluster(t, 8, nil)
	for _, pf := range []float64{1, 2} {
		iter := s.Query("SELECT c FROM legc.kv WHERE p = 1").PageSize(4).Prefetch(pf).Iter()
		next := iter.next
		if next == nil || next.pos != 1 {
			t.Fatalf("Prefetch(%v): next page trigger at row %v, want 1", pf, next)
		}
		var c int
		iter.Scan(&c)
		if next.started.Load() {
			t.Fatalf("Prefetch(%v): the next page was fetched at the first Scan", pf)
		}
		iter.Scan(&c)
		if !next.started.Load() {
			t.Fatalf("Prefetch(%v): the second Scan did not start the background fetch", pf)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// recodeError returns a Dialer whose connections give the uncompressed protocol v4 ERROR
// frames whose message is msg the error code code instead of theirs.
func recodeError(msg string, code uint32) *cqltest.FrameRewriter {
	return &cqltest.FrameRewriter{Rewrite: func(frame []byte) []byte {
		if len(frame) != 9+4+2+len(msg) || frame[0] != 0x84 || frame[1] != 0 || frame[4] != 0x00 ||
			string(frame[15:]) != msg {
			return frame
		}
		out := append([]byte(nil), frame...)
		binary.BigEndian.PutUint32(out[9:], code)
		return out
	}}
}

// TestUnknownErrorCodeUnlikeGocql pins G64 (C25): an ERROR whose code gocql v1.7.0 does not
// know makes its frame parser panic, and the panic comes back as a plain error
// ("unknown error code: 0x1234"), not a RequestError, without the server's message. compat
// returns the server's error as an errorFrame (a RequestError) with its code and message. The
// connection serves the next statement in both.
func TestUnknownErrorCodeUnlikeGocql(t *testing.T) {
	const msg = "recode me"
	sim, s, ls := legacyCCluster(t, 1, recodeError(msg, 0x1234))
	if err := sim.InjectFault(0, cqlsim.Fault{Match: "FROM legc.kv WHERE p = 7", Error: &message.Invalid{ErrorMessage: msg}}); err != nil {
		t.Fatal(err)
	}
	const q = "SELECT c FROM legc.kv WHERE p = 7"
	var lre gocqlv1.RequestError
	for _, err := range []error{ls.Query(q).Exec(), ls.Query(q).Iter().Close()} {
		if err == nil || errors.As(err, &lre) || err.Error() != "unknown error code: 0x1234" {
			t.Errorf("gocql v1.7.0: %T %v; want the plain error \"unknown error code: 0x1234\"", err, err)
		}
	}
	var re RequestError
	for _, err := range []error{s.Query(q).Exec(), s.Query(q).Iter().Close()} {
		if _, ok := err.(errorFrame); !ok || !errors.As(err, &re) || re.Code() != 0x1234 || re.Message() != msg || err.Error() != msg {
			t.Errorf("compat: %T %v; want an errorFrame with code 0x1234 and the server's message", err, err)
		}
	}
	const next = "SELECT c FROM legc.kv WHERE p = 1"
	if lerr, cerr := ls.Query(next).Exec(), s.Query(next).Exec(); lerr != nil || cerr != nil {
		t.Errorf("the next statement: gocql v1.7.0 %v, compat %v; want both served", lerr, cerr)
	}
}

// observedPages is a QueryObserver of compat that hands each observation to a channel.
type observedPages chan ObservedQuery

func (o observedPages) ObserveQuery(_ context.Context, q ObservedQuery) { o <- q }

// TestCloseLeavesThePrefetchRunning: Close does not cancel the fetch of the next page a Scan
// started in the background (C14): the fetch completes, and the observer sees that page
// answered, without error.
func TestCloseLeavesThePrefetchRunning(t *testing.T) {
	_, s, _ := legacyCCluster(t, 4, nil)
	obs := make(observedPages, 4)
	iter := s.Query("SELECT c FROM legc.kv WHERE p = 1").PageSize(2).Prefetch(1).Observer(obs).Iter()
	next := iter.next
	var c int
	iter.Scan(&c)
	iter.Scan(&c) // starts the fetch of the second page
	if next == nil || !next.started.Load() {
		t.Fatal("the second Scan did not start the background fetch")
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	second := next.fetch() // waits for the background fetch to end
	if err := second.Close(); err != nil || second.NumRows() != 2 {
		t.Fatalf("the page fetched in the background: %d rows, %v; want its 2 rows", second.NumRows(), err)
	}
	close(obs)
	var pages []string
	for o := range obs {
		pages = append(pages, fmt.Sprintf("rows %d err %v", o.Rows, o.Err))
	}
	if want := []string{"rows 2 err <nil>", "rows 2 err <nil>"}; !slices.Equal(pages, want) {
		t.Errorf("observed %q; want %q", pages, want)
	}
}

// TestSpeculativeErrorWinsLikeGocql: the first execution to finish wins even with an error
// (C27): every plan starts with node 2, which answers a second late, then node 3, which
// refuses the statement at once; an idempotent query with one speculative execution after
// 100 ms gets node 3's error (and Host), not node 2's rows. Both drivers alike.
func TestSpeculativeErrorWinsLikeGocql(t *testing.T) {
	const stmt = slowNodeStmt + " /* spec error */"
	sim, legacy, s := slowNodeSessions(t, 10*time.Second)
	if err := sim.SetNodeDelay(1, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := sim.InjectFault(2, cqlsim.Fault{Match: "/* spec error */", Error: &message.Overloaded{ErrorMessage: "node 3 refuses"}}); err != nil {
		t.Fatal(err)
	}
	describe := func(err error, host string) string {
		var code int
		if re, ok := err.(interface{ Code() int }); ok {
			code = re.Code()
		}
		return fmt.Sprintf("%T %v code %#x from %s", err, err, code, host)
	}
	lit := legacy.Query(stmt).Idempotent(true).RetryPolicy(nil).
		SetSpeculativeExecutionPolicy(&gocqlv1.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: 100 * time.Millisecond}).Iter()
	lerr := lit.Close()
	want := describe(lerr, legacyAddr(lit.Host()))
	it := s.Query(stmt).Idempotent(true).RetryPolicy(nil).
		SetSpeculativeExecutionPolicy(&SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: 100 * time.Millisecond}).Iter()
	got := describe(it.Close(), compatAddr(it.Host()))
	if lerr == nil || legacyAddr(lit.Host()) != sim.Addrs()[2] {
		t.Fatalf("gocql v1.7.0 did not behave as this test expects: %s", want)
	}
	if got != want {
		t.Errorf("compat: %s\ngocql v1.7.0: %s", got, want)
	}
}

// retryOnce retries a failed attempt once on the same host, in both drivers.
type retryOnce struct{}

func (retryOnce) Attempt(q RetryableQuery) bool { return q.Attempts() <= 1 }
func (retryOnce) GetRetryType(error) RetryType  { return Retry }

type legacyRetryOnce struct{}

func (legacyRetryOnce) Attempt(q gocqlv1.RetryableQuery) bool { return q.Attempts() <= 1 }
func (legacyRetryOnce) GetRetryType(error) gocqlv1.RetryType  { return gocqlv1.Retry }

// pageAttempts is a QueryObserver of both drivers that records each attempt's rows, number,
// error and the attempts its host's metrics count.
type pageAttempts struct {
	mu  sync.Mutex
	got []string
}

func (o *pageAttempts) add(rows, attempt int, err error, hostAttempts int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, fmt.Sprintf("rows %d attempt %d err %v host attempts %d", rows, attempt, err, hostAttempts))
}

func (o *pageAttempts) ObserveQuery(_ context.Context, q ObservedQuery) {
	o.add(q.Rows, q.Attempt, q.Err, q.Metrics.Attempts)
}

type legacyPageAttempts struct{ *pageAttempts }

func (o legacyPageAttempts) ObserveQuery(_ context.Context, q gocqlv1.ObservedQuery) {
	o.add(q.Rows, q.Attempt, q.Err, q.Metrics.Attempts)
}

// TestLaterPageRetriedLikeGocql: each page is a query of its own, with the statement's retry
// policy and fresh metrics (C32): the node refuses the second page once, the policy retries
// it, the iteration reads every row, and the observer sees the second page's attempts
// numbered 0 and 1, its host's metrics counting 1 then 2 (C34). Both drivers alike.
func TestLaterPageRetriedLikeGocql(t *testing.T) {
	sim, s, ls := legacyCCluster(t, 5, nil)
	const sel = "SELECT c FROM legc.kv WHERE p = 1"
	failSecondPage := func() {
		t.Helper()
		if err := sim.InjectFault(0, cqlsim.Fault{Match: sel, Skip: 1, Times: 1, Error: &message.Overloaded{ErrorMessage: "busy"}}); err != nil {
			t.Fatal(err)
		}
	}
	failSecondPage()
	lobs := &pageAttempts{}
	lq := ls.Query(sel).PageSize(2).Prefetch(0).RetryPolicy(legacyRetryOnce{}).Observer(legacyPageAttempts{lobs})
	lit := lq.Iter()
	var c int
	var lrows []int
	for lit.Scan(&c) {
		lrows = append(lrows, c)
	}
	lerr := lit.Close()
	want := fmt.Sprint(lrows, lerr, lq.Attempts(), lobs.got)
	if len(lobs.got) != 4 || !slices.Equal(lrows, []int{1, 2, 3, 4, 5}) || lerr != nil {
		t.Fatalf("gocql v1.7.0 did not behave as this test expects: %s", want)
	}

	failSecondPage()
	obs := &pageAttempts{}
	q := s.Query(sel).PageSize(2).Prefetch(0).RetryPolicy(retryOnce{}).Observer(obs)
	it := q.Iter()
	var rows []int
	for it.Scan(&c) {
		rows = append(rows, c)
	}
	got := fmt.Sprint(rows, it.Close(), q.Attempts(), obs.got)
	t.Logf("gocql v1.7.0: %s", want)
	if got != want {
		t.Errorf("compat: %s\ngocql v1.7.0: %s", got, want)
	}
}

// TestWithContextCopiesExecuteConcurrently: copies of one Query made by WithContext share its
// metrics and routing information, which are safe to use from several goroutines at once, as
// in gocql v1.7.0 (C2, C41; the race detector checks it): copies executed at once all count in
// the original's Attempts, and the routing information one learns is the original's.
func TestWithContextCopiesExecuteConcurrently(t *testing.T) {
	_, s, _ := legacyCCluster(t, 2, nil)
	q := s.Query("SELECT c FROM legc.kv WHERE p = ?", 1)
	const n = 8
	cqltest.Concurrently(t, n, func(int) error {
		c := q.WithContext(context.Background())
		if _, err := c.GetRoutingKey(); err != nil {
			return err
		}
		_ = q.Attempts() + len(q.Table())
		return c.Exec()
	})
	if q.Attempts() != n || q.Table() != "kv" || q.Keyspace() != "legc" {
		t.Fatalf("after %d copies executed: Attempts %d, Table %q, Keyspace %q; want %d, kv, legc", n, q.Attempts(), q.Table(), q.Keyspace(), n)
	}
}

// hostsOfPages is a QueryObserver of both drivers that records the host of each attempt.
type hostsOfPages struct {
	mu    sync.Mutex
	hosts []string
}

func (o *hostsOfPages) add(h string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.hosts = append(o.hosts, h)
}

func (o *hostsOfPages) ObserveQuery(_ context.Context, q ObservedQuery) { o.add(compatAddr(q.Host)) }

type legacyHostsOfPages struct{ *hostsOfPages }

func (o legacyHostsOfPages) ObserveQuery(_ context.Context, q gocqlv1.ObservedQuery) {
	o.add(legacyAddr(q.Host))
}

// TestPagesPlannedOneByOneLikeGocql: each page is sent along a plan of its own (C32), so with
// RoundRobinHostPolicy on three nodes holding every row the three pages of a query go to
// three nodes. Both drivers alike.
func TestPagesPlannedOneByOneLikeGocql(t *testing.T) {
	sim := keyspaceCluster(t, cqlsim.Options{Nodes: 3}, "legp", "{'class': 'SimpleStrategy', 'replication_factor': 3}")
	s, ls := sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.PoolConfig.HostSelectionPolicy = RoundRobinHostPolicy()
		l.PoolConfig.HostSelectionPolicy = gocqlv1.RoundRobinHostPolicy()
	})
	for k := 1; k <= 3; k++ {
		if err := s.Query("INSERT INTO legp.t (k, v) VALUES (?, ?)", k, k).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	distinct := func(hosts []string) int {
		return len(slices.Compact(slices.Sorted(slices.Values(hosts))))
	}
	const sel = "SELECT v FROM legp.t"
	lobs := &hostsOfPages{}
	lit := ls.Query(sel).PageSize(1).Prefetch(0).Observer(legacyHostsOfPages{lobs}).Iter()
	var v, n int
	for lit.Scan(&v) {
		n++
	}
	if err := lit.Close(); err != nil || n != 3 || len(lobs.hosts) != 4 || distinct(lobs.hosts) != 3 {
		t.Fatalf("gocql v1.7.0 did not behave as this test expects: %d rows, %v, pages on %q", n, err, lobs.hosts)
	}
	obs := &hostsOfPages{}
	it := s.Query(sel).PageSize(1).Prefetch(0).Observer(obs).Iter()
	n = 0
	for it.Scan(&v) {
		n++
	}
	if err := it.Close(); err != nil || n != 3 || len(obs.hosts) != len(lobs.hosts) || distinct(obs.hosts) != 3 {
		t.Errorf("compat: %d rows, %v, pages on %q; gocql v1.7.0: pages on %q", n, err, obs.hosts, lobs.hosts)
	}
}
