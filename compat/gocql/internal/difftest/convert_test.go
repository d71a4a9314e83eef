package difftest

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	compat "github.com/cqlbridge/cqlbridge/compat/gocql"
	legacy "github.com/gocql/gocql"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/inf.v0"
)

// legacyInfo converts a compat TypeInfo into the equivalent gocql one.
func legacyInfo(info compat.TypeInfo) legacy.TypeInfo {
	if info == nil {
		return nil
	}
	native := legacy.NewNativeType(info.Version(), legacy.Type(info.Type()), info.Custom())
	switch t := info.(type) {
	case compat.CollectionType:
		return legacy.CollectionType{NativeType: native, Key: legacyInfo(t.Key), Elem: legacyInfo(t.Elem)}
	case compat.TupleTypeInfo:
		elems := make([]legacy.TypeInfo, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = legacyInfo(e)
		}
		return legacy.TupleTypeInfo{NativeType: native, Elems: elems}
	case compat.UDTTypeInfo:
		fields := make([]legacy.UDTField, len(t.Elements))
		for i, e := range t.Elements {
			fields[i] = legacy.UDTField{Name: e.Name, Type: legacyInfo(e.Type)}
		}
		return legacy.UDTTypeInfo{NativeType: native, KeySpace: t.KeySpace, Name: t.Name, Elements: fields}
	}
	return native
}

var (
	compatUUID     = reflect.TypeOf(compat.UUID{})
	legacyUUID     = reflect.TypeOf(legacy.UUID{})
	compatDuration = reflect.TypeOf(compat.Duration{})
	legacyDuration = reflect.TypeOf(legacy.Duration{})
	compatUnset    = reflect.TypeOf(compat.UnsetValue)
)

// legacyType maps a Go type built from compat's value types to the same type
// built from gocql's (compat.UUID becomes gocql.UUID, also inside pointers,
// slices, arrays and maps). Other types map to themselves.
func legacyType(t reflect.Type) reflect.Type {
	switch t {
	case compatUUID:
		return legacyUUID
	case compatDuration:
		return legacyDuration
	}
	if t.Kind() != reflect.Ptr && t.Implements(pairedType) {
		return reflect.TypeOf(reflect.Zero(t).Interface().(paired).legacyValue())
	}
	if t.Name() != "" {
		return t
	}
	switch t.Kind() {
	case reflect.Ptr:
		return reflect.PointerTo(legacyType(t.Elem()))
	case reflect.Slice:
		return reflect.SliceOf(legacyType(t.Elem()))
	case reflect.Array:
		return reflect.ArrayOf(t.Len(), legacyType(t.Elem()))
	case reflect.Map:
		return reflect.MapOf(legacyType(t.Key()), legacyType(t.Elem()))
	}
	return t
}

// containsInterface reports whether values of t can hold interface values
// (whose dynamic contents may need converting).
func containsInterface(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Ptr, reflect.Slice, reflect.Array:
		return containsInterface(t.Elem())
	case reflect.Map:
		return containsInterface(t.Key()) || containsInterface(t.Elem())
	}
	return false
}

var pairedType = reflect.TypeOf((*paired)(nil)).Elem()

// paired is implemented by test values whose gocql counterpart cannot be
// derived by type conversion (custom marshalers, structs with compat types).
type paired interface {
	legacyValue() interface{}
}

// toLegacy converts a value built from compat's types into the equivalent
// value built from gocql's.
func toLegacy(v interface{}) interface{} {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Type() == compatUnset {
		return legacy.UnsetValue
	}
	return convertValue(rv).Interface()
}

