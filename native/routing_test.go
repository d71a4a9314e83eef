package native_test

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
	"github.com/cqlbridge/cqlbridge/native/internal/ring"
)

// TestTokenMatchesServer compares the driver's Murmur3 token with the server's token() for
// blob keys of every length from 1 to 48 (every tail length, with bytes >= 0x80, which
// Cassandra sign-extends) and for composite keys.
func TestTokenMatchesServer(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE b (k blob PRIMARY KEY)")
	mustExec(t, s, "CREATE TABLE c (a int, b text, PRIMARY KEY ((a, b)))")
	insB := mustPrepare(t, s, "INSERT INTO b (k) VALUES (?)")
	tokB := mustPrepare(t, s, "SELECT token(k) FROM b WHERE k = ?")
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 48; n++ {
		for range 3 {
			key := make([]byte, n)
			for i := range key {
				key[i] = byte(rng.UintN(256))
			}
			key[n-1] |= 0x80
			if _, err := s.Execute(ctxT(t), insB.Bind(key)); err != nil {
				t.Fatal(err)
			}
			got, err := native.ScanOne[int64](mustResult(t)(s.Execute(ctxT(t), tokB.Bind(key))))
			if err != nil {
				t.Fatal(err)
			}
			if want := ring.Token(key); got != want {
				t.Errorf("token of %x: driver %d, server %d", key, want, got)
			}
		}
	}
	for i, b := range []string{"x", "héllo wörld", "a longer text value that spans more than one block"} {
		a := int32(i*1000003 - 7)
		mustExec(t, s, "INSERT INTO c (a, b) VALUES (?, ?)", a, b)
		got, err := native.ScanOne[int64](mustExec(t, s, "SELECT token(a, b) FROM c WHERE a = ? AND b = ?", a, b))
		if err != nil {
			t.Fatal(err)
		}
		rk, _ := ring.AppendRoutingKey(nil, binary.BigEndian.AppendUint32(nil, uint32(a)), []byte(b))
		if want := ring.Token(rk); got != want {
			t.Errorf("token(%d, %q): driver %d, server %d", a, b, want, got)
		}
	}
}

func mustResult(t testing.TB) func(*native.Result, error) *native.Result {
	return func(r *native.Result, err error) *native.Result {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

func TestHostsAndTargetedExecution(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	s, _ := connect(t, func(c *native.Config) {
		c.Observer = func(_ context.Context, a native.Attempt) {
			mu.Lock()
			seen[a.Host]++
			mu.Unlock()
		}
	})
	hosts := s.Hosts()
	if len(hosts) == 0 {
		t.Fatal("no hosts")
	}
	for _, h := range hosts {
		if h.Addr == "" || h.HostID == "" || h.DataCenter == "" || h.Partitioner == "" || len(h.Tokens) == 0 || !h.Up {
			t.Errorf("incomplete host: %+v", h)
		}
	}
	res, err := s.Execute(ctxT(t), native.Query("SELECT host_id FROM system.local").WithHost(hosts[0].Addr))
	if err != nil {
		t.Fatal(err)
	}
	if res.Host() != hosts[0].Addr {
		t.Errorf("Result.Host = %q, want %q", res.Host(), hosts[0].Addr)
	}
	id, err := native.ScanOne[string](res)
	if err == nil && id != hosts[0].HostID {
		t.Errorf("ran on host %s, want %s", id, hosts[0].HostID)
	}
	var own []native.Attempt
	if _, err := s.Execute(ctxT(t), native.Query("SELECT now() FROM system.local").WithObserver(func(_ context.Context, a native.Attempt) { own = append(own, a) })); err != nil {
		t.Fatal(err)
	}
	if len(own) != 1 || own[0].Statement != "SELECT now() FROM system.local" || own[0].End.Before(own[0].Start) || own[0].Rows != 1 {
		t.Errorf("statement observer saw %+v", own)
	}
	if _, err := s.Execute(ctxT(t), native.Query("SELECT * FROM system.local").WithHost("10.255.255.1:9042")); err == nil {
		t.Error("WithHost on an unknown node succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if seen[hosts[0].Addr] == 0 {
		t.Error("the observer saw no attempt")
	}
}

// Token-aware and round-robin routing both reach the data; with token-aware routing the
// coordinator is a replica of the partition.
func TestRoutingModes(t *testing.T) {
	for _, mode := range []native.Routing{native.TokenAware, native.RoundRobin} {
		t.Run(mode.String(), func(t *testing.T) {
			s, _ := connect(t, func(c *native.Config) { c.Routing = mode })
			mustExec(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
			ins := mustPrepare(t, s, "INSERT INTO kv (k, v) VALUES (?, ?)")
			if got := ins.PartitionKeyIndexes(); len(got) != 1 || got[0] != 0 {
				t.Fatalf("partition key indexes = %v", got)
			}
			for i := range 50 {
				res, err := s.Execute(ctxT(t), ins.Bind(i, i))
				if err != nil {
					t.Fatal(err)
				}
				if mode == native.TokenAware && len(s.Hosts()) == 1 && res.Host() != s.Hosts()[0].Addr {
					t.Errorf("coordinator %s", res.Host())
				}
			}
			n, _ := native.ScanOne[int64](mustExec(t, s, "SELECT count(*) FROM kv"))
			if n != 50 {
				t.Errorf("count = %d", n)
			}
		})
	}
}
