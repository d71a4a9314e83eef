//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSimEndsWithClient: the cqlsim process that --sim starts ends when cqlbench is killed
// (SIGKILL here; a second SIGINT or a crash are alike), and leaves no binary behind. The test
// runs itself as a child process that starts cqlsim and is then killed. (Before the fix cqlsim
// lived on, re-parented to init, with its temporary directory.)
func TestSimEndsWithClient(t *testing.T) {
	if os.Getenv("CQLBENCH_SIM_CHILD") == "1" {
		simChild()
		return
	}
	if testing.Short() {
		t.Skip("builds and starts cmd/cqlsim")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build cmd/cqlsim")
	}
	tmp := t.TempDir()
	cmd := newSelfCommand(t, "^TestSimEndsWithClient$", "CQLBENCH_SIM_CHILD=1", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := newLineReader(out)
	if l := lines.next(); !strings.HasPrefix(l, "sim ready ") {
		t.Fatalf("child: %q, want the sim ready", l)
	}
	sim := childProcesses(cmd.Process.Pid, "cqlsim")
	if len(sim) != 1 {
		t.Fatalf("cqlsim children of the client: %v, want one", sim)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for running(sim[0]) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(sim[0], syscall.SIGKILL)
			t.Fatalf("cqlsim (pid %d) still runs 10 s after its client was killed", sim[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "cqlbench-sim*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// simChild is the child process of TestSimEndsWithClient: it starts cqlsim, says so, and waits
// to be killed.
func simChild() {
	addrs, shutdown, err := startSim(context.Background(), os.Stderr)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	defer shutdown()
	fmt.Println("sim ready", strings.Join(addrs, ","))
	time.Sleep(time.Minute) // killed long before
	os.Exit(3)
}

// childProcesses returns the pids of the processes named comm whose parent is ppid (from /proc).
func childProcesses(ppid int, comm string) []int {
	var pids []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 || s[open+1:end] != comm {
			continue
		}
		if p, _ := strconv.Atoi(fields[1]); p == ppid {
			pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
			pids = append(pids, pid)
		}
	}
	return pids
}

// running reports whether process pid exists and has not ended (a zombie, ended but not yet
// reaped by its new parent, has).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	return end >= 0 && !strings.HasPrefix(strings.TrimSpace(s[end+1:]), "Z")
}

// TestSimExitingEarlyIsReported: a cqlsim that exits before its ready line (here: its address
// is taken, as when another process grabs the free port cqlbench picked before cqlsim binds
// it) is reported at once with its exit status, rather than after waiting 30 s for a ready
// line that cannot come.
func TestSimExitingEarlyIsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts cmd/cqlsim")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build cmd/cqlsim")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	defer func(f func(string, string) *exec.Cmd) { simCommand = f }(simCommand)
	simCommand = func(bin, _ string) *exec.Cmd {
		return exec.Command(bin, "--listen", ln.Addr().String(), "--nodes", "1")
	}
	start := time.Now()
	_, shutdown, err := startSim(context.Background(), io.Discard)
	if err == nil {
		shutdown()
		t.Fatal("startSim succeeded with cqlsim's address taken")
	}
	if !strings.Contains(err.Error(), "cqlsim exited before its ready line") {
		t.Errorf("startSim: %v, want it to say that cqlsim exited", err)
	}
	// The build of cqlsim is in the time; the 30 s wait for a ready line is not.
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("startSim took %v to report cqlsim's exit", d)
	}
}
