//go:build linux

package cqlsim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"
)

// BenchmarkPreparedRead measures the CPU cqlsim spends per simple prepared read
// (SELECT v FROM t WHERE k = ?, one 16-byte text row), and for comparison the CPU a client
// spends on the same read.
//
// Method: the server runs in a separate process (cmd/cqlsim, built once per run), so its CPU can
// be attributed exactly: the benchmark reads the process's utime+stime from /proc/<pid>/stat
// (all threads, in USER_HZ = 100 ticks per second) before and after b.N reads, and reports
// server-cpu-ns/op. The 10 ms tick granularity is negligible against the run time of a benchmark
// (about a second by default). The client side is measured with getrusage(RUSAGE_SELF) deltas
// of the benchmark process and reported as client-cpu-ns/op.
//
// Sub-benchmarks:
//
//   - raw: a minimal pipelined client (pre-encoded EXECUTE frames, 32 in flight, responses only
//     delimited, not decoded) that keeps the server busy at almost no client cost: its
//     server-cpu-ns/op is cqlsim's own cost.
//
//   - gocql: gocql v1.7.0 with its default settings, 32 goroutines issuing Query.Scan; its
//     client-cpu-ns/op is a real driver's cost, the figure the server must stay well below.
//
//     go test ./cqlsim -run '^$' -bench BenchmarkPreparedRead -benchtime 20000x
func BenchmarkPreparedRead(b *testing.B) {
	bin := buildCqlsim(b)
	b.Run("raw", func(b *testing.B) {
		srv := startProcess(b, bin)
		id := setupReadTable(b, srv.addr)
		rawReadLoop(b, srv, id)
	})
	b.Run("gocql", func(b *testing.B) {
		srv := startProcess(b, bin)
		setupReadTable(b, srv.addr)
		gocqlReadLoop(b, srv)
	})
}

// serverProcess is a cmd/cqlsim child process.
type serverProcess struct {
	pid  int
	addr string
}

func buildCqlsim(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "cqlsim")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/cqlbridge/cqlbridge/cmd/cqlsim")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building cmd/cqlsim: %v\n%s", err, out)
	}
	return bin
}

func startProcess(b *testing.B, bin string) *serverProcess {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--listen", "127.0.0.1:0")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting cqlsim: %v", err)
	}
	b.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "cqlsim ready ") {
		b.Fatalf("cqlsim did not print its ready line: %q, %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return &serverProcess{pid: cmd.Process.Pid, addr: strings.Split(strings.TrimSpace(strings.TrimPrefix(line, "cqlsim ready ")), ",")[0]}
}

// cpu returns the process's user+system CPU time from /proc/<pid>/stat.
func (s *serverProcess) cpu(b *testing.B) time.Duration {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid))
	if err != nil {
		b.Fatalf("reading server CPU: %v", err)
	}
	// Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("parsing /proc/%d/stat: %q", s.pid, data)
	}
	const userHZ = 100
	return time.Duration(utime+stime) * time.Second / userHZ
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// setupReadTable creates the benchmark's table with one row and prepares the read on a raw
// connection; it returns the prepared id.
func setupReadTable(b *testing.B, addr string) []byte {
	b.Helper()
	rc := dialRaw(b, addr)
	rc.startup(nil)
	for i, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS bench.kv (k int PRIMARY KEY, v text)",
		"INSERT INTO bench.kv (k, v) VALUES (1, 'sixteen bytes!!!')",
	} {
		rc.send(primitive.ProtocolVersion4, int16(i+2), &message.Query{Query: stmt, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
		if f := rc.read(); f.Header.OpCode == primitive.OpCodeError {
			b.Fatalf("%s: %v", stmt, f.Body.Message)
		}
	}
	rc.send(primitive.ProtocolVersion4, 9, &message.Prepare{Query: "SELECT v FROM bench.kv WHERE k = ?"})
	p, ok := rc.read().Body.Message.(*message.PreparedResult)
	if !ok {
		b.Fatal("PREPARE did not return a prepared result")
	}
	return p.PreparedQueryId
}

func rawReadLoop(b *testing.B, srv *serverProcess, id []byte) {
	const inFlight = 32
	nc, err := net.Dial("tcp", srv.addr)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	rc := &rawConn{t: b, nc: nc, br: bufio.NewReaderSize(nc, 64<<10)}
	rc.startup(nil)
	key := primitive.NewValue([]byte{0, 0, 0, 1})
	frames := make([][]byte, inFlight)
	for s := range frames {
		var buf bytes.Buffer
		f := frame.NewFrame(primitive.ProtocolVersion4, int16(s+1), &message.Execute{QueryId: id,
			Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{key}, SkipMetadata: true}})
		if err := frame.NewCodec().EncodeFrame(f, &buf); err != nil {
			b.Fatal(err)
		}
		frames[s] = buf.Bytes()
	}
	// Check one full response before measuring.
	rc.write(frames[0])
	if rows, ok := rc.read().Body.Message.(*message.RowsResult); !ok || len(rows.Data) != 1 {
		b.Fatalf("prepared read did not return one row: %v", rows)
	}
	hdr := make([]byte, 9)
	readOne := func() {
		if _, err := io.ReadFull(rc.br, hdr); err != nil {
			b.Fatal(err)
		}
		if hdr[4] != 0x08 {
			b.Fatalf("response opcode 0x%02x, want RESULT", hdr[4])
		}
		if _, err := rc.br.Discard(int(binary.BigEndian.Uint32(hdr[5:]))); err != nil {
			b.Fatal(err)
		}
	}
	writeErr := make(chan error, 1)
	credits := make(chan struct{}, inFlight)
	for range inFlight {
		credits <- struct{}{}
	}
	b.ReportAllocs()
	server0, client0 := srv.cpu(b), selfCPU()
	b.ResetTimer()
	go func() {
		// Writer: keeps at most inFlight requests outstanding via the credit channel.
		var err error
		for i := 0; i < b.N && err == nil; i++ {
			<-credits
			_, err = nc.Write(frames[i%inFlight])
		}
		writeErr <- err
	}()
	for i := 0; i < b.N; i++ {
		readOne()
		credits <- struct{}{}
	}
	b.StopTimer()
	if err := <-writeErr; err != nil {
		b.Fatal(err)
	}
	report(b, srv.cpu(b)-server0, selfCPU()-client0)
}

func gocqlReadLoop(b *testing.B, srv *serverProcess) {
	cfg := gocql.NewCluster(srv.addr)
	cfg.Timeout = 30 * time.Second
	s, err := cfg.CreateSession()
	if err != nil {
		b.Fatalf("gocql: %v", err)
	}
	defer s.Close()
	var v string
	if err := s.Query("SELECT v FROM bench.kv WHERE k = ?", 1).Scan(&v); err != nil || v != "sixteen bytes!!!" {
		b.Fatalf("gocql read: %q, %v", v, err)
	}
	b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	server0, client0 := srv.cpu(b), selfCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var v string
		for pb.Next() {
			if err := s.Query("SELECT v FROM bench.kv WHERE k = ?", 1).Scan(&v); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	report(b, srv.cpu(b)-server0, selfCPU()-client0)
}

func report(b *testing.B, server, client time.Duration) {
	b.ReportMetric(float64(server.Nanoseconds())/float64(b.N), "server-cpu-ns/op")
	b.ReportMetric(float64(client.Nanoseconds())/float64(b.N), "client-cpu-ns/op")
}
