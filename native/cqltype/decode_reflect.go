package cqltype

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strconv"
	"time"

	"gopkg.in/inf.v0"
)

var (
	timeType        = reflect.TypeFor[time.Time]()
	goDurationType  = reflect.TypeFor[time.Duration]()
	dateType        = reflect.TypeFor[Date]()
	cqlDurationType = reflect.TypeFor[Duration]()
	decimalType     = reflect.TypeFor[Decimal]()
	infDecType      = reflect.TypeFor[inf.Dec]()
	bigIntType      = reflect.TypeFor[big.Int]()
	ipType          = reflect.TypeFor[net.IP]()
	addrType        = reflect.TypeFor[netip.Addr]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
)

// decodeReflect decodes into the settable value v.
func decodeReflect(t *Type, b []byte, v reflect.Value) error {
	if v.CanAddr() && reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		if err := v.Addr().Interface().(Unmarshaler).UnmarshalCQL(t, b); err != nil {
			return decodeError(t, v.Type().String(), err)
		}
		return nil
	}
	isNull := b == nil || (len(b) == 0 && emptyIsNull(t.Kind))
	switch v.Kind() {
	case reflect.Pointer:
		if isNull {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return decodeReflect(t, b, v.Elem())
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return decodeError(t, v.Type().String(), ErrUnsupportedGoType)
		}
		if isNull {
			v.SetZero()
			return nil
		}
		x, err := decodeNatural(t, b)
		if err != nil {
			return err
		}
		v.Set(reflect.ValueOf(x))
		return nil
	}
	if isNull {
		v.SetZero()
		return nil
	}
	if v.CanAddr() {
		if err := decodeFast(t, b, v.Addr().Interface()); err != errNoMatch {
			return err
		}
	}
	switch t.Kind {
	case KindList, KindSet:
		return decodeListRV(t, b, v)
	case KindMap:
		return decodeMapRV(t, b, v)
	case KindTuple:
		return decodeTupleRV(t, b, v)
	case KindUDT:
		return decodeUDTRV(t, b, v)
	case KindVector:
		return decodeVectorRV(t, b, v)
	}
	return decodeScalarRV(t, b, v)
}

func decodeDecimal(b []byte) (Decimal, error) {
	if len(b) < 5 {
		return Decimal{}, malformed("decimal needs at least 5 bytes, got %d", len(b))
	}
	return Decimal{Scale: int32(binary.BigEndian.Uint32(b)), Unscaled: decodeVarintBig(b[4:])}, nil
}

func decodeAddr(b []byte) (netip.Addr, error) {
	switch len(b) {
	case 4:
		return netip.AddrFrom4([4]byte(b)), nil
	case 16:
		return netip.AddrFrom16([16]byte(b)), nil
	}
	return netip.Addr{}, malformed("inet needs 4 or 16 bytes, got %d", len(b))
}

