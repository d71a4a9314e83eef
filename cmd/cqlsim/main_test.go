package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/native"
)

// readyLine reads the first stdout line and checks its form: "cqlsim ready a,b,...".
func readyLine(t *testing.T, r io.Reader, nodes int) []string {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the ready line: %q, %v", line, err)
	}
	rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "cqlsim ready ")
	if !ok {
		t.Fatalf("first line %q is not the ready line", line)
	}
	addrs := strings.Split(rest, ",")
	if len(addrs) != nodes {
		t.Fatalf("ready line lists %d addresses, want %d: %q", len(addrs), nodes, line)
	}
	for _, a := range addrs {
		c, err := net.DialTimeout("tcp", a, 5*time.Second)
		if err != nil {
			t.Fatalf("ready line names %s but it does not accept connections: %v", a, err)
		}
		_ = c.Close()
	}
	return addrs
}

// runInBackground runs the command with args until ctx ends. Its standard output is read from
// the returned reader; run's error comes on the channel.
func runInBackground(ctx context.Context, args ...string) (io.Reader, <-chan error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, pw, io.Discard)
		_ = pw.Close()
	}()
	return pr, done
}

func TestRunPrintsReadyAndStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, done := runInBackground(ctx, "--listen", "127.0.0.1:0", "--nodes", "2")
	addrs := readyLine(t, pr, 2)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run returned %v after cancellation, want nil", err)
	}
	if c, err := net.DialTimeout("tcp", addrs[0], time.Second); err == nil {
		_ = c.Close()
		t.Fatalf("%s still accepts connections after shutdown", addrs[0])
	}
}

// With --datacenters and --racks, each node reports its own data centre and rack.
func TestRunDataCentersAndRacks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, done := runInBackground(ctx, "--listen", "127.0.0.1:0", "--nodes", "3", "--datacenters", "dc1,dc2", "--racks", ",r2,r3")
	addrs := readyLine(t, pr, 3)
	for i, want := range []string{"dc1 rack1", "dc2 r2", "datacenter1 r3"} {
		s, err := native.Connect(ctx, native.Config{Hosts: addrs[i : i+1], DisablePeerDiscovery: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Execute(ctx, native.Query("SELECT data_center, rack FROM system.local"))
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		row, ok := res.First()
		var dc, rack string
		if !ok || row.Scan(&dc, &rack) != nil || dc+" "+rack != want {
			t.Errorf("node %s: system.local says %q %q, want %s", addrs[i], dc, rack, want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--nodes", "x"},
		{"--listen", "nohost"},
		{"--max-protocol-version", "6"},
		{"--nodes", "2", "--datacenters", "dc1,dc2,dc3"},
		{"--racks", "r1,r2"},
		{"--shards", "-1"},
		{"--shard-aware-port"},
		{"--tablets", "4"},
		{"--shards", "2", "--tablets", "-1"},
		{"--shards", "2", "--tablets", "65537"},
		{"extra"},
	} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}

// With --shards, --shard-aware-port and --tablets the nodes describe their sharding and offer
// tablets routing.
func TestRunShards(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, done := runInBackground(ctx, "--listen", "127.0.0.1:0", "--shards", "3", "--shard-aware-port", "--tablets", "8")
	addrs := readyLine(t, pr, 1)
	// OPTIONS, protocol v4, stream 0; the SUPPORTED answer is a string multimap.
	nc, err := net.DialTimeout("tcp", addrs[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := nc.Write([]byte{4, 0, 0, 0, 5, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, 9)
	if _, err := io.ReadFull(nc, hdr); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr[5:]))
	if _, err := io.ReadFull(nc, body); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\x00\x10SCYLLA_NR_SHARDS\x00\x01\x00\x013", "SCYLLA_SHARD_AWARE_PORT", "\x00\x12TABLETS_ROUTING_V1\x00\x01\x00\x00"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("SUPPORTED %q lacks %q", body, want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestBinaryStopsCleanlyOnSignals builds the command and checks that SIGINT and SIGTERM stop it
// with exit status 0 after it printed exactly one line.
func TestBinaryStopsCleanlyOnSignals(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "cqlsim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--nodes", "3")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(stdout)
			line, err := br.ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "cqlsim ready 127.0.0.1:") {
				_ = cmd.Process.Kill()
				t.Fatalf("ready line %q, %v", line, err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(br)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("after %v: %v", sig, err)
			}
			if len(rest) != 0 {
				t.Errorf("printed more than the ready line: %q", rest)
			}
		})
	}
}
