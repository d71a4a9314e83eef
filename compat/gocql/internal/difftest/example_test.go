package difftest

import (
	"fmt"

	compat "github.com/cqlbridge/cqlbridge/compat/gocql"
)

// Marshal the same value with compat/gocql and with gocql v1.7.0.
func Example() {
	info := compat.CollectionType{NativeType: compat.NewNativeType(4, compat.TypeSet, ""), Elem: compat.NewNativeType(4, compat.TypeSmallInt, "")}
	c, l := marshalBoth(info, []int{1, 70000})
	fmt.Println("compat:", c)
	fmt.Println("gocql: ", l)
	c, l = marshalBoth(info, []uint8{7})
	fmt.Println("compat:", c)
	fmt.Println("gocql: ", l)
	// Output:
	// compat: error(marshal smallint: value 70000 out of range)
	// gocql:  error(marshal smallint: value 70000 out of range)
	// compat: 00000001000000020007
	// gocql:  00000001000000020007
}
