package gocql_test

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// Frame compression through the gocql API: gocql v1.7.0 and compat, each with
// ClusterConfig.Compressor = SnappyCompressor{}, against the same server (cqlsim, which
// compresses its responses like Cassandra, or CQL_HOSTS), show the same results and the same
// errors: a multi-megabyte unpaged result (half of it incompressible), an empty result, server
// errors, and many small concurrent requests.
func TestReviewCompressSnappyDifferential(t *testing.T) {
	p := newDiffPair(t, "CREATE TABLE KS.zblobs (k int, c int, v blob, PRIMARY KEY (k, c))")
	hosts := p.hosts

	lc := gocqlv1.NewCluster(hosts...)
	lc.Keyspace, lc.ProtoVersion, lc.Timeout = reviewKeyspace, 4, 30*time.Second
	lc.Compressor = gocqlv1.SnappyCompressor{}
	legacy, err := lc.CreateSession()
	if err != nil {
		t.Fatalf("gocql v1.7.0 CreateSession with snappy: %v", err)
	}
	defer legacy.Close()
	cc := gocql.NewCluster(hosts...)
	cc.Keyspace, cc.ProtoVersion, cc.Timeout = reviewKeyspace, 4, 30*time.Second
	cc.Compressor = gocql.SnappyCompressor{}
	compat, err := cc.CreateSession()
	if err != nil {
		t.Fatalf("compat CreateSession with snappy: %v", err)
	}
	defer compat.Close()

	const rows, size = 8, 512 << 10
	r := rand.New(rand.NewPCG(7, 7))
	want := make([][]byte, rows)
	for i := range want {
		want[i] = make([]byte, size)
		for j := range want[i] {
			if i%2 == 0 {
				want[i][j] = byte(r.Uint32())
			} else {
				want[i][j] = byte(j % 7)
			}
		}
	}
	type run struct {
		name  string
		query func(stmt string, values ...interface{}) (iter func() ([]int, [][]byte, error), exec func() error)
	}
	legacyQ := func(stmt string, values ...interface{}) (func() ([]int, [][]byte, error), func() error) {
		q := legacy.Query(stmt, values...).PageSize(0)
		return func() ([]int, [][]byte, error) {
				it := q.Iter()
				var cs []int
				var vs [][]byte
				var c int
				var v []byte
				for it.Scan(&c, &v) {
					cs, vs = append(cs, c), append(vs, append([]byte(nil), v...))
				}
				return cs, vs, it.Close()
			}, func() error {
				return q.Exec()
			}
	}
	compatQ := func(stmt string, values ...interface{}) (func() ([]int, [][]byte, error), func() error) {
		q := compat.Query(stmt, values...).PageSize(0)
		return func() ([]int, [][]byte, error) {
				it := q.Iter()
				var cs []int
				var vs [][]byte
				var c int
				var v []byte
				for it.Scan(&c, &v) {
					cs, vs = append(cs, c), append(vs, append([]byte(nil), v...))
				}
				return cs, vs, it.Close()
			}, func() error {
				return q.Exec()
			}
	}
	var traces [2]*trace
	for n, rn := range []run{{"gocql", legacyQ}, {"compat", compatQ}} {
		tr := &trace{}
		k := n + 1 // each driver its own partition
		for i := range want {
			_, exec := rn.query("INSERT INTO zblobs (k, c, v) VALUES (?, ?, ?)", k, i, want[i])
			tr.add("insert", exec())
		}
		iter, _ := rn.query("SELECT c, v FROM zblobs WHERE k = ?", k)
		cs, vs, err := iter()
		same := len(vs) == rows
		for i := 0; same && i < rows; i++ {
			same = bytes.Equal(vs[i], want[i])
		}
		tr.add("large select", cs, len(vs), same, err)
		iter, _ = rn.query("SELECT c, v FROM zblobs WHERE k = ?", 99)
		cs, vs, err = iter()
		tr.add("empty select", cs, len(vs), err)
		_, exec := rn.query("SELEC broken")
		tr.add("syntax error", exec())
		_, exec = rn.query("SELECT * FROM no_such_table")
		tr.add("invalid", exec())

		var wg sync.WaitGroup
		var mu sync.Mutex
		bad := 0
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 25; i++ {
					iter, _ := rn.query("SELECT c, v FROM zblobs WHERE k = ? AND c = ?", 1000+g, i)
					if cs, _, err := iter(); err != nil || len(cs) != 0 {
						mu.Lock()
						bad++
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		tr.add("concurrent small requests failing", bad)
		traces[n] = tr
	}
	sameTrace(t, traces[0], traces[1])
}
