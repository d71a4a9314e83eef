package future_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// A server that answers a page with the paging state it was sent would serve that page for
// ever: the Python driver's iteration fetches it again and again. StartFetchingNextPage
// after such a page fails with an error wrapping native.ErrPagingStateRepeated, so that a
// ResultSet's iteration ends after the pages the server sent (docs/deviations.md F12).
func TestPagingStateRepeatedEndsIteration(t *testing.T) {
	src := mapSource{
		"":   fakePage{rows: []int{1}, next: "p2"},
		"p2": fakePage{rows: []int{2}, next: "p2"},
	}
	f := future.Start(context.Background(), src, future.Options{})
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for rs.Next() {
		if len(got) > 10 {
			t.Fatalf("the iteration read %v and goes on: the repeated page is fetched again and again", got)
		}
		got = append(got, rs.Row().Values()[0].(int))
	}
	if !slices.Equal(got, []int{1, 2}) || !errors.Is(rs.Err(), native.ErrPagingStateRepeated) {
		t.Fatalf("iteration read %v then %v, want [1 2] then ErrPagingStateRepeated", got, rs.Err())
	}
	if err := f.StartFetchingNextPage(); !errors.Is(err, native.ErrPagingStateRepeated) {
		t.Errorf("StartFetchingNextPage again: %v, want ErrPagingStateRepeated", err)
	}
	if n := f.PageNumber(); n != 2 {
		t.Errorf("%d pages requested, want 2", n)
	}
}
