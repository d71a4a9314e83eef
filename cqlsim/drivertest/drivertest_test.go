// Package drivertest_test runs real drivers against cqlsim with their default settings: gocql
// v1.7.0 in process, and the Python (cassandra-driver 3.29.2) and Node.js (cassandra-driver 4.x)
// drivers as child processes running python/scenario.py and node/scenario.js. Every driver runs
// the same scenario: DDL, prepared and unprepared DML, a 1,000-row paged read, LWT insert and
// update, a logged batch, a counter update, and UDT and tuple round trips.
//
// scripts/install-drivers installs the Python and Node drivers. Without them the tests skip,
// except under CI=true, where a missing driver fails the test.
package drivertest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// nodes is the size of the simulated cluster the drivers connect to: enough to exercise peer
// discovery and connections to several hosts on 127.0.0.x.
const nodes = 3

// scenarioTimeout bounds one driver run; a hang fails the test instead of stalling CI.
const scenarioTimeout = 5 * time.Minute

// missing skips the test, or fails it under CI, when a driver is not installed.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("driver missing under CI (run scripts/install-drivers): "+format, args...)
	}
	t.Skipf("driver missing (run scripts/install-drivers): "+format, args...)
}

// pythonPath finds the virtualenv python scripts/install-drivers creates.
func pythonPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CQLSIM_PYTHON"); p != "" {
		return p
	}
	cache := os.Getenv("CQLBRIDGE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			missing(t, "no home directory to find the Python virtualenv in: %v", err)
		}
		cache = filepath.Join(home, ".cache", "cqlbridge")
	}
	p := filepath.Join(cache, "pydrivers", "bin", "python")
	if _, err := os.Stat(p); err != nil {
		missing(t, "no Python virtualenv at %s", p)
	}
	if out, err := exec.Command(p, "-c", "import cassandra, lz4").CombinedOutput(); err != nil {
		missing(t, "%s cannot import cassandra and lz4: %v\n%s", p, err, out)
	}
	return p
}

// runScenario runs a driver's scenario script against the cluster and fails the test with the
// script's output when it exits non-zero.
func runScenario(t *testing.T, c *cqlsim.Cluster, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s against %v: %v\n%s", name, strings.Join(args, " "), c.Addrs(), err, out)
	}
	t.Logf("%s", out)
	return string(out)
}

func TestPythonDriver(t *testing.T) {
	python := pythonPath(t)
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: nodes})
	out := runScenario(t, c, python, filepath.Join("python", "scenario.py"), strings.Join(c.Addrs(), ","), "--expect-compression", "--expect-protocol=4")
	if !strings.Contains(out, "python scenario: OK") {
		t.Fatalf("scenario did not report success:\n%s", out)
	}
}

// TestPythonDriverV5 runs the scenario over protocol v5 (segments, LZ4-compressed), which the
// Python driver negotiates by default when the server offers it.
func TestPythonDriverV5(t *testing.T) {
	python := pythonPath(t)
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: nodes, MaxProtocolVersion: 5})
	out := runScenario(t, c, python, filepath.Join("python", "scenario.py"), strings.Join(c.Addrs(), ","), "--expect-compression", "--expect-protocol=5")
	if !strings.Contains(out, "python scenario: OK") {
		t.Fatalf("scenario did not report success:\n%s", out)
	}
}

// TestDriverAuthentication checks the Python and Node drivers against PasswordAuthenticator:
// the right credentials connect and query, wrong ones are refused with the server's message.
func TestDriverAuthentication(t *testing.T) {
	c := cqlsim.StartT(t, cqlsim.Options{Username: "app", Password: "secret"})
	hosts := strings.Join(c.Addrs(), ",")
	t.Run("python", func(t *testing.T) {
		python := pythonPath(t)
		script := filepath.Join("python", "scenario.py")
		runScenario(t, c, python, script, hosts, "--auth=app:secret")
		runScenario(t, c, python, script, hosts, "--auth=app:wrong", "--expect-auth-failure")
	})
	t.Run("node", func(t *testing.T) {
		node := nodePath(t)
		script := filepath.Join("node", "scenario.js")
		runScenario(t, c, node, script, hosts, "--auth=app:secret")
		runScenario(t, c, node, script, hosts, "--auth=app:wrong", "--expect-auth-failure")
	})
}

// nodePath finds node and checks that the Node.js driver is installed.
func nodePath(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join("node", "node_modules", "cassandra-driver", "package.json")); err != nil {
		missing(t, "cassandra-driver is not installed in cqlsim/drivertest/node/node_modules")
	}
	return node
}

func TestNodeDriver(t *testing.T) {
	node := nodePath(t)
	c := cqlsim.StartT(t, cqlsim.Options{Nodes: nodes})
	out := runScenario(t, c, node, filepath.Join("node", "scenario.js"), strings.Join(c.Addrs(), ","))
	if !strings.Contains(out, "node scenario: OK") {
		t.Fatalf("scenario did not report success:\n%s", out)
	}
}
