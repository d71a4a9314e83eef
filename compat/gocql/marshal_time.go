package gocql

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"reflect"
	"time"
)

const millisPerDay = 24 * 60 * 60 * 1000

// unixMillis returns t as milliseconds since the Unix epoch, truncating
// sub-millisecond precision the way gocql does.
func unixMillis(t time.Time) int64 {
	t = t.UTC()
	return t.Unix()*1000 + int64(t.Nanosecond()/1_000_000)
}

func marshalTime(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case time.Duration:
		return encodeInt64(v.Nanoseconds()), nil
	}
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Int64 {
		return encodeInt64(rv.Int()), nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalTime(info TypeInfo, data []byte, value interface{}) error {
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	if rv.Kind() != reflect.Int64 {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	rv.SetInt(decodeInt64(data))
	return nil
}

func marshalTimestamp(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case time.Time:
		if v.IsZero() {
			return []byte{}, nil
		}
		return encodeInt64(unixMillis(v)), nil
	}
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Int64 {
		return encodeInt64(rv.Int()), nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalTimestamp(info TypeInfo, data []byte, value interface{}) error {
	if v, ok := value.(*time.Time); ok {
		if len(data) == 0 {
			*v = time.Time{}
			return nil
		}
		ms := decodeInt64(data)
		sec := ms / 1000
		*v = time.Unix(sec, (ms-sec*1000)*1_000_000).In(time.UTC)
		return nil
	}
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	if rv.Kind() != reflect.Int64 {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	rv.SetInt(decodeInt64(data))
	return nil
}

// encodeDate encodes milliseconds since the epoch as a CQL date: days since
// the epoch (truncated towards zero, as gocql does) offset by 2^31.
func encodeDate(ms int64) []byte {
	return encodeInt32(int32(ms/millisPerDay + 1<<31))
}

func marshalDate(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case int64:
		return encodeDate(v), nil
	case time.Time:
		if v.IsZero() {
			return []byte{}, nil
		}
		return encodeDate(unixMillis(v)), nil
	case string:
		if v == "" {
			return []byte{}, nil
		}
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return nil, marshalErrorf("can not marshal %T into %s, date layout must be '2006-01-02'", value, info)
		}
		return encodeDate(unixMillis(t)), nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

// decodeDate returns the UTC midnight of a CQL date.
func decodeDate(data []byte) time.Time {
	days := int64(binary.BigEndian.Uint32(data)) - 1<<31
	return time.UnixMilli(days * millisPerDay).In(time.UTC)
}

func unmarshalDate(info TypeInfo, data []byte, value interface{}) error {
	switch v := value.(type) {
	case *time.Time:
		if len(data) == 0 {
			*v = time.Time{}
			return nil
		}
		if len(data) < 4 {
			return unmarshalErrorf("can not unmarshal %s into %T: date needs 4 bytes, got %d", info, value, len(data))
		}
		*v = decodeDate(data)
		return nil
	case *string:
		if len(data) == 0 {
			*v = ""
			return nil
		}
		if len(data) < 4 {
			return unmarshalErrorf("can not unmarshal %s into %T: date needs 4 bytes, got %d", info, value, len(data))
		}
		*v = decodeDate(data).Format("2006-01-02")
		return nil
	}
	return unmarshalErrorf("can not unmarshal %s into %T", info, value)
}

func marshalDuration(info TypeInfo, value interface{}) ([]byte, error) {
	switch v := value.(type) {
	case unsetColumn, nil:
		return nil, nil
	case int64:
		return encodeDuration(0, 0, v), nil
	case time.Duration:
		return encodeDuration(0, 0, v.Nanoseconds()), nil
	case string:
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, err
		}
		return encodeDuration(0, 0, d.Nanoseconds()), nil
	case Duration:
		return encodeDuration(v.Months, v.Days, v.Nanoseconds), nil
	}
	if rv := reflect.ValueOf(value); rv.Kind() == reflect.Int64 {
		// gocql v1.7.0 encodes named int64 types as a plain 8-byte integer
		// here, not as a duration; kept for byte compatibility.
		return encodeInt64(rv.Int()), nil
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalDuration(info TypeInfo, data []byte, value interface{}) error {
	v, ok := value.(*Duration)
	if !ok {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	if len(data) == 0 {
		*v = Duration{}
		return nil
	}
	months, days, nanos, err := decodeDuration(data)
	if err != nil {
		return unmarshalErrorf("failed to unmarshal %s into %T: %s", info, value, err.Error())
	}
	*v = Duration{Months: months, Days: days, Nanoseconds: nanos}
	return nil
}

// encodeDuration encodes the three components of a duration as zig-zag
// variable-length integers.
func encodeDuration(months, days int32, nanos int64) []byte {
	buf := appendVint(nil, int64(months))
	buf = appendVint(buf, int64(days))
	return appendVint(buf, nanos)
}

// appendVint appends v zig-zag encoded as a Cassandra unsigned vint: the
// number of leading one bits of the first byte is the number of bytes that
// follow.
func appendVint(dst []byte, v int64) []byte {
	u := uint64(v>>63) ^ uint64(v<<1)
	significant := 64 - bits.LeadingZeros64(u)
	if significant <= 7 {
		return append(dst, byte(u))
	}
	size := (significant + 6) / 7 // n bytes hold 7n bits, up to 8 bytes
	if size > 9 {
		size = 9
	}
	extra := size - 1
	var buf [9]byte
	for i := extra; i >= 0; i-- {
		buf[i] = byte(u)
		u >>= 8
	}
	if extra >= 8 {
		buf[0] = 0xFF
	} else {
		buf[0] |= ^byte(0xFF >> extra)
	}
	return append(dst, buf[:size]...)
}

// readVint decodes one vint starting at data[start] and returns it with the
// offset after it.
func readVint(data []byte, start int) (int64, int, error) {
	if start >= len(data) {
		return 0, 0, fmt.Errorf("unexpected eof")
	}
	first := data[start]
	extra := bits.LeadingZeros8(^first)
	if start+extra+1 > len(data) {
		return 0, 0, fmt.Errorf("data expect to have %d bytes, but it has only %d", start+extra+1, len(data))
	}
	u := uint64(first & (0xFF >> extra))
	if extra == 8 {
		u = 0
	}
	for _, b := range data[start+1 : start+1+extra] {
		u = u<<8 | uint64(b)
	}
	return int64(u>>1) ^ -int64(u&1), start + 1 + extra, nil
}

func decodeDuration(data []byte) (months, days int32, nanos int64, err error) {
	m, i, err := readVint(data, 0)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("failed to extract month: %s", err.Error())
	}
	d, i, err := readVint(data, i)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("failed to extract days: %s", err.Error())
	}
	n, _, err := readVint(data, i)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("failed to extract nanoseconds: %s", err.Error())
	}
	return int32(m), int32(d), n, nil
}
