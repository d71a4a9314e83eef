package gocql

import (
	"math"
	"reflect"
)

// collectionSizeLen is the width of collection sizes: 4 bytes from protocol
// version 3, 2 bytes before.
func collectionSizeLen(info CollectionType) int {
	if info.proto > 2 {
		return 4
	}
	return 2
}

func appendCollectionSize(dst []byte, info CollectionType, n int) ([]byte, error) {
	if collectionSizeLen(info) == 4 {
		if n > math.MaxInt32 {
			return nil, marshalErrorf("marshal: collection too large")
		}
		return appendInt32(dst, int32(n)), nil
	}
	if n > math.MaxUint16 {
		return nil, marshalErrorf("marshal: collection too large")
	}
	return append(dst, byte(n>>8), byte(n)), nil
}

func readCollectionSize(info CollectionType, data []byte) (size, read int, err error) {
	if collectionSizeLen(info) == 4 {
		if len(data) < 4 {
			return 0, 0, unmarshalErrorf("unmarshal list: unexpected eof")
		}
		return int(int32(uint32(data[0])<<24 | uint32(data[1])<<16 | uint32(data[2])<<8 | uint32(data[3]))), 4, nil
	}
	if len(data) < 2 {
		return 0, 0, unmarshalErrorf("unmarshal list: unexpected eof")
	}
	return int(data[0])<<8 | int(data[1]), 2, nil
}

// appendCollectionItem marshals one element (or key) of a collection with
// its size; a null element is written with size -1 from protocol version 3.
func appendCollectionItem(dst []byte, info CollectionType, elem TypeInfo, value interface{}) ([]byte, error) {
	item, err := Marshal(elem, value)
	if err != nil {
		return nil, err
	}
	n := len(item)
	if item == nil && info.proto > 2 {
		n = -1
	}
	if dst, err = appendCollectionSize(dst, info, n); err != nil {
		return nil, err
	}
	return append(dst, item...), nil
}

// readCollectionItem splits one element off data; null elements are nil.
func readCollectionItem(info CollectionType, data []byte, what string) (item, rest []byte, err error) {
	n, read, err := readCollectionSize(info, data)
	if err != nil {
		return nil, nil, err
	}
	data = data[read:]
	if n < 0 {
		return nil, data, nil
	}
	if len(data) < n {
		return nil, nil, unmarshalErrorf("unmarshal %s: unexpected eof", what)
	}
	return data[:n], data[n:], nil
}

func marshalList(info TypeInfo, value interface{}) ([]byte, error) {
	list, ok := info.(CollectionType)
	if !ok {
		return nil, marshalErrorf("marshal: can not marshal non collection type into list")
	}
	switch value.(type) {
	case unsetColumn, nil:
		return nil, nil
	}
	rv := reflect.ValueOf(value)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		buf, err := appendCollectionSize(make([]byte, 0, 64), list, rv.Len())
		if err != nil {
			return nil, err
		}
		for i := 0; i < rv.Len(); i++ {
			if buf, err = appendCollectionItem(buf, list, list.Elem, rv.Index(i).Interface()); err != nil {
				return nil, err
			}
		}
		return buf, nil
	case reflect.Map:
		// A map[X]struct{} holds the members of a set.
		if elem := rv.Type().Elem(); elem.Kind() == reflect.Struct && elem.NumField() == 0 {
			keys := make([]interface{}, 0, rv.Len())
			for _, k := range rv.MapKeys() {
				keys = append(keys, k.Interface())
			}
			return marshalList(list, keys)
		}
	}
	return nil, marshalErrorf("can not marshal %T into %s", value, info)
}

