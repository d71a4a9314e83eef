package native

import (
	"time"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// decodeCell decodes one cell (nil for NULL) of type t into dest, a pointer.
func decodeCell(t *cqltype.Type, cell []byte, dest any) error {
	return cqltype.Decode(t, cell, dest)
}

// Get decodes column i of row into a new T. It is the allocation-free way to read a column:
// unlike Scan, whose destinations escape to the heap (Scan hands them to the general
// decoder), Get decodes the common types (string, []byte, int, int64, int32, bool, float64,
// float32, time.Time, cqltype.UUID from their matching CQL types) without allocating
// beyond the value's own bytes, and any other T through package cqltype. The error is a
// *ScanError.
func Get[T any](row Row, i int) (T, error) {
	var out T
	cols := row.Columns()
	if i < 0 || i >= len(cols) {
		return out, &ScanError{Index: -1, Err: errColumnIndex(i, len(cols))}
	}
	cell := row.Raw(i)
	t := cols[i].Type
	ok, err := decodeFast(t, cell, &out)
	if !ok {
		var v T
		err = cqltype.Decode(t, cell, &v)
		out = v
	}
	if err != nil {
		var zero T
		return zero, &ScanError{Column: cols[i].Name, Index: i, Type: t, Err: err}
	}
	return out, nil
}

// decodeFast decodes the most common pairs of CQL type and Go pointer without letting dst
// escape; it reports false when it has no fast path for the pair, a column of another type
// included, also for NULL and the empty value (cqltype.Decode then decides). NULL and, for
// non-string types, the empty value decode to the zero value, as cqltype.Decode does.
func decodeFast(t *cqltype.Type, cell []byte, dst any) (bool, error) {
	k := t.Kind
	var err error
	switch d := dst.(type) {
	case *string:
		if k != cqltype.KindVarchar && k != cqltype.KindASCII {
			return false, nil
		}
		*d = string(cell)
		return true, nil
	case *[]byte:
		if k != cqltype.KindBlob {
			return false, nil
		}
		*d = cqltype.DecodeBytes(cell)
		return true, nil
	}
	switch d := dst.(type) {
	case *int:
		switch k {
		case cqltype.KindInt:
			var v int32
			v, err = cqltype.DecodeInt32(cell)
			*d = int(v)
		case cqltype.KindBigint, cqltype.KindCounter:
			var v int64
			v, err = cqltype.DecodeInt64(cell)
			if int64(int(v)) != v {
				// Does not fit in a 32-bit int: cqltype.Decode reports ErrOutOfRange, as for Scan.
				return false, nil
			}
			*d = int(v)
		default:
			return false, nil
		}
	case *int64:
		switch k {
		case cqltype.KindBigint, cqltype.KindCounter:
			*d, err = cqltype.DecodeInt64(cell)
		case cqltype.KindInt:
			var v int32
			v, err = cqltype.DecodeInt32(cell)
			*d = int64(v)
		default:
			return false, nil
		}
	case *int32:
		if k != cqltype.KindInt {
			return false, nil
		}
		*d, err = cqltype.DecodeInt32(cell)
	case *bool:
		if k != cqltype.KindBoolean {
			return false, nil
		}
		*d, err = cqltype.DecodeBool(cell)
	case *float64:
		if k != cqltype.KindDouble {
			return false, nil
		}
		*d, err = cqltype.DecodeFloat64(cell)
	case *float32:
		if k != cqltype.KindFloat {
			return false, nil
		}
		*d, err = cqltype.DecodeFloat32(cell)
	case *time.Time:
		if k != cqltype.KindTimestamp {
			return false, nil
		}
		*d, err = cqltype.DecodeTimestamp(cell)
	case *cqltype.UUID:
		if k != cqltype.KindUUID && k != cqltype.KindTimeUUID {
			return false, nil
		}
		*d, err = cqltype.DecodeUUID(cell)
	default:
		return false, nil
	}
	if err != nil {
		// Let the general decoder build its detailed error.
		return false, nil
	}
	return true, nil
}
