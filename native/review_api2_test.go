package native_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/native"
)

// The accessors of a nil or zero *Prepared (a Prepare whose error was not checked, or a
// Prepared{} literal) report an empty statement, as Bind accepts one, instead of panicking
// on its missing metadata.
func TestReviewAPI2ZeroPreparedAccessors(t *testing.T) {
	var nilPrepared *native.Prepared
	for name, p := range map[string]*native.Prepared{"nil": nilPrepared, "zero": {}} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s *Prepared: accessor panicked: %v", name, r)
				}
			}()
			if p.ID() != nil || p.Params() != nil || p.Columns() != nil || p.PartitionKeyIndexes() != nil {
				t.Errorf("%s *Prepared: metadata %x %v %v %v, want none", name, p.ID(), p.Params(), p.Columns(), p.PartitionKeyIndexes())
			}
			if p.CQL() != "" || p.Keyspace() != "" || p.Evicted() {
				t.Errorf("%s *Prepared: CQL %q, keyspace %q, evicted %v, want empty", name, p.CQL(), p.Keyspace(), p.Evicted())
			}
		}()
	}
}

// The next page of a prepared statement carries the values its first page was bound with:
// when, meanwhile, its table was dropped and created again with other column types and
// another request re-prepared the statement (so that the Prepared now describes the new
// types), the next page must not send those values under the new statement, where they would
// be read with the new types (an int read as a 4-byte text: another partition's rows).
func TestReviewAPI2NextPageAfterBindTypesChanged(t *testing.T) {
	s, _ := connect(t)
	mustExec(t, s, "CREATE TABLE np_types (k int, c int, PRIMARY KEY (k, c))")
	for c := range 6 {
		mustExec(t, s, "INSERT INTO np_types (k, c) VALUES (1, ?)", int32(c))
	}
	sel := mustPrepare(t, s, "SELECT c FROM np_types WHERE k = ?")
	page, err := s.Execute(ctxT(t), sel.Bind(int32(1)).WithPageSize(2))
	if err != nil {
		t.Fatal(err)
	}
	if !page.HasMorePages() {
		t.Fatal("one page only")
	}
	mustExec(t, s, "DROP TABLE np_types")
	mustExec(t, s, "CREATE TABLE np_types (k text, c int, PRIMARY KEY (k, c))")
	// The int 1 encoded (00 00 00 01) is also a valid text: the partition the old values
	// would silently read.
	for c := range 6 {
		mustExec(t, s, "INSERT INTO np_types (k, c) VALUES (?, ?)", "\x00\x00\x00\x01", int32(100+c))
	}
	// Another execution gets UNPREPARED and re-prepares: sel now takes a text.
	if _, err := s.Execute(ctxT(t), sel.Bind(int32(1))); !errors.Is(err, native.ErrBindTypesChanged) {
		t.Fatalf("execution with the old types: %v, want ErrBindTypesChanged", err)
	}
	next, err := page.NextPage(ctxT(t))
	if err == nil {
		var got []int32
		for _, row := range next.Rows() {
			v, _ := native.Get[int32](row, 0)
			got = append(got, v)
		}
		t.Fatalf("next page: rows %v, no error: the values bound for an int were sent for a text", got)
	}
	if !errors.Is(err, native.ErrBindTypesChanged) {
		t.Errorf("next page: %v, want ErrBindTypesChanged", err)
	}
	if _, err := page.NextPageAsync(ctxT(t)).Result(); !errors.Is(err, native.ErrBindTypesChanged) {
		t.Errorf("next page, asynchronously: %v, want ErrBindTypesChanged", err)
	}
}

// A value name the protocol cannot carry (a [string] of more than 65535 bytes) is a
// BindError, detected before anything is sent, instead of a length truncated to 16 bits that
// misframes the request.
func TestReviewAPI2NamedValueNameTooLong(t *testing.T) {
	s := simSession(t, cqlsim.Options{})
	name := strings.Repeat("k", 1<<16+4)
	_, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local WHERE key = :k", native.Named(name, "local")))
	var be *native.BindError
	if !errors.As(err, &be) || be.Name != name || len(err.Error()) > 1000 {
		t.Fatalf("a %d-byte value name: %.200v, want a BindError naming it", len(name), err)
	}
	// The session still works.
	if _, err := s.Execute(ctxT(t), native.Query("SELECT key FROM system.local WHERE key = :k", native.Named("k", "local"))); err != nil {
		t.Fatal(err)
	}
}

// An empty paging state (a nil one stored and read back) starts from the first page, as a nil
// one does and as gocql's PageState does: it is not sent as a paging state of 0 bytes, which a
// server refuses as invalid.
func TestReviewAPI2EmptyPagingStateStartsOver(t *testing.T) {
	st := native.Query("SELECT key FROM system.local").WithPagingState([]byte{})
	if st.PagingState() != nil {
		t.Fatalf("WithPagingState([]byte{}).PagingState() = %#v, want nil (first page)", st.PagingState())
	}
	s := simSession(t, cqlsim.Options{})
	res, err := s.Execute(ctxT(t), st)
	if err != nil || res.Len() != 1 {
		t.Fatalf("empty paging state: %v, %v", res, err)
	}
}

// A Scan with more or fewer destinations than the row has columns is a ScanError matching
// ErrArgCount, as a BindError with the wrong number of values is.
func TestReviewAPI2ScanCountMatchesErrArgCount(t *testing.T) {
	s, _ := connect(t)
	res, err := s.Execute(context.Background(), native.Query("SELECT key, release_version FROM system.local"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range res.Rows() {
		n++
		var key string
		err := row.Scan(&key)
		var se *native.ScanError
		if !errors.As(err, &se) || !errors.Is(err, native.ErrArgCount) {
			t.Errorf("Scan of 2 columns into 1 destination: %v (%T), want a ScanError matching ErrArgCount", err, err)
		}
	}
	if n != 1 {
		t.Fatalf("system.local gave %d rows, want 1", n)
	}
}
