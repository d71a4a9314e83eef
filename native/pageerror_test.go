package native_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cqlbridge/cqlbridge/native"
)

// When Session.Iter (or Result.All) fails to fetch a page, the error it yields is a
// *PageError holding the last page fetched, so that a caller can resume: the fetch was not
// sent (its context had ended), and NextPage on that page fetches the missing page, as the
// package doc says, where running the statement again would start over.
func TestIterPageErrorResumes(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE pe (p int, c int, PRIMARY KEY (p, c))")
	for c := range 5 {
		mustExec(t, s, "INSERT INTO pe (p, c) VALUES (1, ?)", int32(c))
	}
	stmt := native.Query("SELECT c FROM pe WHERE p = 1").WithPageSize(2)
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	var got []int32
	var iterErr error
	for row, err := range s.Iter(ctx, stmt) {
		if err != nil {
			iterErr = err
			break
		}
		var c int32
		if err := row.Scan(&c); err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
		cancel() // the rows of the first page are still yielded; the next fetch is not sent
	}
	if len(got) != 2 || !errors.Is(iterErr, context.Canceled) || !errors.Is(iterErr, native.ErrNotSent) {
		t.Fatalf("rows %v, error %v; want 2 rows, then an error matching context.Canceled and ErrNotSent", got, iterErr)
	}
	var pe *native.PageError
	if !errors.As(iterErr, &pe) || pe.Last == nil {
		t.Fatalf("%v (%T): want a *PageError with the last page", iterErr, iterErr)
	}
	if pe.Error() != pe.Err.Error() {
		t.Errorf("PageError says %q, its cause %q", pe.Error(), pe.Err.Error())
	}
	if n := len(pe.Last.Columns()); n != 1 || !pe.Last.HasMorePages() {
		t.Fatalf("the last page has %d columns, more pages %v", n, pe.Last.HasMorePages())
	}
	next, err := pe.Last.NextPage(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for row, err := range next.All(ctxT(t)) {
		if err != nil {
			t.Fatal(err)
		}
		var c int32
		if err := row.Scan(&c); err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if len(got) != 5 {
		t.Fatalf("rows %v, want 0 to 4", got)
	}
	for i, c := range got {
		if c != int32(i) {
			t.Errorf("rows %v, want 0 to 4 in order", got)
			break
		}
	}
}
