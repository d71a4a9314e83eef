package cqltype

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
)

// appendReflect encodes what appendScalar does not know: pointers, named types,
// collections, tuples, UDTs and vectors.
func appendReflect(dst []byte, t *Type, rv reflect.Value) ([]byte, bool, error) {
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return dst, true, nil
		}
		if rv.Kind() == reflect.Pointer && rv.Type().Implements(marshalerType) {
			return appendMarshaler(dst, t, rv.Interface().(Marshaler))
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return dst, true, nil
	}
	if rv.Type() == unsetType {
		return dst, false, &ValueError{At: t, GoType: rv.Type().String(), Err: invalid("unset is only allowed as a whole bound value")}
	}
	if rv.Type().Implements(marshalerType) && rv.CanInterface() {
		return appendMarshaler(dst, t, rv.Interface().(Marshaler))
	}
	if reflect.PointerTo(rv.Type()).Implements(marshalerType) && rv.CanInterface() {
		// MarshalCQL has a pointer receiver: call it on the value itself when it is
		// addressable (a slice element), else on a copy (a value bound as a whole, an array
		// element, a map key or value, a field of a struct passed by value), so that the
		// type encodes itself wherever it is, as it decodes itself wherever it is.
		p := reflect.New(rv.Type())
		if rv.CanAddr() {
			p = rv.Addr()
		} else {
			p.Elem().Set(rv)
		}
		return appendMarshaler(dst, t, p.Interface().(Marshaler))
	}
	switch t.Kind {
	case KindList, KindSet:
		return appendListRV(dst, t, rv)
	case KindMap:
		return appendMapRV(dst, t, rv)
	case KindTuple:
		return appendTupleRV(dst, t, rv)
	case KindUDT:
		return appendUDTRV(dst, t, rv)
	case KindVector:
		return appendVectorRV(dst, t, rv)
	}
	// A scalar. First the value itself (covers UUID, time.Time, Decimal...).
	if rv.CanInterface() {
		out, null, err := appendScalar(dst, t, rv.Interface())
		if err != errNoMatch {
			return out, null, err
		}
	}
	// Then named types by their underlying kind (type Celsius float64...), except the
	// types whose number carries a unit that a timestamp, date or time would read in
	// another one (a Duration's nanoseconds as milliseconds since the epoch, say).
	if unitMismatch(t.Kind, rv.Type()) {
		return dst, false, unsupported(t, rv)
	}
	var base any
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		base = rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		base = rv.Uint()
	case reflect.Float32:
		base = float32(rv.Float())
	case reflect.Float64:
		base = rv.Float()
	case reflect.String:
		base = rv.String()
	case reflect.Bool:
		base = rv.Bool()
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			if rv.IsNil() {
				return dst, true, nil
			}
			base = rv.Bytes()
		}
	case reflect.Array:
		if rv.Len() == 16 && rv.Type().Elem().Kind() == reflect.Uint8 {
			var u [16]byte
			reflect.Copy(reflect.ValueOf(&u).Elem(), rv)
			base = u
		}
	}
	if base != nil {
		out, null, err := appendScalar(dst, t, base)
		if err != errNoMatch {
			var ve *ValueError
			if errors.As(err, &ve) {
				ve.GoType = rv.Type().String()
			}
			return out, null, err
		}
	}
	return dst, false, unsupported(t, rv)
}

// unitMismatch reports whether a value of Go type gt is a number in a unit other than
// the one kind counts in: time.Duration (nanoseconds) and Date (days) for a timestamp
// (milliseconds), Duration for a date (days), Date for a time (nanoseconds of the day).
func unitMismatch(kind Kind, gt reflect.Type) bool {
	switch gt {
	case durationGoType:
		return kind == KindTimestamp || kind == KindDate
	case dateGoType:
		return kind == KindTimestamp || kind == KindTime
	}
	return false
}

var (
	durationGoType = reflect.TypeFor[time.Duration]()
	dateGoType     = reflect.TypeFor[Date]()
)

