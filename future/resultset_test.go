package future_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlbridge/cqlbridge/future"
	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

func pagedWithEmptyMiddle() map[string]fakePage {
	return map[string]fakePage{
		"":   {rows: []int{1, 2}, next: "p2"},
		"p2": {rows: nil, next: "p3"}, // an empty intermediate page (B5)
		"p3": {rows: []int{3}},
	}
}

func TestResultSetIterationPagesInPlace(t *testing.T) {
	src := &fakeSource{pages: pagedWithEmptyMiddle()}
	f := future.Start(context.Background(), src, future.Options{})
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	if got := render(rs.CurrentRows()); got != "[1 2]" {
		t.Fatalf("CurrentRows = %s", got)
	}
	if !rs.HasMorePages() || string(rs.PagingState()) != "p2" {
		t.Fatalf("HasMorePages/PagingState = %v/%q", rs.HasMorePages(), rs.PagingState())
	}
	// Consume one row, then "iter(rs)" again: the same cursor, rewound to the page start (B4).
	if !rs.Iter().Next() {
		t.Fatal("no first row")
	}
	var got []int
	for row, err := range rs.Seq() {
		if err != nil {
			t.Fatal(err)
		}
		v, _ := row.Get("k")
		got = append(got, v.(int))
	}
	if render2(got) != "[1 2 3]" {
		t.Fatalf("Seq after one consumed row = %v; want the current page again, then later pages skipping the empty one", got)
	}
	if n := len(rs.CurrentRows()); n != 0 || rs.CurrentRows() == nil {
		t.Fatalf("CurrentRows after exhaustion = %v; want empty, non-nil", rs.CurrentRows())
	}
	if _, ok := rs.One(); ok {
		t.Fatal("One after exhaustion returned a row")
	}
	if rs.HasMorePages() {
		t.Fatal("HasMorePages after the last page")
	}
}

func render2(v []int) string {
	rows := make([]future.Row, len(v))
	for i, x := range v {
		rows[i] = future.NewRow(fakeColumns, []any{x})
	}
	return render(rows)
}

func TestResultSetAllFromCurrentPageStart(t *testing.T) {
	src := &fakeSource{pages: pagedWithEmptyMiddle()}
	f := future.Start(context.Background(), src, future.Options{})
	rs, _ := f.Result()
	rs.Next() // consumes row 1
	all, err := rs.All()
	if err != nil {
		t.Fatal(err)
	}
	if got := render(all); got != "[1 2 3]" {
		t.Fatalf("All = %s; want the rows from the start of the current page (B6)", got)
	}
}

func TestResultSetFetchNextPageAndLiveViews(t *testing.T) {
	src := &fakeSource{pages: pagedWithEmptyMiddle()}
	f := future.Start(context.Background(), src, future.Options{})
	old, _ := f.Result()
	rs, _ := f.Result()
	if old == rs {
		t.Fatal("Result returned the same ResultSet twice; want a new one per call (A14)")
	}
	if row, ok := rs.One(); !ok || row.String() != "Row(k=1)" {
		t.Fatalf("One = %v, %v", row, ok)
	}
	if err := rs.FetchNextPage(); err != nil {
		t.Fatal(err)
	}
	if len(rs.CurrentRows()) != 0 {
		t.Fatalf("page 2 should be empty, got %s", render(rs.CurrentRows()))
	}
	// The old ResultSet keeps its rows (B2) but sees the future's paging state live (B3).
	if render(old.CurrentRows()) != "[1 2]" || string(old.PagingState()) != "p3" {
		t.Fatalf("old set: rows %s, paging state %q", render(old.CurrentRows()), old.PagingState())
	}
	if err := rs.FetchNextPage(); err != nil {
		t.Fatal(err)
	}
	if render(rs.CurrentRows()) != "[3]" {
		t.Fatalf("page 3 = %s", render(rs.CurrentRows()))
	}
	if err := rs.FetchNextPage(); err != nil { // no more pages: empties, no error (B9)
		t.Fatal(err)
	}
	if len(rs.CurrentRows()) != 0 {
		t.Fatal("FetchNextPage past the end left rows")
	}
	if got := rs.ColumnNames(); len(got) != 1 || got[0] != "k" {
		t.Fatalf("ColumnNames = %v", got)
	}
	if ty := rs.ColumnTypes(); len(ty) != 1 || ty[0].Kind != cqltype.KindInt {
		t.Fatalf("ColumnTypes = %v", ty)
	}
}

func TestResultSetFetchErrorStopsIteration(t *testing.T) {
	boom := errors.New("page 2 failed")
	src := &fakeSource{pages: map[string]fakePage{
		"":   {rows: []int{1}, next: "p2"},
		"p2": {err: boom},
	}}
	f := future.Start(context.Background(), src, future.Options{})
	rs, _ := f.Result()
	rows, err := rs.All()
	if !errors.Is(err, boom) || render(rows) != "[1]" {
		t.Fatalf("All = %s, %v; want [1] and the page 2 error", render(rows), err)
	}
}

type lwtPage struct{ fakePage }

var lwtColumns = []future.Column{{Name: "[applied]", Type: &cqltype.Type{Kind: cqltype.KindBoolean}}, {Name: "k", Type: &cqltype.Type{Kind: cqltype.KindInt}}}

func (lwtPage) Columns() []future.Column { return lwtColumns }
func (p lwtPage) Rows() ([]future.Row, error) {
	return []future.Row{future.NewRow(lwtColumns, []any{false, 5})}, nil
}

type oneResponse struct{ resp future.Response }

func (o oneResponse) Request(context.Context, []byte, time.Duration) future.Pending {
	p := &fakePending{done: make(chan struct{})}
	p.finish(o.resp, nil)
	return p
}

func TestWasApplied(t *testing.T) {
	f := future.Start(context.Background(), oneResponse{lwtPage{}}, future.Options{})
	rs, err := f.Result()
	if err != nil {
		t.Fatal(err)
	}
	applied, err := rs.WasApplied()
	if err != nil || applied {
		t.Fatalf("WasApplied = %v, %v; want false, nil", applied, err)
	}
	if v, _ := rs.CurrentRows()[0].Get("k"); v != 5 {
		t.Fatalf("previous value k = %v", v)
	}
	f2 := future.Start(context.Background(), oneResponse{fakePage{rows: []int{1}}}, future.Options{})
	rs2, _ := f2.Result()
	if _, err := rs2.WasApplied(); !errors.Is(err, future.ErrNoLWT) {
		t.Fatalf("WasApplied on a plain single-row result: %v; want ErrNoLWT", err)
	}
}
