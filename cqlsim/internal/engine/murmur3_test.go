package engine

import (
	"encoding/binary"
	"testing"
)

func TestMurmur3KnownTokens(t *testing.T) {
	int32Key := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	cases := []struct {
		name string
		key  []byte
		want int64
	}{
		// token(k) for an int partition key k = 1, as served by Cassandra.
		{"int 1", int32Key(1), -4069959284402364209},
	}
	for _, c := range cases {
		if got := murmur3Token(c.key); got != c.want {
			t.Errorf("%s: token = %d, want %d", c.name, got, c.want)
		}
	}
}
