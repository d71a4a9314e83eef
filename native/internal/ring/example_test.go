package ring_test

import (
	"encoding/binary"
	"fmt"

	"github.com/cqlbridge/cqlbridge/native/internal/ring"
)

// The token of an int partition key, and its replicas in a three-node ring.
func Example() {
	key := binary.BigEndian.AppendUint32(nil, 1) // the int 1, encoded
	tok := ring.Token(key)
	fmt.Println(tok)

	r := ring.New([][]int64{{-6000000000000000000}, {-3000000000000000000}, {3000000000000000000}})
	reps := r.Replicas(ring.Replication{Class: "SimpleStrategy", Factor: 2}, nil)
	fmt.Println(reps.For(tok))
	// Output:
	// -4069959284402364209
	// [1 2]
}
