package engine

import (
	"encoding/binary"
	"testing"
)

func TestMurmur3KnownTokens(t *testing.T) {
	int32Key := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	// Expected tokens were read from Apache Cassandra 5.0 with SELECT token(k).
	cases := []struct {
		name string
		key  []byte
		want int64
	}{
		// token(k) for an int partition key k = 1, as served by Cassandra.
		{"int 1", int32Key(1), -4069959284402364209},
		{"text a", []byte("a"), -8839064797231613815},
		{"text hello", []byte("hello"), -3758069500696749310},
		{"15 bytes", []byte("0123456789abcde"), -6472281833689111727},
		{"16 bytes", []byte("0123456789abcdef"), 5467490433528156583},
		{"17 bytes", []byte("0123456789abcdef0"), -1502884478548852619},
		{"multi-byte utf8", []byte("ééééééééééééééééééééé"), -7726497050008440736},
		{"high bytes in tail", []byte("ÿ€ÿ€ÿ€ÿ€x"), -5108641750103337868},
		{"blob ff", []byte{0xff}, -4442228696663692417},
		{"blob 15 high bytes", []byte{0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e}, 63099782945186636},
		{"blob 19 high bytes", []byte{0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff, 0x90, 0xa0, 0xb0}, 2835677638382356373},
		// composite key (a int, b text) = (2, 'p'), from the differential test
		{"composite", serializePartitionKey([][]byte{int32Key(2), []byte("p")}), -4198165968284940927},
	}
	for _, c := range cases {
		if got := murmur3Token(c.key); got != c.want {
			t.Errorf("%s: token = %d, want %d", c.name, got, c.want)
		}
	}
}
