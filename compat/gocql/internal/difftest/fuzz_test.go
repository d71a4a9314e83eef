package difftest

import (
	"fmt"
	"math"
	"math/big"
	"net"
	"testing"
	"time"

	compat "github.com/cqlbridge/cqlbridge/compat/gocql"
	"gopkg.in/inf.v0"
)

// fuzzInfos are the TypeInfos the fuzz targets pick from.
func fuzzInfos() []compat.TypeInfo {
	infos := nativeInfos()
	infos = append(infos, collectionInfos()...)
	return append(infos,
		tuple(native(compat.TypeInt), native(compat.TypeText)),
		tuple(native(compat.TypeBigInt), list(4, compat.TypeList, native(compat.TypeInt))),
		personUDT(),
	)
}

func fuzzDestinations() []func() interface{} {
	return append(destinations(),
		func() interface{} { return new([]string) }, func() interface{} { return new([2]int) },
		func() interface{} { return new([]*int) }, func() interface{} { return new(map[int]string) },
		func() interface{} { return new(map[string]int) }, func() interface{} { return new(map[int][]string) },
		func() interface{} { return new([][]string) }, func() interface{} { return new([]compat.UUID) },
		func() interface{} { return []interface{}{new(int), new(string)} },
		func() interface{} { return new(tupleOut) }, func() interface{} { return new([]interface{}) },
		func() interface{} { return new(map[string]interface{}) }, func() interface{} { return new(personTagged) },
		func() interface{} { return new(personOut) },
	)
}

// boundedCounts reports whether every collection count in data is small
// enough to be backed by the data. gocql allocates a collection's full count
// before reading its elements, so a forged count of 2^31 would exhaust
// memory in gocql (compat rejects it up front); such inputs are only given
// to compat.
func boundedCounts(info compat.TypeInfo, data []byte) bool {
	switch t := info.(type) {
	case compat.CollectionType:
		width := 4
		if t.Version() <= 2 {
			width = 2
		}
		if len(data) < width {
			return true
		}
		n := 0
		for _, b := range data[:width] {
			n = n<<8 | int(b)
		}
		if width == 4 {
			n = int(int32(uint32(n)))
		}
		data = data[width:]
		if n > len(data)/width {
			return false
		}
		perItem := []compat.TypeInfo{t.Elem}
		if t.Type() == compat.TypeMap {
			perItem = []compat.TypeInfo{t.Key, t.Elem}
		}
		for i := 0; i < n; i++ {
			for _, elem := range perItem {
				if len(data) < width {
					return true
				}
				size := 0
				for _, b := range data[:width] {
					size = size<<8 | int(b)
				}
				if width == 4 {
					size = int(int32(uint32(size)))
				}
				data = data[width:]
				if size < 0 {
					continue
				}
				if size > len(data) {
					return true
				}
				if elem != nil && !boundedCounts(elem, data[:size]) {
					return false
				}
				data = data[size:]
			}
		}
	case compat.TupleTypeInfo:
		return boundedFields(t.Elems, data)
	case compat.UDTTypeInfo:
		elems := make([]compat.TypeInfo, len(t.Elements))
		for i, e := range t.Elements {
			elems[i] = e.Type
		}
		return boundedFields(elems, data)
	}
	return true
}

func boundedFields(elems []compat.TypeInfo, data []byte) bool {
	for _, elem := range elems {
		if len(data) < 4 {
			return true
		}
		size := int(int32(uint32(data[0])<<24 | uint32(data[1])<<16 | uint32(data[2])<<8 | uint32(data[3])))
		data = data[4:]
		if size < 0 {
			continue
		}
		if size > len(data) {
			return true
		}
		if !boundedCounts(elem, data[:size]) {
			return false
		}
		data = data[size:]
	}
	return true
}

