package engine

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

var errShort = errors.New("not enough bytes")

// Errors of decodeElems and decodeMap besides errShort: a negative element count, and bytes
// after the last element.
var (
	errNegativeCount = errors.New("negative element count")
	errExtraneous    = errors.New("unexpected extraneous bytes after collection value")
)

// encodeElems encodes a list or set body: [int n] then n [bytes].
func encodeElems(elems [][]byte) []byte {
	n := 4
	for _, e := range elems {
		n += 4 + len(e)
	}
	out := make([]byte, 0, n)
	out = binary.BigEndian.AppendUint32(out, uint32(len(elems)))
	for _, e := range elems {
		out = appendBytes(out, e)
	}
	return out
}

func appendBytes(out, e []byte) []byte {
	if e == nil {
		return binary.BigEndian.AppendUint32(out, 0xFFFFFFFF)
	}
	out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
	return append(out, e...)
}

// encodeMap encodes a map body from parallel key and value slices.
func encodeMap(keys, vals [][]byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(keys)))
	for i := range keys {
		out = appendBytes(out, keys[i])
		out = appendBytes(out, vals[i])
	}
	return out
}

func readBytes(b []byte) (v, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, errShort
	}
	n := int32(binary.BigEndian.Uint32(b))
	b = b[4:]
	if n < 0 {
		return nil, b, nil
	}
	if int(n) > len(b) {
		return nil, nil, errShort
	}
	return b[:n:n], b[n:], nil
}

// decodeElems splits a list or set body into its elements.
func decodeElems(b []byte) ([][]byte, error) {
	if len(b) < 4 {
		return nil, errShort
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if n < 0 {
		return nil, errNegativeCount
	}
	if n > len(b)/4 {
		return nil, errShort
	}
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		var e []byte
		var err error
		e, b, err = readBytes(b)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if len(b) != 0 {
		return nil, errExtraneous
	}
	return out, nil
}

// decodeMap splits a map body into keys and values.
func decodeMap(b []byte) (keys, vals [][]byte, err error) {
	if len(b) < 4 {
		return nil, nil, errShort
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if n < 0 {
		return nil, nil, errNegativeCount
	}
	if n > len(b)/8 {
		return nil, nil, errShort
	}
	for i := 0; i < n; i++ {
		var k, v []byte
		if k, b, err = readBytes(b); err != nil {
			return nil, nil, err
		}
		if v, b, err = readBytes(b); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	if len(b) != 0 {
		return nil, nil, errExtraneous
	}
	return keys, vals, nil
}

// splitVector splits a vector body into its elements: packed back to back when the element
// type has a fixed size, each preceded by its length as an unsigned vint otherwise (as
// Cassandra's VectorType serializes them). extra counts the bytes after the last element.
func splitVector(ty *ctype, b []byte) (elems [][]byte, extra int, err error) {
	if ty.dim <= 0 {
		return nil, 0, errors.New("vector without elements")
	}
	if size := ty.elem.fixedSize(); size > 0 {
		// Divide first: size*ty.dim may not fit in an int.
		if size > len(b)/ty.dim {
			return nil, 0, errShort
		}
		elems = make([][]byte, ty.dim)
		for i := range elems {
			elems[i] = b[i*size : (i+1)*size : (i+1)*size]
		}
		return elems, len(b) - size*ty.dim, nil
	}
	// Every element takes at least its one-byte length: check before allocating.
	if ty.dim > len(b) {
		return nil, 0, errShort
	}
	elems = make([][]byte, ty.dim)
	for i := range elems {
		n, rest, err := readUvint(b)
		if err != nil {
			return nil, 0, err
		}
		if n > uint64(len(rest)) {
			return nil, 0, errShort
		}
		elems[i], b = rest[:n:n], rest[n:]
	}
	return elems, len(b), nil
}

// encodeFields encodes a tuple or UDT body.
func encodeFields(fields [][]byte) []byte {
	var out []byte
	for _, f := range fields {
		out = appendBytes(out, f)
	}
	if out == nil {
		out = []byte{}
	}
	return out
}

// decodeFields splits a tuple or UDT body; missing trailing fields are nil.
func decodeFields(b []byte, n int) ([][]byte, error) {
	out := make([][]byte, n)
	for i := 0; i < n && len(b) > 0; i++ {
		var err error
		if out[i], b, err = readBytes(b); err != nil {
			return nil, err
		}
	}
	if len(b) != 0 {
		return nil, errors.New("too many fields")
	}
	return out, nil
}

// fieldCount returns the number of fields a valid tuple or UDT body holds.
func fieldCount(b []byte) int {
	n := 0
	for len(b) > 0 {
		var err error
		if _, b, err = readBytes(b); err != nil {
			break
		}
		n++
	}
	return n
}

// appendUvint appends Cassandra's unsigned vint encoding (VIntCoding): the number of leading
// one bits of the first byte is the number of extra bytes.
func appendUvint(out []byte, v uint64) []byte {
	size := uvintSize(v)
	if size == 1 {
		return append(out, byte(v))
	}
	extra := size - 1
	var buf [9]byte
	for i := size - 1; i >= 0; i-- {
		buf[i] = byte(v)
		v >>= 8
	}
	if size < 9 {
		buf[0] |= ^byte(0xFF >> uint(extra))
	} else {
		buf[0] = 0xFF
	}
	return append(out, buf[:size]...)
}

func uvintSize(v uint64) int {
	magnitude := bits.LeadingZeros64(v | 1)
	return (639 - magnitude*9) >> 6
}

func readUvint(b []byte) (uint64, []byte, error) {
	if len(b) == 0 {
		return 0, nil, errShort
	}
	first := b[0]
	extra := bits.LeadingZeros8(^first)
	if len(b) < 1+extra {
		return 0, nil, errShort
	}
	var v uint64
	if extra < 8 {
		v = uint64(first & (0xFF >> uint(extra)))
	}
	for i := 1; i <= extra; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, b[1+extra:], nil
}

func appendVint(out []byte, v int64) []byte { return appendUvint(out, uint64(v<<1)^uint64(v>>63)) }

func readVint(b []byte) (int64, []byte, error) {
	u, rest, err := readUvint(b)
	return int64(u>>1) ^ -int64(u&1), rest, err
}

// encodeDuration encodes months, days and nanoseconds as three signed vints.
func encodeDuration(months, days int32, nanos int64) []byte {
	out := appendVint(nil, int64(months))
	out = appendVint(out, int64(days))
	return appendVint(out, nanos)
}

func decodeDuration(b []byte) (months, days int64, nanos int64, err error) {
	if months, b, err = readVint(b); err != nil {
		return
	}
	if days, b, err = readVint(b); err != nil {
		return
	}
	if nanos, b, err = readVint(b); err != nil {
		return
	}
	if len(b) != 0 {
		err = errors.New("extraneous bytes after duration")
	}
	return
}
