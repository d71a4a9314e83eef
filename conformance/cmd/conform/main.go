// Command conform runs the conformance suite: every scenario of conformance/scenarios, built once
// with gocql v1.7.0 and once with cqlbridge's drop-in, against the same server, and prints a table
// (scenario, legacy, shim, same?).
//
//	go run ./conformance/cmd/conform --hosts 127.0.0.1 --json out.json
//	go run ./conformance/cmd/conform --sim --doc docs/conformance.md
//	go run ./conformance/cmd/conform --hosts 127.0.0.1 --sim --doc docs/conformance.md --json out.json
//
// With both --hosts and --sim it runs the suite on the real node and on an embedded cqlsim and
// also compares the legacy traces of the two servers (cqlsim's fidelity, reported, never fatal).
//
// It exits non-zero when a scenario differs without a pinned deviation (conformance.Deviations)
// and without being listed in conformance/testdata/known-<server>.txt, when a pin is stale, or
// when the shim's trace of a pinned scenario is not the one pinned in
// conformance/testdata/pinned-<server>.json (conformance.CheckPins).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cqlbridge/cqlbridge/conformance"
	"github.com/cqlbridge/cqlbridge/cqlsim"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the usage was printed
		}
		fmt.Fprintln(os.Stderr, "conform:", err)
		os.Exit(1)
	}
}

// run runs the command with the command-line arguments args (without the program name),
// printing its report to stdout.
func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	hosts := fs.String("hosts", "", "comma-separated server addresses (host or host:port) of a real node")
	sim := fs.Bool("sim", false, "also (or only) run against an embedded cqlsim started by this command")
	jsonPath := fs.String("json", "", "write one JSON record per scenario and server to this file")
	docPath := fs.String("doc", "", "write the Markdown report (docs/conformance.md) to this file")
	filter := fs.String("run", "", "only scenarios matching this regular expression")
	sabotage := fs.String("sabotage", "", "corrupt the shim's trace of this scenario (proves the comparison can fail)")
	verbose := fs.Bool("v", false, "print the diff of every differing scenario (and fidelity gap)")
	scenarioTimeout := fs.Duration("scenario-timeout", 0, "each scenario's context deadline in the agents (default 180s); a scenario still running 30s later is reported as hung")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *hosts == "" && !*sim {
		return fmt.Errorf("give --hosts HOSTS, --sim, or both")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "conform")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	build, err := conformance.BuildAgents(ctx, dir)
	if err != nil {
		return err
	}
	base := conformance.Options{Filter: *filter, Sabotage: *sabotage, WorkDir: dir, ScenarioTimeout: *scenarioTimeout}
	var outcomes []*conformance.Outcome
	if *hosts != "" {
		o := base
		for _, h := range strings.Split(*hosts, ",") {
			if h = strings.TrimSpace(h); h != "" {
				o.Hosts = append(o.Hosts, h)
			}
		}
		o.Server = "cassandra"
		out, err := conformance.RunOutcome(ctx, build, o)
		if err != nil {
			return err
		}
		outcomes = append(outcomes, out)
	}
	if *sim {
		c, err := cqlsim.Start(cqlsim.Options{})
		if err != nil {
			return fmt.Errorf("starting cqlsim: %w", err)
		}
		defer c.Close()
		o := base
		o.Hosts, o.Server = c.Addrs(), "cqlsim"
		out, err := conformance.RunOutcome(ctx, build, o)
		if err != nil {
			return err
		}
		outcomes = append(outcomes, out)
	}

	var all []conformance.Record
	var summary []string
	failed := false
	for _, out := range outcomes {
		known, err := conformance.KnownDifferences(out.Server)
		if err != nil {
			return err
		}
		conformance.PrintTable(stdout, out.Records, known)
		if *verbose {
			for _, r := range out.Records {
				if !r.Same {
					fmt.Fprintf(stdout, "\n--- %s on %s (-legacy +shim):\n%s\n", r.Name, r.Server, r.Diff)
				}
			}
		}
		diffs, stale := conformance.Unexpected(out.Records, known)
		drift, recorded, err := conformance.CheckPins(out)
		if err != nil {
			return err
		}
		for _, r := range drift {
			fmt.Fprintf(stdout, "\n--- pinned deviation %s on %s: the shim no longer behaves as pinned (-pinned +shim):\n%s\n", r.Name, r.Server, r.Diff)
		}
		pins := fmt.Sprintf("%d pinned deviations whose shim trace changed", len(drift))
		if !recorded {
			pins = "pinned shim traces not checked (no conformance/testdata/pinned-" + out.Server + ".json)"
		}
		summary = append(summary, fmt.Sprintf("%s: %d scenarios, %d unexpected differences, %d stale pinned deviations, %s",
			out.Server, len(out.Records), len(diffs), len(stale), pins))
		failed = failed || len(diffs) > 0 || len(stale) > 0 || len(drift) > 0
		all = append(all, out.Records...)
	}
	var fid []conformance.FidelityRecord
	if len(outcomes) == 2 {
		fid = conformance.CompareServers(outcomes[0], outcomes[1])
		conformance.PrintFidelity(stdout, fid)
		if *verbose {
			for _, r := range fid {
				if !r.Same {
					fmt.Fprintf(stdout, "\n--- fidelity %s (-%s +%s):\n%s\n", r.Name, r.Reference, r.Server, r.Diff)
				}
			}
		}
	}
	if *jsonPath != "" {
		if err := conformance.WriteJSON(*jsonPath, all); err != nil {
			return err
		}
	}
	if *docPath != "" {
		if err := conformance.WriteDoc(*docPath, all, fid); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout)
	for _, s := range summary {
		fmt.Fprintln(stdout, s)
	}
	if failed {
		return fmt.Errorf("unexpected differences or stale pins (see above)")
	}
	return nil
}
