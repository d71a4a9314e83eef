package future_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native"
)

// The paging state a future, a ResultSet or a Page hands out is the caller's to change:
// scribbling over it does not change the page the future fetches next (it was the future's
// own slice, so the next page's request carried the caller's bytes), nor the page's.
func TestPagingStateIsACopy(t *testing.T) {
	sess, ks := realSession(t, 6)
	ctx := context.Background()
	f := future.ExecuteAsync(ctx, sess, native.Query("SELECT k FROM "+ks+".t WHERE p = 0").WithPageSize(2), future.Options{})
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	var page future.Page
	f.AddCallback(func(p future.Page) { page = p }) // completed: runs at once
	states := [][]byte{f.PagingState(), rs.PagingState(), page.PagingState()}
	for _, st := range states {
		if len(st) == 0 {
			t.Fatal("no paging state after the first page")
		}
		for i := range st {
			st[i] ^= 0xff
		}
	}
	if fmt.Sprint(page.PagingState()) == fmt.Sprint(states[2]) {
		t.Error("changing a Page's paging state changed the page's")
	}
	rows, err := rs.All()
	if err != nil {
		t.Fatalf("after changing the handed-out paging states: %v", err)
	}
	var got []int32
	for _, row := range rows {
		v, _ := row.Get("k")
		got = append(got, v.(int32))
	}
	if fmt.Sprint(got) != "[0 1 2 3 4 5]" {
		t.Errorf("rows %v, want 0..5", got)
	}
}
