package future_test

import (
	"context"
	"fmt"
	"time"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// staticPages is a Requester serving fixed pages, so the example runs without a server.
type staticPages map[string]fakePage

func (s staticPages) Request(ctx context.Context, pagingState []byte, timeout time.Duration) future.Pending {
	p := &fakePending{done: make(chan struct{})}
	p.finish(s[string(pagingState)], nil)
	return p
}

// The asynchronous paging pattern of the Python driver: the callback asks for the next page
// while there is one, and fires again for it.
func Example() {
	pages := staticPages{
		"":   {rows: []int{1, 2}, next: "p2"},
		"p2": {rows: []int{3}},
	}
	f := future.Start(context.Background(), pages, future.Options{})
	done := make(chan struct{})
	f.AddCallbacks(func(p future.Page) {
		rows, _ := p.Rows()
		for _, r := range rows {
			fmt.Println("page", p.Number(), r)
		}
		if f.HasMorePages() {
			_ = f.StartFetchingNextPage()
			return
		}
		close(done)
	}, func(err error) {
		fmt.Println("failed:", err)
		close(done)
	})
	<-done
	// Output:
	// page 1 Row(k=1)
	// page 1 Row(k=2)
	// page 2 Row(k=3)
}

// A ResultSet pages in place while it is iterated.
func ExampleResultSet() {
	pages := staticPages{
		"":   {rows: []int{1, 2}, next: "p2"},
		"p2": {rows: nil, next: "p3"}, // empty pages are skipped
		"p3": {rows: []int{3}},
	}
	rs, err := future.Start(context.Background(), pages, future.Options{}).Result()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("current page:", len(rs.CurrentRows()), "rows")
	for row, err := range rs.Seq() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(row)
	}
	fmt.Println("after iteration:", len(rs.CurrentRows()), "rows")
	// Output:
	// current page: 2 rows
	// Row(k=1)
	// Row(k=2)
	// Row(k=3)
	// after iteration: 0 rows
}

// ExecuteAsync runs a statement through a native session, here against an embedded cqlsim
// server (use your cluster's addresses instead of cl.Addrs()).
func ExampleExecuteAsync() {
	cl, err := cqlsim.Start(cqlsim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cl.Close()
	ctx := context.Background()
	sess, err := native.Connect(ctx, native.Config{Hosts: cl.Addrs()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sess.Close()
	f := future.ExecuteAsync(ctx, sess, native.Query("SELECT release_version FROM system.local"), future.Options{Timeout: 5 * time.Second})
	rs, err := f.Result()
	if err != nil {
		fmt.Println(err)
		return
	}
	row, _ := rs.One()
	_, ok := row.Get("release_version")
	fmt.Println(ok)
	// Output: true
}
