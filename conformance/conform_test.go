package conformance

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

var updateBaseline = flag.Bool("update-baseline", false, "rewrite testdata/known-<server>.txt from this run")

// The shim does not yet pass every scenario. testdata/known-<server>.txt lists the scenarios whose
// difference is known and not yet fixed (distinct from pinned deviations, which are deliberate).
// The test is a ratchet: it fails on any difference not in the list, and on any listed scenario
// that now matches (so the list only shrinks).
func knownDifferences(t *testing.T, server string) map[string]bool {
	t.Helper()
	known := map[string]bool{}
	f, err := os.Open(filepath.Join("testdata", "known-"+server+".txt"))
	if os.IsNotExist(err) {
		return known
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	for name := range parseKnown(string(data)) {
		known[name] = true
	}
	return known
}

func writeKnown(t *testing.T, server string, names []string) {
	sort.Strings(names)
	body := "# Scenarios whose shim trace differs from legacy gocql and is not yet fixed (see conform_test.go).\n" +
		"# Regenerate: go test ./conformance -run TestConformance -update-baseline\n" + strings.Join(names, "\n") + "\n"
	if err := os.WriteFile(filepath.Join("testdata", "known-"+server+".txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkRecords(t *testing.T, server string, recs []Record) {
	t.Helper()
	if len(recs) < 150 {
		t.Errorf("only %d scenarios ran on %s", len(recs), server)
	}
	known := knownDifferences(t, server)
	var now []string
	same := 0
	for _, r := range recs {
		if r.Legacy != "pass" {
			if _, pinned := Expected(r.Name); !pinned {
				t.Errorf("%s on %s: the legacy run itself failed (a scenario bug)", r.Name, server)
			}
		}
		_, pinned := Expected(r.Name)
		switch {
		case r.Same && pinned:
			t.Errorf("%s on %s: pinned deviation no longer differs; remove the pin", r.Name, server)
		case r.Same:
			same++
			if known[r.Name] {
				t.Errorf("%s on %s: listed as a known difference but now matches; remove it from testdata/known-%s.txt", r.Name, server, server)
			}
		case pinned:
		default:
			now = append(now, r.Name)
			if !known[r.Name] {
				t.Errorf("%s on %s: unexpected difference (-legacy +shim):\n%s", r.Name, server, r.Diff)
			}
		}
	}
	t.Logf("%s: %d scenarios, %d identical, %d known differences outstanding", server, len(recs), same, len(now))
	if *updateBaseline {
		writeKnown(t, server, now)
	}
}

func buildOnce(t *testing.T) *Build {
	t.Helper()
	b, err := BuildAgents(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b.ShimErr != nil {
		t.Logf("shim build failed (every scenario counts as different): %v", b.ShimErr)
	}
	return b
}

// TestConformance runs every scenario with legacy gocql and with the shim, against the real node
// (CQL_HOSTS) and against cqlsim.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance suite skipped in -short mode")
	}
	b := buildOnce(t)
	var cassandra, sim *Outcome
	t.Run("cassandra", func(t *testing.T) {
		hosts := cqltest.HostsFromEnv()
		if len(hosts) == 0 {
			t.Skip("CQL_HOSTS unset: the Cassandra half of the suite needs a real node (make test starts one)")
		}
		out, err := RunOutcome(context.Background(), b, Options{Hosts: hosts, Server: "cassandra"})
		if err != nil {
			t.Fatal(err)
		}
		cassandra = out
		checkRecords(t, "cassandra", out.Records)
	})
	t.Run("cqlsim", func(t *testing.T) {
		c := cqlsim.StartT(t, cqlsim.Options{})
		out, err := RunOutcome(context.Background(), b, Options{Hosts: c.Addrs(), Server: "cqlsim"})
		if err != nil {
			t.Fatal(err)
		}
		sim = out
		checkRecords(t, "cqlsim", out.Records)
	})
	// cqlsim's fidelity (legacy gocql on Cassandra vs on cqlsim) is measured, not enforced.
	if cassandra != nil && sim != nil {
		fid := CompareServers(cassandra, sim)
		gaps := 0
		for _, r := range fid {
			if !r.Same {
				gaps++
				t.Logf("fidelity gap %s: %s", r.Name, r.Summary)
			}
		}
		t.Logf("fidelity: %d scenarios, %d differ between cassandra and cqlsim", len(fid), gaps)
	}
}

// TestComparisonCatchesMisbehaviour proves the suite can fail: the shim's trace of one scenario is
// corrupted on purpose (an extra value, like a wrong NumRows) and the comparison must flag it.
func TestComparisonCatchesMisbehaviour(t *testing.T) {
	b := buildOnce(t)
	hosts := cqltest.HostsFromEnv()
	if len(hosts) == 0 {
		c := cqlsim.StartT(t, cqlsim.Options{})
		hosts = c.Addrs()
	}
	// Compare legacy with legacy (the shim binary replaced by the legacy one) so that the only
	// possible difference is the sabotage.
	// Every scenario runs, so this is also the determinism check the suite relies on: two legacy
	// runs against the same server must leave identical traces.
	legacyTwice := &Build{Legacy: b.Legacy, Shim: b.Legacy}
	const victim = "paging/auto_10_rows_page_3"
	recs, err := Run(context.Background(), legacyTwice, Options{Hosts: hosts, Server: "self-test", Sabotage: victim})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 150 {
		t.Fatalf("self-test ran %d scenarios, want all", len(recs))
	}
	for _, r := range recs {
		if r.Name == victim {
			if r.Same || !strings.Contains(r.Diff, "sabotaged") {
				t.Fatalf("sabotaged scenario %s compared equal; the comparison cannot fail (diff %q)", r.Name, r.Diff)
			}
		} else if !r.Same {
			t.Errorf("legacy vs legacy differs on %s: the suite is not deterministic:\n%s", r.Name, r.Diff)
		}
	}
}
