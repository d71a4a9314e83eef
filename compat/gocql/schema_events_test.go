package gocql

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// keyspaceLog records the KeyspaceChanged calls of a host selection policy for keyspaces
// whose name starts with "evt".
type keyspaceLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *keyspaceLog) add(keyspace, change string) {
	if !strings.HasPrefix(keyspace, "evt") {
		return
	}
	l.mu.Lock()
	l.calls = append(l.calls, change+" "+keyspace)
	l.mu.Unlock()
}

func (l *keyspaceLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// recordingPolicy is compat's round-robin policy recording KeyspaceChanged.
type recordingPolicy struct {
	HostSelectionPolicy
	log *keyspaceLog
}

func (p recordingPolicy) KeyspaceChanged(e KeyspaceUpdateEvent) {
	p.log.add(e.Keyspace, e.Change)
	p.HostSelectionPolicy.KeyspaceChanged(e)
}

// legacyRecordingPolicy is recordingPolicy for gocql v1.7.0.
type legacyRecordingPolicy struct {
	gocqlv1.HostSelectionPolicy
	log *keyspaceLog
}

func (p legacyRecordingPolicy) KeyspaceChanged(e gocqlv1.KeyspaceUpdateEvent) {
	p.log.add(e.Keyspace, e.Change)
	p.HostSelectionPolicy.KeyspaceChanged(e)
}

// TestKeyspaceChangedLikeGocql: the host selection policy's KeyspaceChanged is called for the
// keyspace schema changes of any client (here a third session), as in gocql v1.7.0, with the
// same keyspaces and changes in the same order; with Events.DisableSchemaEvents it is not
// called, in both drivers.
func TestKeyspaceChangedLikeGocql(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		t.Run(fmt.Sprintf("DisableSchemaEvents=%v", disabled), func(t *testing.T) {
			sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 2})
			var shim, legacy keyspaceLog
			sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
				c.PoolConfig.HostSelectionPolicy = recordingPolicy{RoundRobinHostPolicy(), &shim}
				l.PoolConfig.HostSelectionPolicy = legacyRecordingPolicy{gocqlv1.RoundRobinHostPolicy(), &legacy}
				c.Events.DisableSchemaEvents, l.Events.DisableSchemaEvents = disabled, disabled
			})
			other := NewCluster(sim.Addrs()[1])
			other.Port = sim.Port()
			ddl, err := other.CreateSession()
			if err != nil {
				t.Fatal(err)
			}
			defer ddl.Close()
			for _, stmt := range []string{
				"CREATE KEYSPACE evt1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE evt1.t (k int PRIMARY KEY)", // a table change: no KeyspaceChanged
				"ALTER KEYSPACE evt1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}",
				"CREATE KEYSPACE evt2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"DROP KEYSPACE evt1",
			} {
				if err := ddl.Query(stmt).Exec(); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			want := []string{"CREATED evt1", "UPDATED evt1", "CREATED evt2", "DROPPED evt1"}
			if disabled {
				// Nothing is expected: give the events time to arrive, then check none did.
				time.Sleep(2 * time.Second)
				if got, gotLegacy := shim.get(), legacy.get(); len(got) != 0 || len(gotLegacy) != 0 {
					t.Fatalf("with DisableSchemaEvents, KeyspaceChanged calls: compat %q, gocql %q; want none", got, gotLegacy)
				}
				return
			}
			eventually(t, "both policies saw the four keyspace changes", func() bool {
				return len(shim.get()) >= len(want) && len(legacy.get()) >= len(want)
			})
			// The same calls; gocql's order may differ from the events' (CI saw it call
			// DROPPED evt1 before CREATED evt2), compat keeps the events' order.
			if diff := cmp.Diff(slices.Sorted(slices.Values(legacy.get())), slices.Sorted(slices.Values(shim.get()))); diff != "" {
				t.Fatalf("KeyspaceChanged calls, sorted (-gocql +compat):\n%s", diff)
			}
			if got := shim.get(); !slices.Equal(got, want) {
				t.Fatalf("compat called KeyspaceChanged with %q; want %q, the order of the DDL", got, want)
			}
		})
	}
}

// TestKeyspaceChangedAtStartLikeGocql: gocql v1.7.0 ends its initialisation by calling the
// policy's KeyspaceChanged with the session keyspace (so the policy may cache its
// settings), and its token-aware policy keeps KeyspaceChanged to itself: the fallback policy
// hears neither that call nor the schema change events. The shim does the same.
func TestKeyspaceChangedAtStartLikeGocql(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{})
	admin := NewCluster(sim.Addrs()...)
	as, err := admin.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	if err := as.Query("CREATE KEYSPACE evtstart WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatal(err)
	}
	var shimTop, shimFallback, legacyTop, legacyFallback keyspaceLog
	sessionsOn(t, sim, func(c *ClusterConfig, l *gocqlv1.ClusterConfig) {
		c.Keyspace, l.Keyspace = "evtstart", "evtstart"
		c.PoolConfig.HostSelectionPolicy = recordingPolicy{TokenAwareHostPolicy(recordingPolicy{RoundRobinHostPolicy(), &shimFallback}), &shimTop}
		l.PoolConfig.HostSelectionPolicy = legacyRecordingPolicy{gocqlv1.TokenAwareHostPolicy(legacyRecordingPolicy{gocqlv1.RoundRobinHostPolicy(), &legacyFallback}), &legacyTop}
	})
	if diff := cmp.Diff(legacyTop.get(), shimTop.get()); diff != "" {
		t.Errorf("KeyspaceChanged calls at start (-gocql +compat):\n%s", diff)
	}
	if got := shimTop.get(); !slices.Equal(got, []string{" evtstart"}) {
		t.Errorf("compat's policy got %q at start, want the session keyspace", got)
	}
	if err := as.Query("CREATE KEYSPACE evtlater WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "both policies saw the new keyspace", func() bool {
		return len(shimTop.get()) == 2 && len(legacyTop.get()) == 2
	})
	if got, gotLegacy := shimFallback.get(), legacyFallback.get(); len(got) != 0 || len(gotLegacy) != 0 {
		t.Errorf("the token-aware policy's fallback got KeyspaceChanged calls: compat %q, gocql %q; want none", got, gotLegacy)
	}
}
