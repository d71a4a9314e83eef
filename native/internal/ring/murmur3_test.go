package ring

import (
	"encoding/binary"
	"testing"
)

// Tokens of Cassandra's Murmur3Partitioner. The server comparison over every tail length
// lives in package native (TestTokenMatchesServer), which can talk to a server; these
// vectors pin the results it verified, including tails with bytes >= 0x80 that Cassandra
// sign-extends.
func TestTokenKnownValues(t *testing.T) {
	be := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	cases := []struct {
		key  []byte
		want int64
	}{
		{be(1), -4069959284402364209},
		{[]byte{}, 0}, // h1 and h2 stay 0 and fmix64(0) is 0
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

func TestAppendRoutingKey(t *testing.T) {
	got, ok := AppendRoutingKey(nil, []byte{1, 2}, []byte("ab"))
	want := []byte{0, 2, 1, 2, 0, 0, 2, 'a', 'b', 0}
	if !ok || string(got) != string(want) {
		t.Errorf("composite key = %x, want %x", got, want)
	}
	if got, _ := AppendRoutingKey(nil, []byte("solo")); string(got) != "solo" {
		t.Errorf("single component = %q", got)
	}
	if _, ok := AppendRoutingKey(nil, make([]byte, 70000), nil); ok {
		t.Error("a component over 65535 bytes was accepted")
	}
}

func BenchmarkToken(b *testing.B) {
	key := []byte("a partition key of some length")
	b.ReportAllocs()
	for b.Loop() {
		Token(key)
	}
}
