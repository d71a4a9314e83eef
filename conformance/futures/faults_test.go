package futures_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/conformance/futures"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// TestFaultScenariosMatchPythonDriver runs the scenarios of faults.json, whose statements every
// node answers with an injected server error (a read or write timeout, unavailable,
// overloaded, ...) or late, on the Python driver and on package future, each against a cqlsim cluster
// of its own with the same faults: the error handling and the default retry policy (legacy
// semantics A21-A23) must give the same traces. A real node cannot be made to return these
// errors, so this part of the suite runs on cqlsim.
func TestFaultScenariosMatchPythonDriver(t *testing.T) {
	scenarios, err := futures.Load("faults.json")
	if err != nil {
		t.Fatal(err)
	}
	py := requirePython(t)
	groups := map[int][]futures.Scenario{}
	for _, sc := range scenarios {
		if len(sc.AllFaults()) == 0 {
			t.Fatalf("scenario %s of faults.json has no fault", sc.Name)
		}
		groups[max(sc.Nodes, 1)] = append(groups[max(sc.Nodes, 1)], sc)
	}
	sizes := make([]int, 0, len(groups))
	for n := range groups {
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	for _, nodes := range sizes {
		group := groups[nodes]
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		pySim, _, pyKS := faultedCluster(t, ctx, nodes, group)
		_, sess, goKS := faultedCluster(t, ctx, nodes, group)

		names := make([]string, len(group))
		for i, sc := range group {
			names[i] = sc.Name
		}
		cmd := exec.CommandContext(ctx, py, "runner.py", "faults.json", pyKS, strings.Join(pySim.Addrs(), ","), strings.Join(names, ","))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("python runner on %d nodes: %v\n%s", nodes, err, stderr.String())
		}
		var pyTraces map[string]futures.Trace
		if err := json.Unmarshal(out, &pyTraces); err != nil {
			t.Fatalf("python runner output: %v\n%s", err, out)
		}
		for _, sc := range group {
			t.Run(sc.Name, func(t *testing.T) {
				pt, ok := pyTraces[sc.Name]
				if !ok {
					t.Fatalf("the python runner produced no trace for %s", sc.Name)
				}
				gt := futures.Run(ctx, sess, sc, goKS)
				sameTraces(t, sc, pt, gt)
				if len(gt.Callbacks) == 0 {
					t.Errorf("no callback or errback fired: %s", mustJSON(gt))
				}
			})
		}
	}
}

// faultedCluster starts a cqlsim cluster of n nodes with the scenario tables in a fresh
// keyspace, injects every scenario's fault into every node, and returns the cluster, a native
// session on it that has a connection to every node, and the keyspace.
func faultedCluster(t *testing.T, ctx context.Context, n int, scenarios []futures.Scenario) (*cqlsim.Cluster, *native.Session, string) {
	t.Helper()
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: n})
	sess, err := native.Connect(ctx, native.Config{Hosts: sim.Addrs()[:1]})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ks := setup(t, ctx, sess)
	for _, addr := range sim.Addrs() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := sess.Execute(ctx, native.Query("SELECT release_version FROM system.local").WithHost(addr))
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s never served: %v", addr, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, sc := range scenarios {
		for _, sf := range sc.AllFaults() {
			f, err := sf.Sim(strings.ReplaceAll(sc.Statement, "{ks}", ks))
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if err := sim.InjectFault(i, f); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return sim, sess, ks
}
