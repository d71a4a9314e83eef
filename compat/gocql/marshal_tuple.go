package gocql

import (
	"reflect"
)

func marshalTuple(info TypeInfo, value interface{}) ([]byte, error) {
	tuple, ok := info.(TupleTypeInfo)
	if !ok {
		return nil, marshalErrorf("can not marshal %T into %s: TypeInfo %T is not a TupleTypeInfo", value, info, info)
	}
	switch v := value.(type) {
	case unsetColumn:
		return nil, unmarshalErrorf("Invalid request: UnsetValue is unsupported for tuples")
	case nil:
		return nil, marshalErrorf("cannot marshal <nil> into %s", tuple)
	case []interface{}:
		if len(v) != len(tuple.Elems) {
			// gocql's message, spelling included.
			return nil, unmarshalErrorf("cannont marshal tuple: wrong number of elements")
		}
		var buf []byte
		for i, elem := range v {
			if elem == nil {
				buf = appendInt32(buf, -1)
				continue
			}
			data, err := Marshal(tuple.Elems[i], elem)
			if err != nil {
				return nil, err
			}
			buf = appendInt32(buf, int32(len(data)))
			buf = append(buf, data...)
		}
		return buf, nil
	}

	rv := reflect.ValueOf(value)
	var items func(i int) reflect.Value
	switch rv.Kind() {
	case reflect.Struct:
		if n := rv.NumField(); n != len(tuple.Elems) {
			return nil, marshalErrorf("can not marshal tuple into struct %v, not enough fields have %d need %d", rv.Type(), n, len(tuple.Elems))
		}
		items = rv.Field
	case reflect.Slice, reflect.Array:
		if n := rv.Len(); n != len(tuple.Elems) {
			return nil, marshalErrorf("can not marshal tuple into %v of length %d need %d elements", rv.Kind(), n, len(tuple.Elems))
		}
		items = rv.Index
	default:
		return nil, marshalErrorf("cannot marshal %T into %s", value, tuple)
	}
	var buf []byte
	for i, elem := range tuple.Elems {
		item := items(i)
		if item.Kind() == reflect.Ptr && item.IsNil() {
			buf = appendInt32(buf, -1)
			continue
		}
		if !item.CanInterface() {
			return nil, marshalErrorf("can not marshal %T into %s: field %d (%s) is unexported", value, tuple, i, rv.Type().Field(i).Name)
		}
		data, err := Marshal(elem, item.Interface())
		if err != nil {
			return nil, err
		}
		// A component that marshals to null is written with length 0, as
		// gocql does (only nil pointers are written as null).
		buf = appendInt32(buf, int32(len(data)))
		buf = append(buf, data...)
	}
	return buf, nil
}

// nextTupleItem splits the next component off tuple data; components
// missing at the end of the data are null.
func nextTupleItem(data []byte) (item, rest []byte, err error) {
	if len(data) < 4 {
		return nil, data, nil
	}
	return readCQLBytes(data, "tuple")
}

func unmarshalTuple(info TypeInfo, data []byte, value interface{}) error {
	tuple, ok := info.(TupleTypeInfo)
	if !ok {
		return unmarshalErrorf("can not unmarshal %s into %T: TypeInfo %T is not a TupleTypeInfo", info, value, info)
	}
	if dests, ok := value.([]interface{}); ok {
		if len(dests) < len(tuple.Elems) {
			return unmarshalErrorf("can not unmarshal %s into []interface{} of length %d: need %d destinations", tuple, len(dests), len(tuple.Elems))
		}
		for i, elem := range tuple.Elems {
			var item []byte
			var err error
			if item, data, err = nextTupleItem(data); err != nil {
				return err
			}
			if err := Unmarshal(elem, item, dests[i]); err != nil {
				return err
			}
		}
		return nil
	}

	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	var slot func(i int) reflect.Value
	switch rv.Kind() {
	case reflect.Struct:
		if n := rv.NumField(); n != len(tuple.Elems) {
			return unmarshalErrorf("can not unmarshal tuple into struct %v, not enough fields have %d need %d", rv.Type(), n, len(tuple.Elems))
		}
		slot = rv.Field
	case reflect.Array:
		if n := rv.Len(); n != len(tuple.Elems) {
			return unmarshalErrorf("can not unmarshal tuple into array of length %d need %d elements", n, len(tuple.Elems))
		}
		slot = rv.Index
	case reflect.Slice:
		rv.Set(reflect.MakeSlice(rv.Type(), len(tuple.Elems), len(tuple.Elems)))
		slot = rv.Index
	default:
		return unmarshalErrorf("cannot unmarshal %s into %T", info, value)
	}
	for i, elem := range tuple.Elems {
		var item []byte
		if item, data, err = nextTupleItem(data); err != nil {
			return err
		}
		// Like gocql, decode into the Go type gocql allocates for the
		// component, then store it (or a pointer to it) in the slot.
		if elem == nil {
			return unmarshalErrorf("can not unmarshal %s into %T: component %d has a nil TypeInfo", info, value, i)
		}
		decoded, err := elem.NewWithError()
		if err != nil {
			return err
		}
		if err := Unmarshal(elem, item, decoded); err != nil {
			return err
		}
		dst := slot(i)
		src := reflect.ValueOf(decoded) // a pointer
		switch {
		case dst.Kind() == reflect.Ptr && item == nil:
			src = reflect.Zero(src.Type())
		case dst.Kind() != reflect.Ptr:
			src = src.Elem()
		}
		if !dst.CanSet() {
			return unmarshalErrorf("can not unmarshal %s into %T: component %d is not settable (unexported field)", info, value, i)
		}
		if !src.Type().AssignableTo(dst.Type()) {
			return unmarshalErrorf("can not unmarshal %s into %T: component %d needs type %s, not %s", info, value, i, src.Type(), dst.Type())
		}
		dst.Set(src)
	}
	return nil
}
