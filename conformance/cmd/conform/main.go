// Command conform runs the conformance suite: every scenario of conformance/scenarios, built once
// with gocql v1.7.0 and once with cqlbridge's drop-in, against the same server, and prints a table
// (scenario, legacy, shim, same?).
//
//	go run ./conformance/cmd/conform --hosts 127.0.0.1 --json out.json
//	go run ./conformance/cmd/conform --sim --doc docs/conformance.md
//
// It exits non-zero when a scenario differs without a pinned deviation (conformance.Deviations).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/cqlbridge/cqlbridge/conformance"
	"github.com/cqlbridge/cqlbridge/cqlsim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "conform:", err)
		os.Exit(1)
	}
}

func run() error {
	hosts := flag.String("hosts", "", "comma-separated server addresses (host or host:port)")
	sim := flag.Bool("sim", false, "run against an embedded cqlsim started by this command")
	jsonPath := flag.String("json", "", "write one JSON record per scenario to this file")
	docPath := flag.String("doc", "", "write the Markdown report (docs/conformance.md) to this file")
	filter := flag.String("run", "", "only scenarios matching this regular expression")
	sabotage := flag.String("sabotage", "", "corrupt the shim's trace of this scenario (proves the comparison can fail)")
	verbose := flag.Bool("v", false, "print the diff of every differing scenario")
	flag.Parse()
	if (*hosts == "") == !*sim {
		return fmt.Errorf("give exactly one of --hosts HOSTS or --sim")
	}
	opts := conformance.Options{Filter: *filter, Sabotage: *sabotage}
	if *sim {
		c, err := cqlsim.Start(cqlsim.Options{})
		if err != nil {
			return fmt.Errorf("starting cqlsim: %w", err)
		}
		defer c.Close()
		opts.Hosts, opts.Server = c.Addrs(), "cqlsim"
	} else {
		for _, h := range strings.Split(*hosts, ",") {
			if h = strings.TrimSpace(h); h != "" {
				opts.Hosts = append(opts.Hosts, h)
			}
		}
		opts.Server = "cassandra"
	}
	recs, err := conformance.Run(context.Background(), nil, opts)
	if err != nil {
		return err
	}
	conformance.PrintTable(os.Stdout, recs)
	diffs, stale := conformance.Unexpected(recs)
	if *verbose {
		for _, r := range recs {
			if !r.Same {
				fmt.Printf("\n--- %s (-legacy +shim):\n%s\n", r.Name, r.Diff)
			}
		}
	}
	if *jsonPath != "" {
		if err := conformance.WriteJSON(*jsonPath, recs); err != nil {
			return err
		}
	}
	if *docPath != "" {
		if err := conformance.WriteDoc(*docPath, recs); err != nil {
			return err
		}
	}
	fmt.Printf("\n%d scenarios, %d unexpected differences, %d stale pinned deviations\n", len(recs), len(diffs), len(stale))
	if len(diffs) > 0 || len(stale) > 0 {
		return fmt.Errorf("%d unexpected differences, %d stale pins", len(diffs), len(stale))
	}
	return nil
}
