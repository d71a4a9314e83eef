package murmur3

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// Tokens verified against Cassandra 5.0.9's token() (package native's TestTokenMatchesServer
// compares every tail length with a live node), including tails with bytes >= 0x80, which
// Cassandra sign-extends.
func TestTokenKnownValues(t *testing.T) {
	be := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	cases := []struct {
		key  []byte
		want int64
	}{
		{be(1), -4069959284402364209},
		{[]byte{}, 0},
		{[]byte("a"), -8839064797231613815},
		{[]byte("hello"), -3758069500696749310},
		{[]byte("0123456789abcdef"), 5467490433528156583},
		{[]byte("0123456789abcdef\xff\x80"), 8124136204908923736},
		{[]byte("\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1"), -5987817694781604974},
		{[]byte("cqlbridge partition key spanning blocks"), -8799653516029812025},
	}
	for _, c := range cases {
		if got := Token(c.key); got != c.want {
			t.Errorf("Token(%x) = %d, want %d", c.key, got, c.want)
		}
	}
}

func TestTokenAllocatesNothing(t *testing.T) {
	key := []byte("some partition key of moderate length")
	if n := testing.AllocsPerRun(100, func() { _ = Token(key) }); n != 0 {
		t.Fatalf("Token allocates %v times per call", n)
	}
}

// The token of the int partition key 1, as `SELECT token(k) FROM t WHERE k = 1` reports it.
func ExampleToken() {
	fmt.Println(Token([]byte{0, 0, 0, 1}))
	// Output: -4069959284402364209
}