func unsupported(t *Type, rv reflect.Value) error {
	e := &ValueError{At: t, GoType: rv.Type().String(), Err: ErrUnsupportedGoType}
	if rv.CanInterface() {
		e.Value = shortValue(rv.Interface())
	}
	return e
}

// appendElemRV appends one element as [bytes] (4-byte length, -1 for NULL).
func appendElemRV(dst []byte, t *Type, rv reflect.Value, nullOK bool, where string) ([]byte, error) {
	dst, off := reserveLen(dst)
	out, null, err := appendReflect(dst, t, rv)
	if err != nil {
		return dst[:off], err
	}
	if null {
		if !nullOK {
			return dst[:off], &ValueError{At: t, GoType: rv.Type().String(), Err: invalid("NULL is not allowed in a %s", where)}
		}
		return AppendNull(out[:off]), nil
	}
	if len(out)-off-4 > math.MaxInt32 {
		return dst[:off], &ValueError{At: t, GoType: rv.Type().String(), Err: invalid("element over the protocol size limit")}
	}
	patchLen(out, off)
	return out, nil
}

func appendCount(dst []byte, t *Type, rv reflect.Value, n int) ([]byte, error) {
	if n > math.MaxInt32 {
		return dst, &ValueError{At: t, GoType: rv.Type().String(), Err: invalid("%d elements, over the protocol limit", n)}
	}
	return binary.BigEndian.AppendUint32(dst, uint32(n)), nil
}

func appendListRV(dst []byte, t *Type, rv reflect.Value) ([]byte, bool, error) {
	where := t.Kind.String()
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return dst, true, nil
		}
		n := rv.Len()
		dst, err := appendCount(dst, t, rv, n)
		if err != nil {
			return dst, false, err
		}
		for i := range n {
			if dst, err = appendElemRV(dst, t.Elem, rv.Index(i), false, where); err != nil {
				return dst, false, withPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		return dst, false, nil
	case reflect.Map:
		if t.Kind != KindSet {
			break
		}
		vt := rv.Type().Elem()
		isBool := vt.Kind() == reflect.Bool
		if !isBool && !(vt.Kind() == reflect.Struct && vt.NumField() == 0) {
			break
		}
		if rv.IsNil() {
			return dst, true, nil
		}
		n := 0
		for it := rv.MapRange(); it.Next(); {
			if !isBool || it.Value().Bool() {
				n++
			}
		}
		dst, err := appendCount(dst, t, rv, n)
		if err != nil {
			return dst, false, err
		}
		for it := rv.MapRange(); it.Next(); {
			if isBool && !it.Value().Bool() {
				continue
			}
			if dst, err = appendElemRV(dst, t.Elem, it.Key(), false, where); err != nil {
				return dst, false, withPath(err, "["+formatKey(it.Key())+"]")
			}
		}
		return dst, false, nil
	}
	return dst, false, unsupported(t, rv)
}

// describeKey is formatKey preceded by the dynamic type of an interface key ("int64 7").
func describeKey(k reflect.Value) string {
	if k.Kind() == reflect.Interface && !k.IsNil() {
		return k.Elem().Type().String() + " " + formatKey(k)
	}
	return formatKey(k)
}

func formatKey(k reflect.Value) string {
	for k.Kind() == reflect.Interface && !k.IsNil() {
		k = k.Elem()
	}
	if k.Kind() == reflect.String {
		s := k.String()
		if len(s) > 40 {
			return strconv.Quote(s[:37]) + "..."
		}
		return strconv.Quote(s)
	}
	if k.CanInterface() {
		s := fmt.Sprint(k.Interface())
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return s
	}
	return "?"
}

