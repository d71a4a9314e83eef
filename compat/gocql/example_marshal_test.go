package gocql_test

import (
	"fmt"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

func ExampleMarshal() {
	listOfInt := gocql.CollectionType{
		NativeType: gocql.NewNativeType(4, gocql.TypeList, ""),
		Elem:       gocql.NewNativeType(4, gocql.TypeInt, ""),
	}
	data, err := gocql.Marshal(listOfInt, []int16{1, -1})
	fmt.Printf("%x %v\n", data, err)

	var back []int64
	err = gocql.Unmarshal(listOfInt, data, &back)
	fmt.Println(back, err)

	_, err = gocql.Marshal(gocql.NewNativeType(4, gocql.TypeTinyInt, ""), 300)
	fmt.Println(err)
	// Output:
	// 00000002000000040000000100000004ffffffff <nil>
	// [1 -1] <nil>
	// marshal tinyint: value 300 out of range
}

type point struct {
	X int `cql:"x"`
	Y int `cql:"y"`
}

func ExampleUDTTypeInfo() {
	pointType := gocql.UDTTypeInfo{
		NativeType: gocql.NewNativeType(4, gocql.TypeUDT, ""),
		KeySpace:   "geo",
		Name:       "point",
		Elements: []gocql.UDTField{
			{Name: "x", Type: gocql.NewNativeType(4, gocql.TypeInt, "")},
			{Name: "y", Type: gocql.NewNativeType(4, gocql.TypeInt, "")},
		},
	}
	data, _ := gocql.Marshal(pointType, point{X: 3, Y: 4})
	var asMap map[string]interface{}
	err := gocql.Unmarshal(pointType, data, &asMap)
	fmt.Println(pointType, asMap, err)
	// Output: geo.point{x=int,y=int} map[x:3 y:4] <nil>
}
