package main

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer is a CQL server for the floor driver's tests: it answers STARTUP with READY and
// PREPARE with a PREPARED result, and every other request with what respond returns (a whole
// response frame; nil: no answer, ever).
type fakeServer struct {
	ln      net.Listener
	respond func(op byte, body []byte) []byte
	mu      sync.Mutex
	conns   []net.Conn
	wg      sync.WaitGroup
}

func startFakeServer(t *testing.T, respond func(op byte, body []byte) []byte) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln, respond: respond}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() { defer s.wg.Done(); s.serve(c) }()
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *fakeServer) addr() string { return s.ln.Addr().String() }

func (s *fakeServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *fakeServer) serve(c net.Conn) {
	var hdr [9]byte
	for {
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(hdr[5:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		var resp []byte
		switch hdr[4] {
		case opStartup:
			resp = response(0, 0, opReady, nil)
		case opPrepare:
			resp = response(0, 0, opResult, appendShortBytes(binary.BigEndian.AppendUint32(nil, 4), []byte("id-1")))
		default:
			resp = s.respond(hdr[4], body)
		}
		if resp == nil {
			continue // never answered
		}
		if _, err := c.Write(resp); err != nil {
			return
		}
	}
}

// response is a v4 response frame.
func response(flags byte, stream uint16, op byte, body []byte) []byte {
	f := []byte{0x84, flags, byte(stream >> 8), byte(stream), op, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(f[5:], uint32(len(body)))
	return append(f, body...)
}

func voidResult() []byte { return binary.BigEndian.AppendUint32(nil, 1) }

// rowsResult is a ROWS result without metadata of rows rows of two int cells, with a paging
// state when state is not nil.
func rowsResult(rows int, state []byte) []byte {
	flags := uint32(0x0004)
	if state != nil {
		flags |= 0x0002
	}
	b := binary.BigEndian.AppendUint32(nil, 2)
	b = binary.BigEndian.AppendUint32(b, flags)
	b = binary.BigEndian.AppendUint32(b, 2)
	if state != nil {
		b = appendBytes(b, state)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(rows))
	for i := 0; i < rows; i++ {
		b = appendBytes(b, int32Bytes(i))
		b = appendBytes(b, int32Bytes(i))
	}
	return b
}

// lwtResult is the ROWS result of a conditional update: the [applied] column (with global table
// spec) and, when not applied, the current value.
func lwtResult(applied bool) []byte {
	b := binary.BigEndian.AppendUint32(nil, 2)
	cols := 1
	if !applied {
		cols = 2
	}
	b = binary.BigEndian.AppendUint32(b, 0x0001)
	b = binary.BigEndian.AppendUint32(b, uint32(cols))
	b = appendString(b, benchKeyspace)
	b = appendString(b, "lwt")
	b = appendString(b, "[applied]")
	b = binary.BigEndian.AppendUint16(b, 0x0004) // boolean
	if !applied {
		b = appendString(b, "v")
		b = binary.BigEndian.AppendUint16(b, 0x0009) // int
	}
	b = binary.BigEndian.AppendUint32(b, 1)
	if applied {
		b = appendBytes(b, []byte{1})
	} else {
		b = appendBytes(b, []byte{0})
		b = appendBytes(b, int32Bytes(2))
	}
	return b
}

// withWarning prefixes a response body with the warnings the WARNING flag (0x08) announces.
func withWarning(body []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, 1)
	b = appendString(b, "Batch for [cqlbench.wide] is of size 6.1KiB, exceeding specified threshold")
	return append(b, body...)
}

func errorBody(code uint32, msg string) []byte {
	return appendString(binary.BigEndian.AppendUint32(nil, code), msg)
}

// TestFloorChecksResponses: the floor driver counts an operation as a success only when the
// response is the one its request asks for, as the other drivers check theirs: on stream 0 (the
// only one it uses), of protocol v4, a RESULT of the right kind, with the rows the data set
// holds and an applied LWT. An ERROR, a response to another stream, a VOID result to a read, a
// read that found no row, a short read_page or an LWT not applied are errors. (Before the fix
// only the opcode was checked, and all but the ERROR counted as fast successes.)
func TestFloorChecksResponses(t *testing.T) {
	for _, tc := range []struct {
		name, workload string
		respond        func(n int, body []byte) []byte // n counts the requests of the operation
		wantErr        string                          // "" for a success
	}{
		{"read ok", wlReadPrepared, func(int, []byte) []byte { return response(0, 0, opResult, rowsResult(1, nil)) }, ""},
		{"read with a warning", wlReadPrepared, func(int, []byte) []byte { return response(0x08, 0, opResult, withWarning(rowsResult(1, nil))) }, ""},
		{"read error", wlReadPrepared, func(int, []byte) []byte {
			return response(0, 0, opError, errorBody(0x1200, "Operation timed out"))
		}, "server error 0x1200"},
		{"read no row", wlReadPrepared, func(int, []byte) []byte { return response(0, 0, opResult, rowsResult(0, nil)) }, "read 0 rows, want 1"},
		{"read void", wlReadPrepared, func(int, []byte) []byte { return response(0, 0, opResult, voidResult()) }, "result kind 1"},
		{"read other stream", wlReadPrepared, func(int, []byte) []byte { return response(0, 7, opResult, rowsResult(1, nil)) }, "stream 7"},
		{"read v3 response", wlReadPrepared, func(int, []byte) []byte {
			r := response(0, 0, opResult, rowsResult(1, nil))
			r[0] = 0x83
			return r
		}, "version"},
		{"write ok", wlWritePrepared, func(int, []byte) []byte { return response(0, 0, opResult, voidResult()) }, ""},
		{"write rows", wlWritePrepared, func(int, []byte) []byte { return response(0, 0, opResult, rowsResult(1, nil)) }, "result kind 2"},
		{"batch ok", wlBatch, func(int, []byte) []byte { return response(0x08, 0, opResult, withWarning(voidResult())) }, ""},
		{"lwt applied", wlLWT, func(int, []byte) []byte { return response(0, 0, opResult, lwtResult(true)) }, ""},
		{"lwt not applied", wlLWT, func(int, []byte) []byte { return response(0, 0, opResult, lwtResult(false)) }, "LWT not applied"},
		{"lwt void", wlLWT, func(int, []byte) []byte { return response(0, 0, opResult, voidResult()) }, "result kind 1"},
		{"page ok", wlReadPage, func(n int, _ []byte) []byte {
			if n < pageRows/pageSize-1 {
				return response(0, 0, opResult, rowsResult(pageSize, []byte{byte(n)}))
			}
			return response(0, 0, opResult, rowsResult(pageSize, nil))
		}, ""},
		{"page short", wlReadPage, func(n int, _ []byte) []byte {
			if n < 2 {
				return response(0, 0, opResult, rowsResult(pageSize, []byte{byte(n)}))
			}
			return response(0, 0, opResult, rowsResult(pageSize, nil))
		}, "read 300 rows, want 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			srv := startFakeServer(t, func(_ byte, body []byte) []byte {
				mu.Lock()
				defer mu.Unlock()
				n++
				return tc.respond(n-1, body)
			})
			d, err := newFloorDriver(context.Background(), runConfig{Workload: tc.workload, Concurrency: 1, Hosts: []string{srv.addr()}})
			if err != nil {
				t.Fatal(err)
			}
			defer d.close()
			for i := 0; i < 2; i++ { // twice: a first response's leftovers must not spoil the second
				mu.Lock()
				n = 0
				mu.Unlock()
				err = d.op(context.Background(), 0, int64(i))
				if tc.wantErr == "" && err != nil {
					t.Fatalf("op %d: %v, want a success", i, err)
				}
				if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
					t.Fatalf("op %d: %v, want an error containing %q", i, err, tc.wantErr)
				}
				if tc.wantErr != "" && tc.name != "read error" {
					break // the connection is out of step after a bad response
				}
			}
		})
	}
}

// TestFloorRunEndsWhenServerStalls: the floor driver's operations end when the run's context
// does, like the other drivers'; a server that stops answering cannot keep the run (or an
// interrupted tool) waiting forever. (Before the fix the floor ignored its context, the run
// waited for its workers' reads for good, and this test failed by its deadline.)
func TestFloorRunEndsWhenServerStalls(t *testing.T) {
	srv := startFakeServer(t, func(byte, []byte) []byte { return nil }) // never answers an EXECUTE
	d, err := newFloorDriver(context.Background(), runConfig{Workload: wlReadPrepared, Concurrency: 2, Hosts: []string{srv.addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	done := make(chan error, 1)
	go func() {
		res, err := run(context.Background(), d, runConfig{Driver: "floor", Workload: wlReadPrepared, Concurrency: 2,
			Duration: 50 * time.Millisecond})
		if err == nil && (res.Ops != 0 || len(res.Errors) != 0) {
			err = errors.New("operations counted against a server that never answered")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end 10 s after its 50 ms window: the floor's operations ignore its context")
	}
}