// decodeScalarRV decodes a non-collection value into v (not NULL, not a
// pointer or interface).
func decodeScalarRV(t *Type, b []byte, v reflect.Value) error {
	vt := v.Type()
	fail := func(err error) error { return decodeError(t, vt.String(), err) }
	mismatch := func() error { return fail(ErrUnsupportedGoType) }

	switch vt {
	case timeType:
		return mismatch() // the matching kinds were handled by decodeFast
	case goDurationType:
		switch t.Kind {
		case KindTime:
			d, err := DecodeTime(b)
			if err != nil {
				return fail(err)
			}
			v.SetInt(int64(d))
			return nil
		case KindDuration:
			d, err := DecodeDuration(b)
			if err != nil {
				return fail(err)
			}
			if d.Months != 0 || d.Days != 0 {
				return fail(outOfRange("duration %s has months or days, which time.Duration cannot hold", d))
			}
			v.SetInt(d.Nanoseconds)
			return nil
		}
		return mismatch()
	case dateType:
		if t.Kind != KindDate {
			return mismatch()
		}
		d, err := DecodeDate(b)
		if err != nil {
			return fail(err)
		}
		v.SetInt(int64(d))
		return nil
	case cqlDurationType:
		if t.Kind != KindDuration {
			return mismatch()
		}
		d, err := DecodeDuration(b)
		if err != nil {
			return fail(err)
		}
		v.Set(reflect.ValueOf(d))
		return nil
	case decimalType, infDecType:
		if t.Kind != KindDecimal {
			return mismatch()
		}
		d, err := decodeDecimal(b)
		if err != nil {
			return fail(err)
		}
		if vt == decimalType {
			v.Set(reflect.ValueOf(d))
		} else {
			v.Addr().Interface().(*inf.Dec).SetUnscaledBig(d.Unscaled).SetScale(inf.Scale(d.Scale))
		}
		return nil
	case bigIntType:
		switch t.Kind {
		case KindVarint:
			v.Addr().Interface().(*big.Int).Set(decodeVarintBig(b))
			return nil
		case KindInt, KindBigint, KindCounter, KindSmallint, KindTinyint:
			n, err := decodeInt(t, b)
			if err != nil {
				return fail(err)
			}
			v.Addr().Interface().(*big.Int).SetInt64(n)
			return nil
		}
		return mismatch()
	case ipType:
		if t.Kind != KindInet {
			return mismatch()
		}
		if _, err := decodeAddr(b); err != nil {
			return fail(err)
		}
		v.SetBytes(append([]byte(nil), b...))
		return nil
	case addrType:
		if t.Kind != KindInet {
			return mismatch()
		}
		a, err := decodeAddr(b)
		if err != nil {
			return fail(err)
		}
		v.Set(reflect.ValueOf(a))
		return nil
	}

	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := decodeInt(t, b)
		if err == errNoMatch && t.Kind == KindTimestamp && v.Kind() == reflect.Int64 {
			n, err = DecodeInt64(b)
		}
		if err == errNoMatch {
			return mismatch()
		}
		if err != nil {
			return fail(err)
		}
		if v.OverflowInt(n) {
			return fail(outOfRange("%d", n))
		}
		v.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if t.Kind == KindVarint {
			// A varint beyond int64 may still fit the unsigned destination.
			if u, ok := varintUint64(b); ok && !v.OverflowUint(u) {
				v.SetUint(u)
				return nil
			}
		}
		n, err := decodeInt(t, b)
		if err == errNoMatch {
			return mismatch()
		}
		if err != nil {
			return fail(err)
		}
		if n < 0 || v.OverflowUint(uint64(n)) {
			return fail(outOfRange("%d", n))
		}
		v.SetUint(uint64(n))
		return nil
	case reflect.Float32, reflect.Float64:
		switch t.Kind {
		case KindFloat:
			f, err := DecodeFloat32(b)
			if err != nil {
				return fail(err)
			}
			v.SetFloat(float64(f))
			return nil
		case KindDouble:
			f, err := DecodeFloat64(b)
			if err != nil {
				return fail(err)
			}
			if v.Kind() == reflect.Float32 && float64(float32(f)) != f && !math.IsNaN(f) {
				return fail(outOfRange("%v is not exactly representable as a 32-bit float", f))
			}
			v.SetFloat(f)
			return nil
		}
	case reflect.Bool:
		if t.Kind == KindBoolean {
			x, err := DecodeBool(b)
			if err != nil {
				return fail(err)
			}
			v.SetBool(x)
			return nil
		}
	case reflect.String:
		switch t.Kind {
		case KindVarchar, KindASCII, KindBlob:
			v.SetString(string(b))
			return nil
		case KindUUID, KindTimeUUID:
			u, err := DecodeUUID(b)
			if err != nil {
				return fail(err)
			}
			v.SetString(u.String())
			return nil
		case KindInet:
			a, err := decodeAddr(b)
			if err != nil {
				return fail(err)
			}
			v.SetString(a.String())
			return nil
		}
	case reflect.Slice:
		if vt.Elem().Kind() != reflect.Uint8 {
			break
		}
		switch t.Kind {
		case KindVarchar, KindASCII, KindBlob, KindCustom:
		case KindUUID, KindTimeUUID:
			if _, err := DecodeUUID(b); err != nil {
				return fail(err)
			}
		default:
			return mismatch()
		}
		c := reflect.MakeSlice(vt, len(b), len(b))
		reflect.Copy(c, reflect.ValueOf(b))
		v.Set(c)
		return nil
	case reflect.Array:
		if vt.Elem().Kind() == reflect.Uint8 && v.Len() == 16 && (t.Kind == KindUUID || t.Kind == KindTimeUUID) {
			u, err := DecodeUUID(b)
			if err != nil {
				return fail(err)
			}
			reflect.Copy(v, reflect.ValueOf(u[:]))
			return nil
		}
	}
	return mismatch()
}

