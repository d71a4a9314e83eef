package gocql

import (
	"math/big"
	"reflect"
	"testing"
	"time"

	"gopkg.in/inf.v0"
)

func TestTypeInfoStrings(t *testing.T) {
	text := NewNativeType(4, TypeVarchar, "")
	i := NewNativeType(4, TypeInt, "")
	cases := []struct {
		info TypeInfo
		want string
	}{
		{i, "int"},
		{NewNativeType(4, TypeCustom, "com.example.Foo"), "custom(com.example.Foo)"},
		{NewNativeType(4, TypeUDT, ""), "unknown_type_48"},
		{CollectionType{NativeType: NewNativeType(4, TypeList, ""), Elem: i}, "list(int)"},
		{CollectionType{NativeType: NewNativeType(4, TypeMap, ""), Key: text, Elem: i}, "map(varchar, int)"},
		{TupleTypeInfo{NativeType: NewNativeType(4, TypeTuple, ""), Elems: []TypeInfo{i, text}}, "tuple(int, varchar)"},
		{UDTTypeInfo{NativeType: NewNativeType(4, TypeUDT, ""), KeySpace: "ks", Name: "addr",
			Elements: []UDTField{{"street", text}, {"no", i}}}, "ks.addr{street=varchar,no=int}"},
	}
	for _, c := range cases {
		if got := c.info.(interface{ String() string }).String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestTypeInfoNewAllocatesGocqlGoTypes(t *testing.T) {
	n := func(typ Type) NativeType { return NewNativeType(4, typ, "") }
	cases := []struct {
		info TypeInfo
		want interface{}
	}{
		{n(TypeAscii), new(string)},
		{n(TypeInet), new(string)},
		{n(TypeBigInt), new(int64)},
		{n(TypeCounter), new(int64)},
		{n(TypeTime), new(time.Duration)},
		{n(TypeTimestamp), new(time.Time)},
		{n(TypeDate), new(time.Time)},
		{n(TypeBlob), new([]byte)},
		{n(TypeInt), new(int)},
		{n(TypeSmallInt), new(int16)},
		{n(TypeTinyInt), new(int8)},
		{n(TypeDecimal), new(*inf.Dec)},
		{n(TypeVarint), new(*big.Int)},
		{n(TypeTimeUUID), new(UUID)},
		{n(TypeDuration), new(Duration)},
		{CollectionType{NativeType: n(TypeSet), Elem: n(TypeFloat)}, new([]float32)},
		{CollectionType{NativeType: n(TypeMap), Key: n(TypeUUID), Elem: n(TypeDouble)}, new(map[UUID]float64)},
		{TupleTypeInfo{NativeType: n(TypeTuple), Elems: []TypeInfo{n(TypeInt)}}, new([]interface{})},
		{UDTTypeInfo{NativeType: n(TypeUDT)}, new(map[string]interface{})},
	}
	for _, c := range cases {
		got, err := c.info.NewWithError()
		if err != nil {
			t.Errorf("%v: %v", c.info, err)
			continue
		}
		if reflect.TypeOf(got) != reflect.TypeOf(c.want) {
			t.Errorf("%v.NewWithError() is %T, want %T", c.info, got, c.want)
		}
		if reflect.TypeOf(c.info.New()) != reflect.TypeOf(c.want) {
			t.Errorf("%v.New() differs from NewWithError", c.info)
		}
	}
}

func TestTypeInfoNewWithErrorRejectsUnknownTypes(t *testing.T) {
	bad := []TypeInfo{
		NewNativeType(4, TypeCustom, "com.example.Foo"),
		CollectionType{NativeType: NewNativeType(4, TypeList, "")}, // no element type
		CollectionType{NativeType: NewNativeType(4, TypeMap, ""), Key: NewNativeType(4, TypeBlob, ""), Elem: NewNativeType(4, TypeInt, "")},
		NewNativeType(4, TypeList, ""), // a list that is not a CollectionType
	}
	for _, info := range bad {
		if v, err := info.NewWithError(); err == nil {
			t.Errorf("%v.NewWithError() = %T, want an error", info, v)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("New did not panic for a custom type (gocql documents the panic)")
		}
	}()
	bad[0].New()
}