func appendMapRV(dst []byte, t *Type, rv reflect.Value) ([]byte, bool, error) {
	if rv.Kind() != reflect.Map {
		return dst, false, unsupported(t, rv)
	}
	if rv.IsNil() {
		return dst, true, nil
	}
	dst, err := appendCount(dst, t, rv, rv.Len())
	if err != nil {
		return dst, false, err
	}
	var seen map[string]reflect.Value // encoded key -> Go key, when keys may collide
	if rv.Len() > 1 && keysMayCollide(rv.Type().Key(), t.Key) {
		seen = make(map[string]reflect.Value, rv.Len())
	}
	for it := rv.MapRange(); it.Next(); {
		start := len(dst)
		if dst, err = appendElemRV(dst, t.Key, it.Key(), false, "map"); err != nil {
			return dst, false, withPath(err, "[key "+formatKey(it.Key())+"]")
		}
		if seen != nil {
			enc := string(dst[start+4:])
			if other, dup := seen[enc]; dup {
				return dst, false, withPath(&ValueError{At: t.Key, GoType: it.Key().Type().String(),
					Err: invalid("keys %s and %s encode as the same %s, which the map would hold once, with either value", describeKey(other), describeKey(it.Key()), t.Key)},
					"[key "+formatKey(it.Key())+"]")
			}
			seen[enc] = it.Key()
		}
		if dst, err = appendElemRV(dst, t.Value, it.Value(), false, "map"); err != nil {
			return dst, false, withPath(err, "["+formatKey(it.Key())+"]")
		}
	}
	return dst, false, nil
}

// keysMayCollide reports whether two distinct Go map keys of type kt may encode to the same
// key of CQL type key: false only for the pairs whose encoding is one to one (Go integers as
// CQL integers, strings as text or blobs, booleans, 16-byte arrays as UUIDs, none with a
// MarshalCQL of its own). Times that differ
// below the millisecond or only in their location, UUIDs spelt in two cases, netip.Addrs that
// differ in their zone, NaNs, pointers to equal values and interface keys holding one number
// in two Go types do collide.
func keysMayCollide(kt reflect.Type, key *Type) bool {
	if kt.Implements(marshalerType) || reflect.PointerTo(kt).Implements(marshalerType) {
		return true // MarshalCQL may write anything
	}
	switch kt.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch key.Kind {
		case KindInt, KindBigint, KindCounter, KindSmallint, KindTinyint, KindVarint:
			return false
		}
	case reflect.String:
		switch key.Kind {
		case KindVarchar, KindASCII, KindBlob:
			return false
		}
	case reflect.Bool:
		return key.Kind != KindBoolean
	case reflect.Array:
		if kt.Len() == 16 && kt.Elem().Kind() == reflect.Uint8 && (key.Kind == KindUUID || key.Kind == KindTimeUUID) {
			return false
		}
	}
	return true
}

// tupleFields returns the exported fields of a struct type used for a tuple, in
// order, skipping fields tagged `cql:"-"`.
func tupleFields(st reflect.Type) []int {
	var idx []int
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.IsExported() || f.Tag.Get("cql") == "-" {
			continue
		}
		idx = append(idx, i)
	}
	return idx
}

func appendTupleRV(dst []byte, t *Type, rv reflect.Value) ([]byte, bool, error) {
	var elem func(i int) reflect.Value
	switch rv.Kind() {
	case reflect.Struct:
		idx := tupleFields(rv.Type())
		if len(idx) != len(t.Elems) {
			return dst, false, &ValueError{At: t, GoType: rv.Type().String(),
				Err: invalid("struct has %d exported fields, the tuple %d elements", len(idx), len(t.Elems))}
		}
		elem = func(i int) reflect.Value { return rv.Field(idx[i]) }
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return dst, true, nil
		}
		if rv.Len() != len(t.Elems) {
			return dst, false, &ValueError{At: t, GoType: rv.Type().String(),
				Err: invalid("%d values for a tuple of %d elements", rv.Len(), len(t.Elems))}
		}
		elem = rv.Index
	default:
		return dst, false, unsupported(t, rv)
	}
	var err error
	for i, et := range t.Elems {
		if dst, err = appendElemRV(dst, et, elem(i), true, "tuple"); err != nil {
			return dst, false, withPath(err, "."+strconv.Itoa(i))
		}
	}
	return dst, false, nil
}

