package conformance

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

var (
	updateBaseline = flag.Bool("update-baseline", false, "rewrite testdata/known-<server>.txt from this run")
	updatePins     = flag.Bool("update-pins", false, "rewrite testdata/pinned-<server>.json (the shim traces of the pinned deviations) from this run")
)

// checkPins fails the test when the shim's trace of a pinned deviation is not the pinned one
// (see CheckPins), or rewrites the pins with -update-pins.
func checkPins(t *testing.T, out *Outcome) {
	t.Helper()
	if *updatePins {
		if err := WritePins(out); err != nil {
			t.Fatal(err)
		}
		return
	}
	drift, recorded, err := CheckPins(out)
	if err != nil {
		t.Fatal(err)
	}
	if !recorded {
		t.Logf("%s: no testdata/pinned-%s.json: the shim traces of the pinned deviations are not checked (record them with -update-pins)", out.Server, out.Server)
	}
	for _, r := range drift {
		t.Errorf("%s on %s: pinned deviation, but the shim no longer behaves as pinned (-pinned +shim); if the change is deliberate, update docs/deviations.md and run with -update-pins:\n%s", r.Name, r.Server, r.Diff)
	}
}

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

// rerunDiffering runs once more the scenarios of recs that differ (other than pinned deviations)
// and are not known differences, and returns recs with their new records. The real node is shared and sometimes stalls past a
// request timeout, which makes one run's trace differ; a scenario whose traces differ twice in a
// row is a real difference (or a non-deterministic scenario, which is a bug too).
func rerunDiffering(t *testing.T, b *Build, o Options, recs []Record, known map[string]bool) []Record {
	t.Helper()
	var names []string
	for _, r := range recs {
		if !r.Same && !isPinned(r.Name) && !known[r.Name] && r.Name != o.Sabotage {
			names = append(names, regexp.QuoteMeta(r.Name))
			t.Logf("%s on %s differs; running it again: %s", r.Name, o.Server, summarize(r.Diff))
		}
	}
	if len(names) == 0 {
		return recs
	}
	o.Filter = "^(" + strings.Join(names, "|") + ")$"
	again, err := Run(context.Background(), b, o)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Record{}
	for _, r := range again {
		byName[r.Name] = r
	}
	out := make([]Record, len(recs))
	for i, r := range recs {
		if n, ok := byName[r.Name]; ok {
			r = n
		}
		out[i] = r
	}
	return out
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
		o := Options{Hosts: hosts, Server: "cassandra"}
		out, err := RunOutcome(context.Background(), b, o)
		if err != nil {
			t.Fatal(err)
		}
		cassandra = out
		checkRecords(t, "cassandra", rerunDiffering(t, b, o, out.Records, knownDifferences(t, "cassandra")))
		checkPins(t, out)
	})
	t.Run("cqlsim", func(t *testing.T) {
		c := cqlsim.StartT(t, cqlsim.Options{})
		o := Options{Hosts: c.Addrs(), Server: "cqlsim"}
		out, err := RunOutcome(context.Background(), b, o)
		if err != nil {
			t.Fatal(err)
		}
		sim = out
		checkRecords(t, "cqlsim", rerunDiffering(t, b, o, out.Records, knownDifferences(t, "cqlsim")))
		checkPins(t, out)
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
	o := Options{Hosts: hosts, Server: "self-test", Sabotage: victim}
	recs, err := Run(context.Background(), legacyTwice, o)
	if err != nil {
		t.Fatal(err)
	}
	recs = rerunDiffering(t, legacyTwice, o, recs, nil)
	if len(recs) < 150 {
		t.Fatalf("self-test ran %d scenarios, want all", len(recs))
	}
	for _, r := range recs {
		if r.Name == victim {
			if r.Same || !strings.Contains(r.Diff, "sabotaged") {
				t.Fatalf("sabotaged scenario %s compared equal; the comparison cannot fail (diff %q)", r.Name, r.Diff)
			}
		} else if !r.Same && !strings.HasPrefix(r.Diff, shimPanickedAlike) {
			// (Legacy panicking alike twice is deterministic; only a shim may not panic.)
			t.Errorf("legacy vs legacy differs on %s: the suite is not deterministic:\n%s", r.Name, r.Diff)
		}
	}
}
