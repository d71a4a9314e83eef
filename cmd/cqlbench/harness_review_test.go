package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// With --op-context background a floor operation has no context to end it and the floor has
// no request timeout: the end of the run closes its sockets, so a server that stops answering
// does not hold the run (nor an interruption) past the window.
func TestFloorBackgroundStallEndsWithRun(t *testing.T) {
	srv := startFakeServer(t, func(byte, []byte) []byte { return nil }) // never answers
	cfg := runConfig{Driver: "floor", Workload: wlReadPrepared, Concurrency: 2, Hosts: []string{srv.addr()},
		Duration: 50 * time.Millisecond, BackgroundOps: true}
	d, err := newFloorDriver(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	done := make(chan error, 1)
	go func() {
		_, err := run(context.Background(), d, cfg)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a floor run with background operations did not end 5 s after its 50 ms window")
	}
}

// The floor spreads its workers' connections over every --hosts entry, as the other drivers
// spread their requests, and prepares the statement on each host.
func TestFloorSpreadsOverHosts(t *testing.T) {
	var execA, execB atomic.Int64
	a := startFakeServer(t, func(byte, []byte) []byte { execA.Add(1); return response(0, 0, opResult, voidResult()) })
	b := startFakeServer(t, func(byte, []byte) []byte { execB.Add(1); return response(0, 0, opResult, voidResult()) })
	d, err := newFloorDriver(context.Background(), runConfig{Workload: wlWritePrepared, Concurrency: 4, Hosts: []string{a.addr(), b.addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	for w := range 4 {
		if err := d.op(context.Background(), w, int64(w)); err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
	}
	a.mu.Lock()
	na := len(a.conns)
	a.mu.Unlock()
	b.mu.Lock()
	nb := len(b.conns)
	b.mu.Unlock()
	if na != 2 || nb != 2 || execA.Load() != 2 || execB.Load() != 2 {
		t.Errorf("--hosts A,B, 4 workers: %d and %d connections, %d and %d operations; want 2 of each on each host",
			na, nb, execA.Load(), execB.Load())
	}
}

// read_page goes on after a page whose paging state is empty but present (more pages follow),
// sending the paging flag: it did not, so the first page came back and the loop failed.
func TestFloorEmptyPagingState(t *testing.T) {
	srv := startFakeServer(t, func(op byte, body []byte) []byte {
		if body[8]&0x08 == 0 { // the first page: 100 rows, more pages, a null paging state
			b := binary.BigEndian.AppendUint32(nil, 2)
			b = binary.BigEndian.AppendUint32(b, 0x0004|0x0002)
			b = binary.BigEndian.AppendUint32(b, 2)
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF) // null [bytes]
			b = binary.BigEndian.AppendUint32(b, 100)
			for i := range 100 {
				b = appendBytes(b, int32Bytes(i))
				b = appendBytes(b, int32Bytes(i))
			}
			return response(0, 0, opResult, b)
		}
		return response(0, 0, opResult, rowsResult(pageRows-100, nil)) // the rest, the last page
	})
	d, err := newFloorDriver(context.Background(), runConfig{Workload: wlReadPage, Concurrency: 1, Hosts: []string{srv.addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if err := d.op(context.Background(), 0, 0); err != nil {
		t.Errorf("read_page after an empty paging state: %v", err)
	}
}

// An operation that started in the warm-up and ended inside the window is not measured: its
// latency is mostly warm-up time.
func TestWarmupOperationNotMeasured(t *testing.T) {
	d := &stubDriver{do: func(ctx context.Context, _ int, n int64) error {
		if n == 0 {
			time.Sleep(300 * time.Millisecond) // from the warm-up's start to 100 ms into the window
			return nil
		}
		<-ctx.Done() // the later operations last until the window closes (not counted)
		return ctx.Err()
	}}
	res, err := run(context.Background(), d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 1,
		Warmup: 200 * time.Millisecond, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops != 0 {
		t.Errorf("%d operations measured (max latency %d µs), want 0: the one that started in the warm-up counted", res.Ops, res.Request.Max())
	}
}

// Operations still in flight when the window closes are counted, with the age of the oldest,
// and the table says so when they stalled longer than any measured latency.
func TestUnfinishedOperationsReported(t *testing.T) {
	var stall atomic.Bool
	d := &stubDriver{do: func(ctx context.Context, _ int, n int64) error {
		if stall.Load() {
			<-ctx.Done() // the server stops answering
			return ctx.Err()
		}
		time.Sleep(100 * time.Microsecond)
		return nil
	}}
	go func() { time.Sleep(150 * time.Millisecond); stall.Store(true) }() // 100 ms into the window
	res, err := run(context.Background(), d, runConfig{Driver: "stub", Workload: wlReadPrepared, Concurrency: 4,
		Warmup: 50 * time.Millisecond, Duration: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unfinished != 4 || res.OldestUnfinished < 300*time.Millisecond {
		t.Errorf("4 operations stalled for the last ~500 ms: Unfinished %d, OldestUnfinished %v", res.Unfinished, res.OldestUnfinished)
	}
	var out bytes.Buffer
	printTable(&out, []*runResult{res})
	if !strings.Contains(out.String(), "stub: 4 operations were still in flight when the window closed, the oldest for") {
		t.Errorf("the table does not report the stalled operations:\n%s", out.String())
	}
}

// native's lwt operation requires the [applied] column, as the floor and gocql's ScanCAS do:
// Result.Applied reports true for a result that has none.
func TestNativeLWTRequiresApplied(t *testing.T) {
	hosts := cqltest.Hosts(t)
	for _, ddl := range schema() {
		cqltest.Exec(t, hosts[0], ddl)
	}
	ctx := context.Background()
	s, err := native.Connect(ctx, native.Config{Hosts: hosts, Consistency: native.One, ConnsPerHost: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Not conditional, with the lwt statement's three markers: a VOID result.
	p, err := s.Prepare(ctx, "INSERT INTO "+benchKeyspace+".lwt (k, v) VALUES (?, ?) USING TTL ?")
	if err != nil {
		t.Fatal(err)
	}
	d := &nativeDriver{s: s, workload: wlLWT, prep: p}
	if err := d.op(ctx, 0, 5); err == nil || !strings.Contains(err.Error(), "no [applied] column") {
		t.Errorf("native lwt operation on a result without [applied]: %v, want an error", err)
	}
}

// Each repetition of --compare starts one driver further along.
func TestRepetitionOrderRotates(t *testing.T) {
	names := []string{"gocql", "compat", "native", "floor"}
	want := [][]string{
		{"gocql", "compat", "native", "floor"},
		{"compat", "native", "floor", "gocql"},
		{"native", "floor", "gocql", "compat"},
		{"floor", "gocql", "compat", "native"},
		{"gocql", "compat", "native", "floor"},
	}
	for rep, w := range want {
		if got := repetitionOrder(names, rep); strings.Join(got, ",") != strings.Join(w, ",") {
			t.Errorf("repetition %d: %v, want %v", rep, got, w)
		}
	}
}

// At the window's close a worker still waiting for a scheduled start that is already past (its
// pacer wakes late) is behind; one waiting for a later start is not; one whose operation has
// started is in flight and counted there only. Before, the late waiter counted nowhere: its
// operation number was handed out, so not behind, and it had not started.
func TestLateWaiterCountedBehind(t *testing.T) {
	stats := make([]workerStats, 4)
	for i := range stats {
		stats[i].opStart.Store(-1)
		stats[i].waitUntil.Store(-1)
	}
	now := 10 * time.Second
	stats[0].waitUntil.Store(int64(now - time.Millisecond)) // late: due before the close
	stats[1].waitUntil.Store(int64(now + time.Millisecond)) // on time: due after the close
	stats[2].waitUntil.Store(int64(now - 2*time.Millisecond))
	stats[2].opStart.Store(int64(now - time.Millisecond)) // woke and started: in flight
	// stats[3]: between operations, without a rate
	inFlight, oldest, late := atClose(stats, now)
	if inFlight != 1 || oldest != time.Millisecond || late != 1 {
		t.Errorf("atClose = %d in flight (oldest %v), %d late; want 1 (1ms), 1", inFlight, oldest, late)
	}
}
