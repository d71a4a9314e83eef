package workpool_test

import (
	"fmt"
	"sync"

	"github.com/cqlbridge/cqlbridge/internal/workpool"
)

func Example() {
	var wg sync.WaitGroup
	results := make([]int, 5)
	p := &workpool.Pool[int]{Run: func(i int) {
		results[i] = i * i
		wg.Done()
	}}
	defer p.Close()
	for i := range results {
		wg.Add(1)
		p.Go(i)
	}
	wg.Wait()
	fmt.Println(results)
	// Output: [0 1 4 9 16]
}
