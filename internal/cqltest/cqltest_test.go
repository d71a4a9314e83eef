package cqltest

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestParseHosts(t *testing.T) {
	cases := map[string][]string{
		"":                          nil,
		" , ":                       nil,
		"127.0.0.1":                 {"127.0.0.1:9042"},
		"127.0.0.1, 127.0.0.2:9043": {"127.0.0.1:9042", "127.0.0.2:9043"},
		"::1":                       {"[::1]:9042"},
		"[::1]:19042,localhost":     {"[::1]:19042", "localhost:9042"},
	}
	for in, want := range cases {
		if got := ParseHosts(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseHosts(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeyspaceNameIsUniqueAndSafe(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)
	a, b := KeyspaceName(t), KeyspaceName(t)
	if a == b {
		t.Fatalf("KeyspaceName returned %q twice", a)
	}
	t.Run("A very/long Sub-test name with spaces & symbols that goes on and on", func(t *testing.T) {
		name := KeyspaceName(t)
		if !valid.MatchString(name) {
			t.Fatalf("KeyspaceName = %q: not a valid unquoted CQL identifier of at most 48 characters", name)
		}
		if !strings.Contains(name, "keyspacenameisuniqueandsafe") {
			t.Fatalf("KeyspaceName = %q does not carry the test name", name)
		}
	})
}

// TestKeyspaceLifecycle checks against the real server that Keyspace creates a keyspace that
// exists during the test and is gone afterwards.
func TestKeyspaceLifecycle(t *testing.T) {
	var ks string
	var hosts []string
	t.Run("inner", func(t *testing.T) {
		ks, hosts = Keyspace(t)
		Exec(t, hosts[0], "CREATE TABLE "+ks+".t (k int PRIMARY KEY)")
		Exec(t, hosts[0], "INSERT INTO "+ks+".t (k) VALUES (1)")
	})
	if ks == "" {
		t.Skip("no server (inner test skipped)")
	}
	err := ExecErr(hosts[0], "INSERT INTO "+ks+".t (k) VALUES (2)")
	if err == nil {
		t.Fatalf("keyspace %s still usable after its test ended; want it dropped", ks)
	}
}

// TestConcurrentlyRunsEveryGoroutineAndReportsErrors: every index runs once, and an error
// fails the test (seen through a stub TB).
func TestConcurrentlyRunsEveryGoroutineAndReportsErrors(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]int{}
	Concurrently(t, 5, func(g int) error {
		mu.Lock()
		seen[g]++
		mu.Unlock()
		return nil
	})
	if len(seen) != 5 {
		t.Fatalf("goroutines run: %v, want 0 to 4 once each", seen)
	}
	for g, n := range seen {
		if g < 0 || g > 4 || n != 1 {
			t.Fatalf("goroutines run: %v, want 0 to 4 once each", seen)
		}
	}
	stub := &fatalTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		Concurrently(stub, 3, func(g int) error {
			if g == 1 {
				return errors.New("boom")
			}
			return nil
		})
	}()
	if !strings.Contains(stub.msg, "boom") {
		t.Fatalf("an error of one goroutine was reported as %q", stub.msg)
	}
}

// fatalTB records Fatalf instead of ending the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}
