package proto

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/datacodec"
	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/google/go-cmp/cmp"
)

// referenceTablet encodes t as go-cassandra-native-protocol's codecs serialize
// tuple<bigint, bigint, list<tuple<uuid, int>>>, the type ScyllaDB documents for the payload.
func referenceTablet(t *testing.T, tb Tablet) []byte {
	t.Helper()
	typ := datatype.NewTuple(datatype.Bigint, datatype.Bigint, datatype.NewList(datatype.NewTuple(datatype.Uuid, datatype.Int)))
	codec, err := datacodec.NewTuple(typ)
	if err != nil {
		t.Fatal(err)
	}
	var reps []any
	for _, r := range tb.Replicas {
		id := primitive.UUID(r.HostID)
		reps = append(reps, []any{&id, int32(r.Shard)})
	}
	b, err := codec.Encode([]any{tb.FirstToken, tb.LastToken, reps}, primitive.ProtocolVersion4)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sampleTablet() Tablet {
	return Tablet{FirstToken: -4611686018427387904, LastToken: 42, Replicas: []TabletReplica{
		{HostID: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, Shard: 3},
		{HostID: [16]byte{0xff, 0xee, 15: 0}, Shard: 0},
		{HostID: [16]byte{15: 0x7f}, Shard: 1023},
	}}
}

func TestDecodeTabletReadsReference(t *testing.T) {
	for _, want := range []Tablet{
		sampleTablet(),
		{FirstToken: math.MinInt64, LastToken: math.MaxInt64, Replicas: []TabletReplica{{Shard: 7}}},
	} {
		ref := referenceTablet(t, want)
		got, err := DecodeTablet(ref)
		if err != nil {
			t.Fatalf("DecodeTablet(reference %x): %v", ref, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("DecodeTablet(reference) (-want +got):\n%s", diff)
		}
		if mine := AppendTablet(nil, want); !bytes.Equal(mine, ref) {
			t.Errorf("AppendTablet = %x\nreference     %x", mine, ref)
		}
	}
}

func TestDecodeTabletDoesNotAlias(t *testing.T) {
	b := AppendTablet(nil, sampleTablet())
	got, err := DecodeTablet(b)
	if err != nil {
		t.Fatal(err)
	}
	clear(b)
	if diff := cmp.Diff(sampleTablet(), got); diff != "" {
		t.Errorf("the decoded tablet changed with its input (-want +got):\n%s", diff)
	}
}

func TestDecodeTabletRejectsMalformed(t *testing.T) {
	good := AppendTablet(nil, sampleTablet())
	one := Tablet{FirstToken: 1, LastToken: 2, Replicas: []TabletReplica{{Shard: 1}}}
	withShard := func(shard int32) []byte {
		b := AppendTablet(nil, one)
		copy(b[len(b)-4:], AppendInt(nil, shard))
		return b
	}
	nullFirst := append(AppendInt(nil, -1), good[12:]...)
	cases := map[string][]byte{
		"empty":             nil,
		"cut short":         good[:len(good)-1],
		"trailing byte":     append(bytes.Clone(good), 0),
		"null first token":  nullFirst,
		"4-byte token":      append(append(AppendInt(nil, 4), 0, 0, 0, 1), good[12:]...),
		"empty range":       AppendTablet(nil, Tablet{FirstToken: 5, LastToken: 5, Replicas: one.Replicas}),
		"inverted range":    AppendTablet(nil, Tablet{FirstToken: 6, LastToken: 5, Replicas: one.Replicas}),
		"no replicas":       AppendTablet(nil, Tablet{FirstToken: 1, LastToken: 2}),
		"negative shard":    withShard(-1),
		"lying list count":  func() []byte { b := AppendTablet(nil, one); copy(b[28:32], AppendInt(nil, 1<<30)); return b }(),
		"negative count":    func() []byte { b := AppendTablet(nil, one); copy(b[28:32], AppendInt(nil, -2)); return b }(),
		"short uuid":        func() []byte { b := AppendTablet(nil, one); copy(b[36:40], AppendInt(nil, 15)); return b }(),
		"list length short": func() []byte { b := AppendTablet(nil, one); copy(b[24:28], AppendInt(nil, 8)); return b }(),
	}
	for name, b := range cases {
		if _, err := DecodeTablet(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: DecodeTablet(%x) error = %v, want ErrMalformed", name, b, err)
		}
	}
	if _, err := DecodeTablet(withShard(2)); err != nil {
		t.Errorf("the test's own well-formed payload: %v", err)
	}
}

func TestTabletContains(t *testing.T) {
	tb := Tablet{FirstToken: -10, LastToken: 10}
	for token, want := range map[int64]bool{-11: false, -10: false, -9: true, 0: true, 10: true, 11: false} {
		if got := tb.Contains(token); got != want {
			t.Errorf("(%d, %d].Contains(%d) = %v, want %v", tb.FirstToken, tb.LastToken, token, got, want)
		}
	}
	first := Tablet{FirstToken: math.MinInt64, LastToken: 0}
	if !first.Contains(math.MinInt64) || !first.Contains(0) || first.Contains(1) {
		t.Error("the ring's first tablet must hold math.MinInt64 and its last token only")
	}
}

func FuzzDecodeTablet(f *testing.F) {
	f.Add(AppendTablet(nil, sampleTablet()))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := DecodeTablet(b)
		if err != nil {
			return
		}
		if tb.FirstToken >= tb.LastToken || len(tb.Replicas) == 0 {
			t.Fatalf("DecodeTablet accepted %+v", tb)
		}
		if again := AppendTablet(nil, tb); !bytes.Equal(again, b) {
			t.Fatalf("AppendTablet(DecodeTablet(%x)) = %x", b, again)
		}
	})
}
