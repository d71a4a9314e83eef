package native_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// A server that answers a page with the paging state it was sent would serve that page for
// ever: All and Session.Iter yield the rows of the pages it did send and then
// ErrPagingStateRepeated, instead of yielding the same rows again without end; NextPage of
// that page returns the error at once, without a request.
func TestPagingStateRepeatedEndsIteration(t *testing.T) {
	pager := &cqltest.StuckPager{}
	s := simSession(t, cqlsim.Options{}, func(c *native.Config) { c.Dialer = pager })
	mustExec(t, s, "CREATE KEYSPACE stuck WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE stuck.t (k int, c int, PRIMARY KEY (k, c))")
	for c := range 10 {
		mustExec(t, s, "INSERT INTO stuck.t (k, c) VALUES (1, ?)", int32(c))
	}
	st := native.Query("SELECT c FROM stuck.t WHERE k = 1").WithPageSize(3)
	var got []int32
	var iterErr error
	for row, err := range s.Iter(ctxT(t), st) {
		if err != nil {
			iterErr = err
			break
		}
		var c int32
		if err := row.Scan(&c); err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
		if len(got) > 30 {
			t.Fatalf("Iter yielded %v and goes on: the repeated page is served again and again", got)
		}
	}
	// Page 1 (rows 0-2) came with the first state, page 2 (rows 3-5) with it again.
	if want := []int32{0, 1, 2, 3, 4, 5}; !slices.Equal(got, want) || !errors.Is(iterErr, native.ErrPagingStateRepeated) {
		t.Fatalf("Iter gave %v then %v, want %v then ErrPagingStateRepeated", got, iterErr, want)
	}

	first, err := s.Execute(ctxT(t), st)
	if err != nil {
		t.Fatal(err)
	}
	second, err := first.NextPage(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if !second.HasMorePages() || !bytes.Equal(second.PagingState(), first.PagingState()) {
		t.Fatalf("second page: HasMorePages %v, state %x, want the first page's %x", second.HasMorePages(), second.PagingState(), first.PagingState())
	}
	if _, err := second.NextPage(ctxT(t)); !errors.Is(err, native.ErrPagingStateRepeated) {
		t.Errorf("NextPage after the repeated state: %v, want ErrPagingStateRepeated", err)
	}
	if _, err := second.NextPageAsync(ctxT(t)).Result(); !errors.Is(err, native.ErrPagingStateRepeated) {
		t.Errorf("NextPageAsync after the repeated state: %v, want ErrPagingStateRepeated", err)
	}
}