func convertValue(rv reflect.Value) reflect.Value {
	if rv.Kind() != reflect.Ptr && rv.CanInterface() {
		if p, ok := rv.Interface().(paired); ok {
			return reflect.ValueOf(p.legacyValue())
		}
	}
	if rv.Type() == compatUUID || rv.Type() == compatDuration {
		return rv.Convert(legacyType(rv.Type()))
	}
	switch rv.Kind() {
	case reflect.Interface:
		out := reflect.New(rv.Type()).Elem()
		if !rv.IsNil() {
			out.Set(reflect.ValueOf(toLegacy(rv.Elem().Interface())))
		}
		return out
	case reflect.Ptr:
		if rv.IsNil() {
			return reflect.Zero(legacyType(rv.Type()))
		}
		elem := convertValue(rv.Elem())
		out := reflect.New(elem.Type())
		out.Elem().Set(elem)
		return out
	}
	lt := legacyType(rv.Type())
	if lt == rv.Type() && !containsInterface(lt) {
		return rv
	}
	switch rv.Kind() {
	case reflect.Slice:
		if rv.IsNil() {
			return reflect.Zero(lt)
		}
		out := reflect.MakeSlice(lt, rv.Len(), rv.Len())
		for i := 0; i < rv.Len(); i++ {
			out.Index(i).Set(convertValue(rv.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(lt).Elem()
		for i := 0; i < rv.Len(); i++ {
			out.Index(i).Set(convertValue(rv.Index(i)))
		}
		return out
	case reflect.Map:
		if rv.IsNil() {
			return reflect.Zero(lt)
		}
		out := reflect.MakeMapWithSize(lt, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			out.SetMapIndex(convertValue(it.Key()), convertValue(it.Value()))
		}
		return out
	}
	return rv
}

// cmpOptions compare the values gocql produces: numbers by value, times
// with Equal (go-cmp uses the Equal method).
var cmpOptions = []cmp.Option{
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmpopts.EquateNaNs(),
	cmp.Comparer(func(a, b myFloat32) bool { return a == b || a != a && b != b }),
	cmp.Comparer(func(a, b myFloat64) bool { return a == b || a != a && b != b }),
	cmp.Comparer(func(a, b *big.Int) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Cmp(b) == 0
	}),
	cmp.Comparer(func(a, b big.Int) bool { return a.Cmp(&b) == 0 }),
	cmp.Comparer(func(a, b *inf.Dec) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Cmp(b) == 0 && a.Scale() == b.Scale()
	}),
	cmp.Comparer(func(a, b inf.Dec) bool { return a.Cmp(&b) == 0 && a.Scale() == b.Scale() }),
}

// outcome is what one side's Marshal or Unmarshal did.
type outcome struct {
	data     []byte
	err      error
	panicked interface{}
	// unordered is set when the value holds a map with several entries:
	// Go's random map order decides which entry fails first, so the two
	// sides may report different entries, and successful encodings list the
	// entries in different orders.
	unordered bool
	// info is the TypeInfo marshalled into (set by marshalBoth), used to
	// compare unordered encodings by what they decode to.
	info compat.TypeInfo
}

func (o outcome) failed() bool { return o.err != nil || o.panicked != nil }

func (o outcome) String() string {
	switch {
	case o.panicked != nil:
		return fmt.Sprintf("panic(%v)", o.panicked)
	case o.err != nil:
		return fmt.Sprintf("error(%v)", o.err)
	}
	if o.data == nil {
		return "null"
	}
	return fmt.Sprintf("%x", o.data)
}

func protect(f func() ([]byte, error)) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{panicked: r}
		}
	}()
	data, err := f()
	return outcome{data: data, err: err}
}

// marshalBoth runs both Marshal implementations on the same value.
func marshalBoth(info compat.TypeInfo, value interface{}) (c, l outcome) {
	c = protect(func() ([]byte, error) { return compat.Marshal(info, value) })
	l = protect(func() ([]byte, error) { return legacy.Marshal(legacyInfo(info), toLegacy(value)) })
	c.unordered = hasUnorderedMap(reflect.ValueOf(value))
	c.info = info
	return c, l
}

// checkMarshal reports a difference between the two Marshal results. The
// rules: compat never panics; where gocql panics, compat returns an error;
// otherwise both fail, or both succeed with identical bytes (nil and empty
// told apart).
func checkMarshal(t testing.TB, name string, c, l outcome) {
	t.Helper()
	switch {
	case c.panicked != nil:
		t.Errorf("%s: compat Marshal panicked: %v (gocql: %v)", name, c.panicked, l)
	case l.panicked != nil:
		if c.err == nil {
			t.Errorf("%s: gocql panics (%v) but compat returned %v instead of an error", name, l.panicked, c)
		}
	case c.failed() != l.failed():
		t.Errorf("%s: compat %v, gocql %v", name, c, l)
	case c.failed():
		if !c.unordered {
			checkMessage(t, name, c.err, l.err)
		}
	case c.unordered && c.info != nil:
		// The entry order of a map's encoding follows Go's random map iteration on both
		// sides: compare the length and what gocql decodes each encoding to.
		lv, le := decodeLegacy(c.info, l.data)
		cv, ce := decodeLegacy(c.info, c.data)
		if le != nil || ce != nil || len(l.data) != len(c.data) {
			t.Errorf("%s: encodings of an unordered map differ: gocql %x (%v), compat %x (%v)", name, l.data, le, c.data, ce)
		} else if diff := cmp.Diff(lv, cv); diff != "" {
			t.Errorf("%s: unordered map encodings decode differently (-gocql +compat):\n%s", name, diff)
		}
	default:
		if diff := cmp.Diff(l.data, c.data); diff != "" {
			t.Errorf("%s: bytes differ (-gocql +compat):\n%s", name, diff)
		}
	}
}

