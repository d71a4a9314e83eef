package cqltype

import (
	"strings"
	"testing"
	"time"
)

// TestHotPathAllocations proves the fast paths: encoding common scalars
// allocates nothing, decoding them allocates nothing but the string or slice.
func TestHotPathAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("instrumented builds allocate differently")
	}
	buf := make([]byte, 0, 4096)
	u := UUID{1, 2, 3}
	ts := time.Unix(1700000000, 0)
	text := strings.Repeat("x", 100)
	// The values are boxed once, as a caller's []any of arguments would be.
	enc := []struct {
		typ *Type
		v   any
	}{
		{tInt, int32(123456)}, {tInt, 123456}, {tInt, int64(123456)}, {tBigint, int64(1) << 40}, {tBigint, wideInt},
		{tSmallint, int16(300)}, {tTinyint, int8(-3)}, {tCounter, int64(9)},
		{tText, text}, {tASCII, "abc"}, {tText, []byte(text)}, {tBlob, []byte(text)}, {tBoolean, true},
		{tDouble, 3.25}, {tFloat, float32(1.5)}, {tUUID, u}, {tTimeUUID, TimeUUIDAt(ts, 1, [6]byte{})},
		{tTimestamp, ts}, {tDate, Date(10)}, {tTime, time.Second}, {tVarint, wideInt},
		{NewVector(tFloat, 4), []float32{1, 2, 3, 4}},
		{NewList(tText), []string{"a", text}}, {NewSet(tInt), []int{1, 2}}, {NewList(tBigint), []int64{1}},
		{tInt, nil}, {tInt, Unset},
	}
	for _, c := range enc {
		n := testing.AllocsPerRun(200, func() {
			var err error
			if _, err = Append(buf[:0], c.typ, c.v); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("Append(%s, %T): %v allocations, want 0", c.typ, c.v, n)
		}
	}
	n := testing.AllocsPerRun(200, func() {
		b := AppendInt32(buf[:0], 1)
		b = AppendInt64(b, 2)
		b = AppendString(b, text)
		b = AppendBytes(b, buf[:3])
		b = AppendUUID(b, u)
		b = AppendTimestamp(b, ts)
		b = AppendFloat64(b, 1)
		b = AppendBool(b, true)
		_ = AppendNull(b)
	})
	if n != 0 {
		t.Errorf("Append* functions: %v allocations, want 0", n)
	}

	var (
		i    int
		i32  int32
		i64  int64
		s    string
		bs   []byte
		ok   bool
		f64  float64
		when time.Time
		id   UUID
	)
	intBody := encodeBody(t, tInt, 123456)
	bigBody := encodeBody(t, tBigint, int64(wideInt))
	textBody := []byte(text)
	dec := []struct {
		typ    *Type
		body   []byte
		dst    any
		allocs float64
	}{
		{tInt, intBody, &i, 0},
		{tInt, intBody, &i32, 0},
		{tInt, intBody, &i64, 0},
		{tBigint, bigBody, &i64, 0},
		{tBigint, bigBody, &i, 0},
		{tInt, nil, &i, 0},
		{tText, textBody, &s, 1},
		{tText, []byte{}, &s, 0},
		{tText, nil, &s, 0},
		{tBlob, textBody, &bs, 1},
		{tBoolean, []byte{1}, &ok, 0},
		{tDouble, encodeBody(t, tDouble, 2.5), &f64, 0},
		{tTimestamp, encodeBody(t, tTimestamp, ts), &when, 0},
		{tUUID, u[:], &id, 0},
	}
	for _, c := range dec {
		n := testing.AllocsPerRun(200, func() {
			if err := Decode(c.typ, c.body, c.dst); err != nil {
				t.Fatal(err)
			}
		})
		if n != c.allocs {
			t.Errorf("Decode(%s, %T): %v allocations, want %v", c.typ, c.dst, n, c.allocs)
		}
	}
}

func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	var v any = 123456
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], tInt, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendInt32Direct(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendInt32(buf[:0], 123456)
	}
}

func BenchmarkAppendText(b *testing.B) {
	buf := make([]byte, 0, 64)
	var v any = "hello, world"
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], tText, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendTimestamp(b *testing.B) {
	buf := make([]byte, 0, 64)
	var v any = time.Unix(1700000000, 0)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], tTimestamp, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendListText(b *testing.B) {
	buf := make([]byte, 0, 256)
	typ := NewList(tText)
	var v any = []string{"a", "bb", "ccc", "dddd"}
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], typ, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendUDTStruct(b *testing.B) {
	buf := make([]byte, 0, 256)
	typ := NewUDT("ks", "point", Field{"x", tDouble}, Field{"y", tDouble}, Field{"label", tText})
	var v any = point{1, 2, "p"}
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], typ, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendVectorFloat768(b *testing.B) {
	buf := make([]byte, 0, 4096)
	typ := NewVector(tFloat, 768)
	var v any = make([]float32, 768)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = Append(buf[:0], typ, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeInt(b *testing.B) {
	body := []byte{0, 1, 0xE2, 0x40}
	var v int
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(tInt, body, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeText(b *testing.B) {
	body := []byte("hello, world")
	var v string
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(tText, body, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTimestamp(b *testing.B) {
	body := AppendTimestamp(nil, time.Unix(1700000000, 0))[4:]
	var v time.Time
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(tTimestamp, body, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeNamedInt(b *testing.B) {
	body := []byte{0, 0, 0, 5}
	var v level
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(tInt, body, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeListText(b *testing.B) {
	typ := NewList(tText)
	body, _ := Marshal(typ, []string{"a", "bb", "ccc", "dddd"})
	var v []string
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(typ, body, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeMapTextInt(b *testing.B) {
	typ := NewMap(tText, tInt)
	body, _ := Marshal(typ, map[string]int32{"a": 1, "b": 2, "c": 3})
	var v map[string]int32
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(typ, body, &v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeVectorFloat768(b *testing.B) {
	typ := NewVector(tFloat, 768)
	body, _ := Marshal(typ, make([]float32, 768))
	var v []float32
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(typ, body, &v); err != nil {
			b.Fatal(err)
		}
	}
}
