package future_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/future"
)

// badRowsPage is a ROWS response whose rows cannot be decoded.
type badRowsPage struct{ fakePage }

func (badRowsPage) Rows() ([]future.Row, error) { return nil, errors.New("undecodable") }

// mapSource answers each paging state at once with a scripted Response.
type mapSource map[string]future.Response

func (m mapSource) Request(_ context.Context, ps []byte, _ time.Duration) future.Pending {
	p := &fakePending{done: make(chan struct{})}
	p.finish(m[string(ps)], nil)
	return p
}

// TestReview3DecodeErrorLosesPage: a page whose rows fail to decode is a success for the
// future (callbacks get it, its paging state is taken; rows are decoded lazily), so a resumed
// iteration used to go on from the page after it: the second All returned [1 3] and no error,
// page 2's rows silently lost. In the Python driver a decoding error fails the page, so every
// retry fails again and no row is skipped. The ResultSet now keeps the error: every later
// fetch and iteration reports it, whether or not a page follows the lost one.
func TestReview3DecodeErrorLosesPage(t *testing.T) {
	t.Run("a page follows", func(t *testing.T) { checkLostPageSticks(t, "p3") })
	t.Run("the last page", func(t *testing.T) { checkLostPageSticks(t, "") })
}

func checkLostPageSticks(t *testing.T, after string) {
	src := mapSource{
		"":   fakePage{rows: []int{1}, next: "p2"},
		"p2": badRowsPage{fakePage{rows: []int{2}, next: after}},
		"p3": fakePage{rows: []int{3}},
	}
	f := future.Start(context.Background(), src, future.Options{})
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rs.All(); err == nil {
		t.Fatal("All: no error for the undecodable page")
	}
	if rows, err := rs.All(); err == nil {
		t.Fatalf("All again = %s, nil; want the undecodable page's error again, no row skipped", render(rows))
	}
	if err := rs.FetchNextPage(); err == nil {
		t.Fatal("FetchNextPage after the undecodable page: nil, want its error")
	}
}
