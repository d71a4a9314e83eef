package gocql

import (
	"errors"
	"testing"
	"time"
)

func TestUnmarshalRejectsForgedCollectionCountsWithoutAllocating(t *testing.T) {
	listInfo := CollectionType{NativeType: NewNativeType(4, TypeList, ""), Elem: NewNativeType(4, TypeInt, "")}
	mapInfo := CollectionType{NativeType: NewNativeType(4, TypeMap, ""), Key: NewNativeType(4, TypeInt, ""), Elem: NewNativeType(4, TypeInt, "")}
	forged := []byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 4, 0, 0, 0, 1}
	var s []int
	allocs := testing.AllocsPerRun(5, func() {
		if err := Unmarshal(listInfo, forged, &s); err == nil {
			t.Fatal("a list count of 2^31-1 with one element of data was accepted")
		}
	})
	if allocs > 10 {
		t.Errorf("rejecting a forged count took %v allocations", allocs)
	}
	var m map[int]int
	if err := Unmarshal(mapInfo, forged, &m); err == nil {
		t.Fatal("a map count of 2^31-1 was accepted")
	}
	negative := []byte{0xff, 0xff, 0xff, 0xfe}
	if err := Unmarshal(listInfo, negative, &s); err == nil {
		t.Error("a negative list count was accepted")
	}
}

func TestMarshalUnsetValue(t *testing.T) {
	for _, info := range []TypeInfo{NewNativeType(4, TypeInt, ""), NewNativeType(4, TypeText, ""),
		CollectionType{NativeType: NewNativeType(4, TypeList, ""), Elem: NewNativeType(4, TypeInt, "")}} {
		b, err := Marshal(info, UnsetValue)
		if err != nil || b != nil {
			t.Errorf("Marshal(%s, UnsetValue) = %x, %v; want null", info, b, err)
		}
	}
	if !isUnset(UnsetValue) || isUnset(nil) {
		t.Error("isUnset does not recognise UnsetValue")
	}
	tuple := TupleTypeInfo{NativeType: NewNativeType(4, TypeTuple, ""), Elems: []TypeInfo{NewNativeType(4, TypeInt, "")}}
	var ue UnmarshalError
	if _, err := Marshal(tuple, UnsetValue); !errors.As(err, &ue) {
		t.Errorf("Marshal(tuple, UnsetValue) error = %v, want gocql's UnmarshalError", err)
	}
}

func TestNoPanicWhereGocqlPanics(t *testing.T) {
	intInfo := NewNativeType(4, TypeInt, "")
	if _, err := Marshal(NewNativeType(0, TypeInt, ""), 1); err == nil {
		t.Error("Marshal with protocol version 0 succeeded")
	}
	if _, err := Marshal(nil, 1); err == nil {
		t.Error("Marshal with a nil TypeInfo succeeded")
	}
	if err := Unmarshal(intInfo, []byte{0, 0, 0, 1}, (*int)(nil)); err == nil {
		t.Error("Unmarshal into a nil *int succeeded")
	}
	var d time.Time
	if err := Unmarshal(NewNativeType(4, TypeDate, ""), []byte{1, 2}, &d); err == nil {
		t.Error("Unmarshal of a 2-byte date succeeded")
	}
	tuple := TupleTypeInfo{NativeType: NewNativeType(4, TypeTuple, ""), Elems: []TypeInfo{intInfo, intInfo}}
	if err := Unmarshal(tuple, []byte{0, 0, 0, 4, 0, 0, 0, 1}, []interface{}{new(int)}); err == nil {
		t.Error("Unmarshal of a 2-tuple into 1 destination succeeded")
	}
	if err := Unmarshal(tuple, []byte{0, 0, 0, 9, 0}, []interface{}{new(int), new(int)}); err == nil {
		t.Error("Unmarshal of a tuple with an overlong component succeeded")
	}
	var wrong struct{ A, B int32 }
	if err := Unmarshal(tuple, []byte{0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2}, &wrong); err == nil {
		t.Error("Unmarshal of tuple<int,int> into int32 fields succeeded (gocql only stores its own Go types)")
	}
	if _, err := Marshal(tuple, nil); err == nil {
		t.Error("Marshal(tuple, nil) succeeded")
	}
}