// FuzzUnmarshal decodes arbitrary bytes as every TypeInfo into every kind
// of destination with both implementations.
func FuzzUnmarshal(f *testing.F) {
	for i, d := range dataSamples() {
		f.Add(d, uint8(i), uint8(i*7))
	}
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 9}, uint8(24), uint8(6))
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1, 'k', 0, 0, 0, 4, 0, 0, 0, 1}, uint8(30), uint8(59))
	infos, dests := fuzzInfos(), fuzzDestinations()
	f.Fuzz(func(t *testing.T, data []byte, infoSel, destSel uint8) {
		info := infos[int(infoSel)%len(infos)]
		newDest := dests[int(destSel)%len(dests)]
		name := fmt.Sprintf("Unmarshal(%s v%d, %x, %T)", info, info.Version(), data, newDest())
		if !boundedCounts(info, data) {
			// compat must cope (without exhausting memory, which would
			// crash the test) and not panic.
			c := protect(func() ([]byte, error) { return nil, compat.Unmarshal(info, data, newDest()) })
			if c.panicked != nil {
				t.Errorf("%s: compat panicked: %v", name, c.panicked)
			}
			return
		}
		c, l, cv, lv := unmarshalBoth(info, data, newDest)
		checkUnmarshal(t, name, c, l, cv, lv)
	})
}

// fuzzValue builds a Go value of the kind sel selects from the raw inputs.
func fuzzValue(sel uint8, i int64, u uint64, s string, b []byte, fl float64) interface{} {
	switch sel % 32 {
	case 0:
		return int(i)
	case 1:
		return int8(i)
	case 2:
		return int16(i)
	case 3:
		return int32(i)
	case 4:
		return i
	case 5:
		return uint(u)
	case 6:
		return uint8(u)
	case 7:
		return uint16(u)
	case 8:
		return uint32(u)
	case 9:
		return u
	case 10:
		return s
	case 11:
		return b
	case 12:
		return float32(fl)
	case 13:
		return fl
	case 14:
		return i%2 == 0
	case 15:
		return new(big.Int).SetBytes(b)
	case 16:
		return new(big.Int).Neg(new(big.Int).SetBytes(b))
	case 17:
		return inf.NewDec(i, inf.Scale(int32(u)))
	case 18:
		return time.Unix(i/1e9, i%1e9)
	case 19:
		return time.Duration(i)
	case 20:
		return compat.Duration{Months: int32(i), Days: int32(u), Nanoseconds: i}
	case 21:
		var id compat.UUID
		copy(id[:], b)
		return id
	case 22:
		return net.IP(b)
	case 23:
		return myInt(i)
	case 24:
		return myUint32(u)
	case 25:
		return myString(s)
	case 26:
		return []int64{i, int64(u)}
	case 27:
		return map[string]int64{s: i}
	case 28:
		return []interface{}{i, s}
	case 29:
		return map[string]interface{}{"name": s, "age": i}
	case 30:
		return myUint64(u)
	}
	return &s
}

// FuzzMarshal marshals values built from fuzzed inputs into every TypeInfo
// with both implementations.
func FuzzMarshal(f *testing.F) {
	f.Add(uint8(0), uint8(0), int64(1), uint64(1), "1", []byte{1}, 1.5)
	f.Add(uint8(9), uint8(10), int64(-129), uint64(1<<63), "2024-02-29", []byte("0123456789abcdef"), math.Copysign(0, -1))
	f.Add(uint8(20), uint8(17), int64(1<<40), uint64(7), "6ba7b810-9dad-11d1-80b4-00c04fd430c8", []byte{0x80}, 3.0)
	infos := fuzzInfos()
	f.Fuzz(func(t *testing.T, infoSel, kindSel uint8, i int64, u uint64, s string, b []byte, fl float64) {
		info := infos[int(infoSel)%len(infos)]
		v := fuzzValue(kindSel, i, u, s, b, fl)
		c, l := marshalBoth(info, v)
		checkMarshal(t, fmt.Sprintf("Marshal(%s v%d, %s)", info, info.Version(), describeValue(v)), c, l)
	})
}