// readBytes reads one [bytes] element: nil for NULL.
func readBytes(b []byte) (elem, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, malformed("element length truncated (%d bytes left)", len(b))
	}
	n := int32(binary.BigEndian.Uint32(b))
	b = b[4:]
	if n < 0 {
		if n != -1 {
			return nil, nil, malformed("element length %d", n)
		}
		return nil, b, nil
	}
	if int(n) > len(b) {
		return nil, nil, malformed("element of %d bytes but only %d left", n, len(b))
	}
	return b[:n:n], b[n:], nil
}

// readCount reads a collection's element count and checks it against the bytes
// left, each element needing at least minSize bytes.
func readCount(t *Type, b []byte, minSize int) (int, []byte, error) {
	if len(b) < 4 {
		return 0, nil, decodeError(t, "", malformed("%s element count truncated", t.Kind))
	}
	n := int32(binary.BigEndian.Uint32(b))
	b = b[4:]
	if n < 0 || int64(n)*int64(minSize) > int64(len(b)) {
		return 0, nil, decodeError(t, "", malformed("%s claims %d elements in %d bytes", t.Kind, n, len(b)))
	}
	return int(n), b, nil
}

// elemError turns a framing error into a *ValueError at element type et.
func elemError(et *Type, v reflect.Value, err error) error {
	var ve *ValueError
	if errors.As(err, &ve) {
		return err
	}
	return decodeError(et, v.Type().String(), err)
}

func trailing(t *Type, v reflect.Value, rest []byte) error {
	if len(rest) != 0 {
		return decodeError(t, v.Type().String(), malformed("%d unexpected bytes after the %s", len(rest), t.Kind))
	}
	return nil
}

func fixGoType(err error, v reflect.Value) error {
	var ve *ValueError
	if errors.As(err, &ve) && ve.GoType == "" {
		ve.GoType = v.Type().String()
	}
	return err
}