// unmarshalBoth decodes data into a fresh destination of type dest (a
// pointer type built from compat's types, or []interface{} of such
// pointers) on both sides, and returns the outcomes and the decoded values
// (the legacy one converted from the compat one for comparison).
func unmarshalBoth(info compat.TypeInfo, data []byte, newDest func() interface{}) (c, l outcome, cv, lv interface{}) {
	cd := newDest()
	ld := toLegacy(newDest())
	c = protect(func() ([]byte, error) { return nil, compat.Unmarshal(info, data, cd) })
	l = protect(func() ([]byte, error) { return nil, legacy.Unmarshal(legacyInfo(info), data, ld) })
	return c, l, resultOf(cd), resultOf(ld)
}

// resultOf returns what a destination holds after Unmarshal.
func resultOf(dest interface{}) interface{} {
	if s, ok := dest.([]interface{}); ok {
		out := make([]interface{}, len(s))
		for i, d := range s {
			out[i] = resultOf(d)
		}
		return out
	}
	rv := reflect.ValueOf(dest)
	if rv.Kind() == reflect.Ptr && !rv.IsNil() {
		return rv.Elem().Interface()
	}
	return dest
}

func checkUnmarshal(t testing.TB, name string, c, l outcome, cv, lv interface{}) {
	t.Helper()
	switch {
	case c.panicked != nil:
		t.Errorf("%s: compat Unmarshal panicked: %v (gocql: %v)", name, c.panicked, l)
	case l.panicked != nil:
		if c.err == nil {
			t.Errorf("%s: gocql panics (%v) but compat returned no error", name, l.panicked)
		}
	case c.failed() != l.failed():
		t.Errorf("%s: compat %v, gocql %v", name, c, l)
	case c.failed():
		checkMessage(t, name, c.err, l.err)
	default:
		if diff := cmp.Diff(lv, toLegacy(cv), cmpOptions...); diff != "" {
			t.Errorf("%s: decoded values differ (-gocql +compat):\n%s", name, diff)
		}
	}
}

// checkMessage requires the same error text from both sides (applications
// match on gocql's messages), after undoing the test's own renaming of
// paired types (compatX is legacyX on gocql's side) and gocql's "tupl)" for
// an empty tuple type, which compat prints as "tuple()".
func checkMessage(t testing.TB, name string, c, l error) {
	t.Helper()
	cm := strings.ReplaceAll(c.Error(), "difftest.compat", "difftest.legacy")
	lm := strings.ReplaceAll(l.Error(), "tupl)", "tuple()")
	if cm != lm {
		t.Errorf("%s: error messages differ:\n compat: %s\n  gocql: %s", name, c, l)
	}
}

// hasUnorderedMap reports whether v holds a map with more than one entry.
func hasUnorderedMap(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map:
		if v.Len() > 1 {
			return true
		}
		it := v.MapRange()
		for it.Next() {
			if hasUnorderedMap(it.Key()) || hasUnorderedMap(it.Value()) {
				return true
			}
		}
	case reflect.Ptr, reflect.Interface:
		return !v.IsNil() && hasUnorderedMap(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if hasUnorderedMap(v.Index(i)) {
				return true
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if hasUnorderedMap(v.Field(i)) {
				return true
			}
		}
	}
	return false
}

// decodeLegacy decodes data with gocql into a new value of the Go type gocql chooses for info.
func decodeLegacy(info compat.TypeInfo, data []byte) (v interface{}, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gocql panicked decoding %s: %v", info, r)
		}
	}()
	li := legacyInfo(info)
	//lint:ignore SA1019 gocql v1.7.0's TypeInfo.New is the reference being compared
	dest := li.New()
	if err := legacy.Unmarshal(li, data, dest); err != nil {
		return nil, err
	}
	return reflect.ValueOf(dest).Elem().Interface(), nil
}
