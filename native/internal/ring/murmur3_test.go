package ring

import (
	"encoding/binary"
	"testing"
)

// Token is internal/murmur3's token (whose tests pin the values against Cassandra); one vector
// checks the delegation.
func TestTokenIsMurmur3Partitioner(t *testing.T) {
	key := binary.BigEndian.AppendUint32(nil, 1)
	if got, want := Token(key), int64(-4069959284402364209); got != want {
		t.Errorf("Token(%x) = %d, want %d", key, got, want)
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