func decodeListRV(t *Type, b []byte, v reflect.Value) error {
	n, rest, err := readCount(t, b, 4)
	if err != nil {
		return fixGoType(err, v)
	}
	var elem []byte
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		// Into a new slice or array, set on success only: a failed decode leaves v alone.
		var target reflect.Value
		if v.Kind() == reflect.Slice {
			target = reflect.MakeSlice(v.Type(), n, n)
		} else if v.Len() != n {
			return decodeError(t, v.Type().String(), outOfRange("%d elements into an array of %d", n, v.Len()))
		} else {
			target = reflect.New(v.Type()).Elem()
		}
		for i := range n {
			if elem, rest, err = readBytes(rest); err != nil {
				return withPath(elemError(t.Elem, target.Index(i), err), "["+strconv.Itoa(i)+"]")
			}
			if err = decodeReflect(t.Elem, elem, target.Index(i)); err != nil {
				return withPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		if err := trailing(t, v, rest); err != nil {
			return err
		}
		v.Set(target)
		return nil
	case reflect.Map:
		vt := v.Type().Elem()
		isBool := vt.Kind() == reflect.Bool
		if t.Kind != KindSet || !(isBool || (vt.Kind() == reflect.Struct && vt.NumField() == 0)) {
			break
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		present := reflect.New(vt).Elem()
		if isBool {
			present.SetBool(true)
		}
		for i := range n {
			key := reflect.New(v.Type().Key()).Elem()
			if elem, rest, err = readBytes(rest); err != nil {
				return withPath(elemError(t.Elem, key, err), "["+strconv.Itoa(i)+"]")
			}
			if err = decodeReflect(t.Elem, elem, key); err != nil {
				return withPath(err, "["+strconv.Itoa(i)+"]")
			}
			if err := checkHashable(t.Elem, key); err != nil {
				return withPath(err, "["+strconv.Itoa(i)+"]")
			}
			m.SetMapIndex(key, present)
		}
		if err := trailing(t, v, rest); err != nil {
			return err
		}
		v.Set(m)
		return nil
	}
	return decodeError(t, v.Type().String(), ErrUnsupportedGoType)
}

// checkHashable rejects map keys holding a value whose dynamic type cannot be hashed: a blob
// or a collection decoded into an interface, the key itself or one of its array elements or
// struct fields (a tuple into [2]any, say), which reflect.Value.SetMapIndex would panic on.
func checkHashable(t *Type, key reflect.Value) error {
	if !holdsInterface(key.Type()) {
		return nil
	}
	if bad := unhashable(key); bad != nil {
		return decodeError(t, key.Type().String(),
			fmt.Errorf("%w: %s decodes to a %s in the key, which cannot be a map key; use a typed map", ErrUnsupportedGoType, t, bad))
	}
	return nil
}

// holdsInterface reports whether a value of type rt can hold an interface value: it is one,
// or an array or struct with one inside. Map keys of other types are hashable whenever their
// type is comparable. (Array and struct types nest finitely: the walk ends.)
func holdsInterface(rt reflect.Type) bool {
	switch rt.Kind() {
	case reflect.Interface:
		return true
	case reflect.Array:
		return holdsInterface(rt.Elem())
	case reflect.Struct:
		for i := range rt.NumField() {
			if holdsInterface(rt.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// unhashable returns the dynamic type of the first value inside v that cannot be hashed, or
// nil when v can be a map key.
func unhashable(v reflect.Value) reflect.Type {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		e := v.Elem()
		if !e.Type().Comparable() {
			return e.Type()
		}
		return unhashable(e)
	case reflect.Array:
		for i := range v.Len() {
			if bad := unhashable(v.Index(i)); bad != nil {
				return bad
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if bad := unhashable(v.Field(i)); bad != nil {
				return bad
			}
		}
	}
	return nil
}

func decodeMapRV(t *Type, b []byte, v reflect.Value) error {
	if v.Kind() != reflect.Map {
		return decodeError(t, v.Type().String(), ErrUnsupportedGoType)
	}
	n, rest, err := readCount(t, b, 8)
	if err != nil {
		return fixGoType(err, v)
	}
	m := reflect.MakeMapWithSize(v.Type(), n)
	kt, vt := v.Type().Key(), v.Type().Elem()
	var kb, vb []byte
	for i := range n {
		key := reflect.New(kt).Elem()
		if kb, rest, err = readBytes(rest); err != nil {
			return withPath(elemError(t.Key, key, err), "[key #"+strconv.Itoa(i)+"]")
		}
		if err = decodeReflect(t.Key, kb, key); err != nil {
			return withPath(err, "[key #"+strconv.Itoa(i)+"]")
		}
		if err := checkHashable(t.Key, key); err != nil {
			return withPath(err, "[key #"+strconv.Itoa(i)+"]")
		}
		val := reflect.New(vt).Elem()
		if vb, rest, err = readBytes(rest); err != nil {
			return withPath(elemError(t.Value, val, err), "["+formatKey(key)+"]")
		}
		if err = decodeReflect(t.Value, vb, val); err != nil {
			return withPath(err, "["+formatKey(key)+"]")
		}
		m.SetMapIndex(key, val)
	}
	if err := trailing(t, v, rest); err != nil {
		return err
	}
	v.Set(m)
	return nil
}

func decodeTupleRV(t *Type, b []byte, v reflect.Value) error {
	var elem func(i int) reflect.Value
	target := v
	switch v.Kind() {
	case reflect.Struct:
		idx := tupleFields(v.Type())
		if len(idx) != len(t.Elems) {
			return decodeError(t, v.Type().String(),
				fmt.Errorf("%w: struct has %d exported fields, the tuple %d elements", ErrUnsupportedGoType, len(idx), len(t.Elems)))
		}
		target = reflect.New(v.Type()).Elem()
		elem = func(i int) reflect.Value { return target.Field(idx[i]) }
	case reflect.Slice:
		target = reflect.MakeSlice(v.Type(), len(t.Elems), len(t.Elems))
		elem = target.Index
	case reflect.Array:
		if v.Len() != len(t.Elems) {
			return decodeError(t, v.Type().String(),
				fmt.Errorf("%w: array of %d for a tuple of %d elements", ErrUnsupportedGoType, v.Len(), len(t.Elems)))
		}
		target = reflect.New(v.Type()).Elem()
		elem = target.Index
	default:
		return decodeError(t, v.Type().String(), ErrUnsupportedGoType)
	}
	rest := b
	for i, et := range t.Elems {
		var eb []byte
		if len(rest) > 0 {
			var err error
			if eb, rest, err = readBytes(rest); err != nil {
				return withPath(elemError(et, elem(i), err), "."+strconv.Itoa(i))
			}
		}
		if err := decodeReflect(et, eb, elem(i)); err != nil {
			return withPath(err, "."+strconv.Itoa(i))
		}
	}
	if err := trailing(t, v, rest); err != nil {
		return err
	}
	v.Set(target)
	return nil
}

func decodeUDTRV(t *Type, b []byte, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Struct:
		st := v.Type()
		us := udtStructOf(st)
		target := reflect.New(st).Elem()
		rest := b
		for _, f := range t.Fields {
			if len(rest) == 0 {
				break
			}
			var fb []byte
			var err error
			if fb, rest, err = readBytes(rest); err != nil {
				return withPath(decodeError(f.Type, st.String(), err), "."+f.Name)
			}
			path, err := us.pick(f.Name)
			if err != nil {
				return withPath(decodeError(f.Type, st.String(), err), "."+f.Name)
			}
			if path == nil {
				continue // a field the struct does not map (added by ALTER TYPE)
			}
			field, _ := structFieldAt(target, path, true)
			if err := decodeReflect(f.Type, fb, field); err != nil {
				return withPath(err, "."+f.Name)
			}
		}
		if err := trailing(t, v, rest); err != nil {
			return err
		}
		v.Set(target)
		return nil
	case reflect.Map:
		kt := v.Type().Key()
		if kt.Kind() != reflect.String {
			break
		}
		m := reflect.MakeMapWithSize(v.Type(), len(t.Fields))
		rest := b
		for _, f := range t.Fields {
			var fb []byte
			if len(rest) > 0 {
				var err error
				if fb, rest, err = readBytes(rest); err != nil {
					return withPath(decodeError(f.Type, v.Type().String(), err), "."+f.Name)
				}
			}
			val := reflect.New(v.Type().Elem()).Elem()
			if err := decodeReflect(f.Type, fb, val); err != nil {
				return withPath(err, "."+f.Name)
			}
			m.SetMapIndex(reflect.ValueOf(f.Name).Convert(kt), val)
		}
		if err := trailing(t, v, rest); err != nil {
			return err
		}
		v.Set(m)
		return nil
	}
	return decodeError(t, v.Type().String(), ErrUnsupportedGoType)
}

func decodeVectorRV(t *Type, b []byte, v reflect.Value) error {
	if t.Dim <= 0 || t.Dim > len(b) {
		// Every element takes at least one byte: check before allocating.
		return decodeError(t, v.Type().String(), malformed("%s cannot be read from %d bytes", t, len(b)))
	}
	size := fixedSize(t.Elem)
	// Compare by division first: size*t.Dim may not fit in an int.
	if size > 0 && (size > len(b)/t.Dim || len(b) != size*t.Dim) {
		return decodeError(t, v.Type().String(), malformed("%s needs %d elements of %d bytes, got %d bytes", t, t.Dim, size, len(b)))
	}
	// Into a new slice or array, set on success only: a failed decode leaves v alone.
	var target reflect.Value
	switch v.Kind() {
	case reflect.Slice:
		target = reflect.MakeSlice(v.Type(), t.Dim, t.Dim)
	case reflect.Array:
		if v.Len() != t.Dim {
			return decodeError(t, v.Type().String(),
				fmt.Errorf("%w: array of %d for a vector of %d", ErrUnsupportedGoType, v.Len(), t.Dim))
		}
		target = reflect.New(v.Type()).Elem()
	default:
		return decodeError(t, v.Type().String(), ErrUnsupportedGoType)
	}
	rest := b
	for i := range t.Dim {
		var eb []byte
		if size > 0 {
			eb, rest = rest[:size:size], rest[size:]
		} else {
			n, used := readUvint(rest)
			if used == 0 || n > uint64(len(rest)-used) {
				return withPath(decodeError(t.Elem, target.Index(i).Type().String(),
					malformed("vector element length truncated or beyond the %d bytes left", len(rest))), "["+strconv.Itoa(i)+"]")
			}
			eb, rest = rest[used:used+int(n):used+int(n)], rest[used+int(n):]
		}
		if err := decodeReflect(t.Elem, eb, target.Index(i)); err != nil {
			return withPath(err, "["+strconv.Itoa(i)+"]")
		}
	}
	if err := trailing(t, v, rest); err != nil {
		return err
	}
	v.Set(target)
	return nil
}
