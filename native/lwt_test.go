package native_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// On ScyllaDB-like nodes (cqlsim with shards, which offers ScyllaDB's LWT mark), a prepared
// lightweight transaction goes to its partition's primary replica every time, so that its Paxos
// rounds do not contend across coordinators; other statements rotate over the replicas. Without
// the mark (Cassandra), lightweight transactions rotate too.
func TestLWTGoesToThePrimaryReplica(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards int
		pinned bool
	}{{"marked", 2, true}, {"unmarked", 0, false}} {
		t.Run(tc.name, func(t *testing.T) {
			cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3, Shards: tc.shards})
			// The schema exists before the session connects, so its replica map has it.
			cqltest.Exec(t, cl.Addrs()[0], "CREATE KEYSPACE lw WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}")
			cqltest.Exec(t, cl.Addrs()[0], "CREATE TABLE lw.t (k int PRIMARY KEY, v int)")
			s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			waitHostsUp(t, s, 3)
			owner := ownerOf(t, s)
			lwt := mustPrepare(t, s, "UPDATE lw.t SET v = ? WHERE k = ? IF v = ?")
			plain := mustPrepare(t, s, "UPDATE lw.t SET v = ? WHERE k = ?")
			for k := range 5 {
				lwtHosts, plainHosts := map[string]int{}, map[string]int{}
				for i := range 12 {
					res, err := s.Execute(ctxT(t), lwt.Bind(i+1, k, i))
					if err != nil {
						t.Fatal(err)
					}
					lwtHosts[res.Host()]++
					if res, err = s.Execute(ctxT(t), plain.Bind(i, k)); err != nil {
						t.Fatal(err)
					}
					plainHosts[res.Host()]++
				}
				primary := owner(binary.BigEndian.AppendUint32(nil, uint32(k)))
				if tc.pinned && lwtHosts[primary] != 12 {
					t.Errorf("key %d: lightweight transactions ran on %v, want all 12 on the primary replica %s", k, lwtHosts, primary)
				}
				if !tc.pinned && len(lwtHosts) < 2 {
					t.Errorf("key %d: unmarked lightweight transactions ran on %v only, want them rotated over the replicas", k, lwtHosts)
				}
				if len(plainHosts) < 2 {
					t.Errorf("key %d: other statements ran on %v only, want them rotated over the replicas", k, plainHosts)
				}
			}
		})
	}
}