func unmarshalList(info TypeInfo, data []byte, value interface{}) error {
	list, ok := info.(CollectionType)
	if !ok {
		return unmarshalErrorf("unmarshal: can not unmarshal none collection type into list")
	}
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	kind := rv.Kind()
	if kind != reflect.Slice && kind != reflect.Array {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	if data == nil {
		if kind == reflect.Array {
			return unmarshalErrorf("unmarshal list: can not store nil in array value")
		}
		if !rv.IsNil() {
			rv.Set(reflect.Zero(rv.Type()))
		}
		return nil
	}
	n, read, err := readCollectionSize(list, data)
	if err != nil {
		return err
	}
	data = data[read:]
	if kind == reflect.Array {
		if rv.Len() != n {
			return unmarshalErrorf("unmarshal list: array with wrong size")
		}
	} else {
		if n < 0 {
			return unmarshalErrorf("unmarshal list: negative list size %d", n)
		}
		if n > len(data)/collectionSizeLen(list) {
			return failForgedCount(list, data, []TypeInfo{list.Elem}, []reflect.Type{rv.Type().Elem()})
		}
		rv.Set(reflect.MakeSlice(rv.Type(), n, n))
	}
	for i := 0; i < n; i++ {
		var item []byte
		if item, data, err = readCollectionItem(list, data, "list"); err != nil {
			return err
		}
		if err := Unmarshal(list.Elem, item, rv.Index(i).Addr().Interface()); err != nil {
			return err
		}
	}
	return nil
}

func marshalMap(info TypeInfo, value interface{}) ([]byte, error) {
	m, ok := info.(CollectionType)
	if !ok {
		return nil, marshalErrorf("marshal: can not marshal none collection type into map")
	}
	switch value.(type) {
	case unsetColumn, nil:
		return nil, nil
	}
	rv := reflect.ValueOf(value)
	if rv.Kind() != reflect.Map {
		return nil, marshalErrorf("can not marshal %T into %s", value, info)
	}
	if rv.IsNil() {
		return nil, nil
	}
	buf, err := appendCollectionSize(make([]byte, 0, 64), m, rv.Len())
	if err != nil {
		return nil, err
	}
	iter := rv.MapRange()
	for iter.Next() {
		if buf, err = appendCollectionItem(buf, m, m.Key, iter.Key().Interface()); err != nil {
			return nil, err
		}
		if buf, err = appendCollectionItem(buf, m, m.Elem, iter.Value().Interface()); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

func unmarshalMap(info TypeInfo, data []byte, value interface{}) error {
	m, ok := info.(CollectionType)
	if !ok {
		return unmarshalErrorf("unmarshal: can not unmarshal none collection type into map")
	}
	rv, err := pointerTarget(value)
	if err != nil {
		return err
	}
	t := rv.Type()
	if t.Kind() != reflect.Map {
		return unmarshalErrorf("can not unmarshal %s into %T", info, value)
	}
	if data == nil {
		rv.Set(reflect.Zero(t))
		return nil
	}
	n, read, err := readCollectionSize(m, data)
	if err != nil {
		return err
	}
	if n < 0 {
		return unmarshalErrorf("negative map size %d", n)
	}
	data = data[read:]
	if n > len(data)/(2*collectionSizeLen(m)) {
		return failForgedCount(m, data, []TypeInfo{m.Key, m.Elem}, []reflect.Type{t.Key(), t.Elem()})
	}
	rv.Set(reflect.MakeMapWithSize(t, n))
	for i := 0; i < n; i++ {
		var item []byte
		if item, data, err = readCollectionItem(m, data, "map"); err != nil {
			return err
		}
		key := reflect.New(t.Key())
		if err := Unmarshal(m.Key, item, key.Interface()); err != nil {
			return err
		}
		if item, data, err = readCollectionItem(m, data, "map"); err != nil {
			return err
		}
		val := reflect.New(t.Elem())
		if err := Unmarshal(m.Elem, item, val.Interface()); err != nil {
			return err
		}
		if !key.Elem().Comparable() {
			return unmarshalErrorf("can not unmarshal %s into %T: key %s is not comparable", info, value, key.Elem().Type())
		}
		rv.SetMapIndex(key.Elem(), val.Elem())
	}
	return nil
}

// failForgedCount handles a collection whose count is larger than its data
// can hold (every element takes at least its size field). gocql allocates
// the whole count and then fails on the first bad element or at the end of
// the data; to report the same error without allocating, the elements are
// decoded into scratch values until that failure, which must come.
func failForgedCount(info CollectionType, data []byte, infos []TypeInfo, types []reflect.Type) error {
	what := "list"
	if info.typ == TypeMap {
		what = "map"
	}
	for {
		for i, elem := range infos {
			item, rest, err := readCollectionItem(info, data, what)
			if err != nil {
				return err
			}
			data = rest
			if err := Unmarshal(elem, item, reflect.New(types[i]).Interface()); err != nil {
				return err
			}
		}
	}
}
