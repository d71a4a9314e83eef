package native_test

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/murmur3"
	"github.com/cqlbridge/cqlbridge/native"
)

// On a ring laid out by hand, where 127.0.0.1 owns two consecutive tokens (vnodes), a keyspace
// with two replicas places each range on its owner and the next distinct node of the ring, as
// Cassandra does: the range that wraps around the ring goes to 127.0.0.1 and 127.0.0.2, not to
// 127.0.0.1 twice (gocql v1.7.0's placement, deviation G35 of compat/gocql). Requests with a
// partition key are served by exactly the two replicas.
func TestVnodeReplicasAreDistinctNodes(t *testing.T) {
	cl := cqlsim.StartT(t, cqlsim.Options{Nodes: 3,
		NodeTokens: [][]string{{"-9000000000000000000", "-8000000000000000000"}, {"0"}, {"4000000000000000000"}}})
	s, err := native.Connect(ctxT(t), native.Config{Hosts: cl.Addrs()[:1], Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitHostsUp(t, s, 3)
	mustExec(t, s, "CREATE KEYSPACE vnodes WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 2}")
	mustExec(t, s, "CREATE TABLE vnodes.kv (k int PRIMARY KEY, v int)")
	// The driver refreshes its replica map on the schema change event; wait for it.
	time.Sleep(500 * time.Millisecond)

	a := cl.Addrs()
	// The replicas of a token: the owner of the first token at or above it (wrapping around),
	// then the next node of the ring that is not the owner.
	replicas := func(tok int64) []string {
		switch {
		case tok > -9000000000000000000 && tok <= -8000000000000000000,
			tok > 4000000000000000000 || tok <= -9000000000000000000:
			return []string{a[0], a[1]}
		case tok <= 0:
			return []string{a[1], a[2]}
		default:
			return []string{a[2], a[0]}
		}
	}
	sel := mustPrepare(t, s, "SELECT v FROM vnodes.kv WHERE k = ?")
	wrapping := 0
	for k := range 120 {
		var key [4]byte
		binary.BigEndian.PutUint32(key[:], uint32(k))
		tok := murmur3.Token(key[:])
		if tok > 4000000000000000000 || tok <= -9000000000000000000 {
			wrapping++
		}
		want := replicas(tok)
		slices.Sort(want)
		got := servingNodes(t, s, sel.Bind(k), 8)
		if !slices.Equal(got, want) {
			t.Errorf("key %d (token %d): served by %v, want its replicas %v", k, tok, got, want)
		}
	}
	if wrapping == 0 {
		t.Fatal("no key of the test falls in the range that wraps around the ring")
	}
}

// servingNodes runs stmt n times and returns the distinct nodes that served it, sorted.
func servingNodes(t *testing.T, s *native.Session, stmt native.Statement, n int) []string {
	t.Helper()
	var got []string
	for range n {
		res, err := s.Execute(ctxT(t), stmt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, res.Host()) {
			got = append(got, res.Host())
		}
	}
	slices.Sort(got)
	return got
}
