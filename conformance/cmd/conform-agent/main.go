// Command conform-agent runs the conformance scenarios with whatever package the import path
// github.com/gocql/gocql resolves to in this build: the real gocql v1.7.0 (the legacy build) or
// cqlbridge's drop-in (the shim build, made with -modfile adding the replace). It writes the
// traces as JSON. The runner (conformance/cmd/conform) builds and runs it; it is not meant to be
// run by hand, though it can be:
//
//	go run ./conformance/cmd/conform-agent --hosts 127.0.0.1 --out legacy.json
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/conformance/scenarios"
	"github.com/cqlbridge/cqlbridge/conformance/trace"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the usage was printed
		}
		fmt.Fprintln(os.Stderr, "conform-agent:", err)
		os.Exit(1)
	}
}

// run runs the agent with the command-line arguments args (without the program name).
func run(args []string) error {
	fs := flag.NewFlagSet("conform-agent", flag.ContinueOnError)
	hosts := fs.String("hosts", "", "comma-separated server addresses")
	out := fs.String("out", "", "file to write the traces to")
	filter := fs.String("run", "", "only scenarios whose name matches this regular expression")
	sabotage := fs.String("sabotage", "", "corrupt the trace of this scenario (self-test of the comparison)")
	label := fs.String("label", "agent", "short label used in the keyspace name")
	timeout := fs.Duration("scenario-timeout", 180*time.Second, "the context deadline of each scenario; one that has not returned 30s after it is reported as hung")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *hosts == "" || *out == "" {
		return fmt.Errorf("--hosts and --out are required")
	}
	var re *regexp.Regexp
	if *filter != "" {
		var err error
		if re, err = regexp.Compile(*filter); err != nil {
			return fmt.Errorf("--run: %w", err)
		}
	}
	hostList := strings.Split(*hosts, ",")
	var b [4]byte
	_, _ = rand.Read(b[:])
	ks := "conform_" + *label + "_" + hex.EncodeToString(b[:])

	admin := gocql.NewCluster(hostList...)
	admin.Consistency = gocql.One
	admin.Timeout = 60 * time.Second
	admin.ConnectTimeout = 30 * time.Second
	as, err := admin.CreateSession()
	if err != nil {
		return fmt.Errorf("connecting to %v: %w", hostList, err)
	}
	// A hung scenario may hold what Close and the keyspace's DROP would wait for: after one,
	// the agent writes its traces and leaves the sessions (and the keyspace) as they are.
	hung := 0
	defer func() {
		if hung == 0 {
			as.Close()
		}
	}()
	if err := as.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		return fmt.Errorf("creating keyspace %s: %w", ks, err)
	}
	defer func() {
		if hung == 0 {
			as.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
		}
	}()

	cluster := gocql.NewCluster(hostList...)
	cluster.Keyspace = ks
	cluster.Consistency = gocql.One
	cluster.Timeout = 60 * time.Second
	cluster.ConnectTimeout = 20 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("session on keyspace %s: %w", ks, err)
	}
	defer func() {
		if hung == 0 {
			s.Close()
		}
	}()

	normalize := normalizer(ks, hostList)
	var results []trace.Scenario
	for i, sc := range scenarios.All() {
		if re != nil && !re.MatchString(sc.Name) {
			continue
		}
		rec := trace.NewRecorder(normalize)
		res := trace.Scenario{Name: sc.Name}
		n := i
		panicked, finished := runScenario(*timeout, hangGrace, func(ctx context.Context) {
			sc.Run(&scenarios.Env{Ctx: ctx, Session: s, Keyspace: ks, Hosts: hostList, R: rec,
				Table: func(prefix string) string { return fmt.Sprintf("%s_%d", prefix, n) }})
		})
		if finished {
			res.Panic = normalize(panicked)
			res.Events = rec.Events()
		} else {
			// The recorder is still the hung goroutine's: its events are not read.
			hung++
			res.Panic = fmt.Sprintf("hung: the scenario had not returned %v after its context's deadline", hangGrace)
			fmt.Fprintf(os.Stderr, "conform-agent: %s hung\n", sc.Name)
		}
		if sc.Name == *sabotage && len(res.Events) > 0 {
			ev := &res.Events[len(res.Events)-1]
			ev.Values = append(ev.Values, "int:999999 (sabotaged)")
		}
		results = append(results, res)
	}
	data, err := trace.Encode(results)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, data, 0o644)
}

// hangGrace is how long after its context's deadline a scenario is reported as hung.
const hangGrace = 30 * time.Second

// runScenario runs run with a context that ends after timeout, in a goroutine, so that a
// scenario that never returns (a call that ignores its context and blocks) is reported as hung
// (finished false, grace after the deadline) and the other scenarios still run, instead of the
// agent, and the runner waiting for it, never ending. panicked is the value of a panic that
// escaped run, formatted, or "".
func runScenario(timeout, grace time.Duration, run func(ctx context.Context)) (panicked string, finished bool) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan string, 1)
	go func() {
		p := ""
		defer func() {
			if r := recover(); r != nil {
				p = fmt.Sprint(r)
			}
			done <- p
		}()
		run(ctx)
	}()
	watchdog := time.NewTimer(timeout + grace)
	defer watchdog.Stop()
	select {
	case p := <-done:
		return p, true
	case <-watchdog.C:
		return "", false
	}
}

// normalizer blanks what legitimately differs between two runs: the per-run keyspace name, the
// servers' addresses, and the package qualifiers of type names (the shim's value types may be
// aliases of cqlbridge's native types).
func normalizer(ks string, hosts []string) func(string) string {
	repl := []string{ks, "<keyspace>"}
	// An address with its port first (the replacer tries its pairs in order), so that an
	// error naming host:port reads the same on every server: cqlsim listens on a port of its
	// own, Cassandra on 9042.
	for _, h := range hosts {
		host, port := h, "9042"
		if i := strings.LastIndex(h, ":"); i > 0 {
			host, port = h[:i], h[i+1:]
		}
		repl = append(repl, host+":"+port, "<host>")
	}
	for _, h := range hosts {
		host := h
		if i := strings.LastIndex(h, ":"); i > 0 {
			host = h[:i]
		}
		repl = append(repl, host, "<host>")
	}
	repl = append(repl, "cqltype.", "gocql.", "native.", "gocql.")
	r := strings.NewReplacer(repl...)
	return func(s string) string {
		s = r.Replace(s)
		// The JVM's "helpful" NullPointerException text is only there until the JIT omits it
		// for a hot throw site, so the same server error reads differently run to run.
		if i := strings.Index(s, "java.lang.NullPointerException: "); i >= 0 {
			s = s[:i] + "java.lang.NullPointerException"
		}
		return s
	}
}
