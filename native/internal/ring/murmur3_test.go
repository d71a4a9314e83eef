package ring

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// Known tokens from Cassandra's Murmur3Partitioner.
func TestTokenKnownValues(t *testing.T) {
	be := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	cases := []struct {
		key  []byte
		want int64
	}{
		{be(1), -4069959284402364209},
		{[]byte{}, 0}, // h1 and h2 stay 0 and fmix64(0) is 0
	}
	for _, c := range cases {
		if got := Token(c.key); got != c.want {
			t.Errorf("Token(%x) = %d, want %d", c.key, got, c.want)
		}
	}
}

// TestTokenMatchesServer compares Token with the server's token() for blob keys of every
// length from 1 to 48 (covering every tail length, with bytes >= 0x80 that Cassandra
// sign-extends), and composite keys through AppendRoutingKey.
func TestTokenMatchesServer(t *testing.T) {
	ks, hosts := cqltest.Keyspace(t)
	cqltest.Exec(t, hosts[0], "CREATE TABLE "+ks+".b (k blob PRIMARY KEY)")
	cqltest.Exec(t, hosts[0], "CREATE TABLE "+ks+".c (a int, b text, PRIMARY KEY ((a, b)))")

	cluster := gocql.NewCluster(hosts...)
	cluster.Keyspace = ks
	sess, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 48; n++ {
		for range 3 {
			key := make([]byte, n)
			for i := range key {
				key[i] = byte(rng.UintN(256))
			}
			key[n-1] |= 0x80 // a tail byte that needs sign extension
			if err := sess.Query("INSERT INTO b (k) VALUES (?)", key).Exec(); err != nil {
				t.Fatal(err)
			}
			var got int64
			if err := sess.Query("SELECT token(k) FROM b WHERE k = ?", key).Scan(&got); err != nil {
				t.Fatalf("server token of %x: %v", key, err)
			}
			if want := Token(key); got != want {
				t.Errorf("Token(%x) = %d, server says %d", key, want, got)
			}
		}
	}

	for i, b := range []string{"x", "héllo wörld", "a longer text value that spans more than one block"} {
		a := int32(i*1000003 - 7)
		if err := sess.Query("INSERT INTO c (a, b) VALUES (?, ?)", a, b).Exec(); err != nil {
			t.Fatal(err)
		}
		var got int64
		if err := sess.Query("SELECT token(a, b) FROM c WHERE a = ? AND b = ?", a, b).Scan(&got); err != nil {
			t.Fatalf("server token of (%d, %q): %v", a, b, err)
		}
		rk, ok := AppendRoutingKey(nil, binary.BigEndian.AppendUint32(nil, uint32(a)), []byte(b))
		if !ok {
			t.Fatal("AppendRoutingKey failed")
		}
		if want := Token(rk); got != want {
			t.Errorf("token(%d, %q) = %d, server says %d", a, b, want, got)
		}
	}
}

func BenchmarkToken(b *testing.B) {
	key := []byte("a partition key of some length")
	b.ReportAllocs()
	for b.Loop() {
		Token(key)
	}
}