func appendUDTRV(dst []byte, t *Type, rv reflect.Value) ([]byte, bool, error) {
	switch rv.Kind() {
	case reflect.Struct:
		st := rv.Type()
		us := udtStructOf(st)
		paths := make([][]int, len(t.Fields))
		for i, f := range t.Fields {
			p, err := us.pick(f.Name)
			if err != nil {
				return dst, false, &ValueError{At: t, GoType: st.String(), Err: err}
			}
			paths[i] = p
		}
		if err := us.check(st, t, paths); err != nil {
			return dst, false, &ValueError{At: t, GoType: st.String(), Err: err}
		}
		for i, f := range t.Fields {
			if paths[i] == nil {
				dst = AppendNull(dst)
				continue
			}
			fv, err := structFieldAt(rv, paths[i], false)
			if err != nil {
				return dst, false, withPath(&ValueError{At: f.Type, GoType: st.String(), Err: err}, "."+f.Name)
			}
			if dst, err = appendElemRV(dst, f.Type, fv, true, "UDT"); err != nil {
				return dst, false, withPath(err, "."+f.Name)
			}
		}
		return dst, false, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		if rv.IsNil() {
			return dst, true, nil
		}
		for it := rv.MapRange(); it.Next(); {
			if udtFieldIndex(t, it.Key().String()) < 0 {
				return dst, false, &ValueError{At: t, GoType: rv.Type().String(),
					Err: invalid("key %q is not a field of %s", it.Key().String(), t)}
			}
		}
		var err error
		kt := rv.Type().Key()
		for _, f := range t.Fields {
			fv := rv.MapIndex(reflect.ValueOf(f.Name).Convert(kt))
			if !fv.IsValid() {
				dst = AppendNull(dst)
				continue
			}
			if dst, err = appendElemRV(dst, f.Type, fv, true, "UDT"); err != nil {
				return dst, false, withPath(err, "."+f.Name)
			}
		}
		return dst, false, nil
	}
	return dst, false, unsupported(t, rv)
}

func udtFieldIndex(t *Type, name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// fixedSize returns the serialized size of a type whose values all have the
// same length (the types Cassandra packs without length prefix inside a
// vector), or 0. A vector whose size does not fit in an int (nested vectors
// with hostile dimensions from the server's metadata) reports math.MaxInt,
// a size no value can have, instead of a wrapped-around product.
func fixedSize(t *Type) int {
	switch t.Kind {
	case KindBoolean:
		return 1
	case KindInt, KindFloat:
		return 4
	case KindBigint, KindDouble, KindTimestamp:
		return 8
	case KindUUID, KindTimeUUID:
		return 16
	case KindVector:
		if n := fixedSize(t.Elem); n > 0 && t.Dim > 0 {
			if n > math.MaxInt/t.Dim {
				return math.MaxInt
			}
			return n * t.Dim
		}
	}
	return 0
}

func appendVectorRV(dst []byte, t *Type, rv reflect.Value) ([]byte, bool, error) {
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return dst, false, unsupported(t, rv)
	}
	if rv.Kind() == reflect.Slice && rv.IsNil() {
		return dst, true, nil
	}
	if rv.Len() != t.Dim {
		return dst, false, &ValueError{At: t, GoType: rv.Type().String(),
			Err: invalid("vector needs %d elements, got %d", t.Dim, rv.Len())}
	}
	size := fixedSize(t.Elem)
	for i := range t.Dim {
		mark := len(dst)
		out, null, err := appendReflect(dst, t.Elem, rv.Index(i))
		if err == nil && null {
			err = &ValueError{At: t.Elem, GoType: rv.Index(i).Type().String(), Err: invalid("NULL is not allowed in a vector")}
		}
		if err == nil && size > 0 && len(out)-mark != size {
			err = &ValueError{At: t.Elem, GoType: rv.Index(i).Type().String(),
				Err: invalid("vector element needs %d bytes, got %d", size, len(out)-mark)}
		}
		if err != nil {
			return dst[:mark], false, withPath(err, "["+strconv.Itoa(i)+"]")
		}
		dst = out
		if size == 0 {
			// Prefix the body with its length as an unsigned vint.
			n := len(dst) - mark
			var pre [9]byte
			p := appendUvint(pre[:0], uint64(n))
			dst = append(dst, p...)
			copy(dst[mark+len(p):], dst[mark:mark+n])
			copy(dst[mark:], p)
		}
	}
	return dst, false, nil
}
