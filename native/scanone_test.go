package native_test

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
	"github.com/cqlbridge/cqlbridge/native"
)

// emptyFirstPage returns a frame rewriter that takes the rows out of the first page of rows
// (RESULT Rows of one int column, with metadata and a paging state) the server sends, leaving
// its paging state: a page without rows that more pages follow, as Cassandra answers a query
// whose first page of reads filtered every row out.
func emptyFirstPage() *cqltest.FrameRewriter {
	var done atomic.Bool
	return &cqltest.FrameRewriter{Rewrite: func(frame []byte) []byte {
		const header = 9
		if len(frame) < header+12 || frame[1] != 0 || frame[4] != 0x08 || binary.BigEndian.Uint32(frame[header:]) != 2 {
			return frame // not an uncompressed, unannotated RESULT Rows frame
		}
		body := frame[header:]
		flags := binary.BigEndian.Uint32(body[4:])
		cols := binary.BigEndian.Uint32(body[8:])
		if flags != 0x3 || cols != 1 || done.Load() { // global table spec and a paging state
			return frame
		}
		pos := 12
		pos += 4 + int(binary.BigEndian.Uint32(body[pos:])) // paging state
		for range 3 {                                       // keyspace, table, column name
			pos += 2 + int(binary.BigEndian.Uint16(body[pos:]))
		}
		if binary.BigEndian.Uint16(body[pos:]) != 0x0009 { // int
			return frame
		}
		pos += 2
		if !done.CompareAndSwap(false, true) {
			return frame
		}
		out := append([]byte(nil), frame[:header+pos]...)
		out = binary.BigEndian.AppendUint32(out, 0) // no row
		binary.BigEndian.PutUint32(out[5:], uint32(len(out)-header))
		return out
	}}
}

// ScanOne on a page without rows that more pages follow fails with an error that does not
// match ErrNotFound: it reported ErrNotFound, "no rows in result", for a query whose rows
// were on the next page.
func TestScanOneEmptyPageWithMorePages(t *testing.T) {
	s := simSession(t, cqlsim.Options{}, func(c *native.Config) {
		c.Dialer = emptyFirstPage()
		c.Compression = ""
		c.ProtocolVersion = 4
	})
	ctx := ctxT(t)
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
		"INSERT INTO ks.t (k, v) VALUES (1, 10)",
		"INSERT INTO ks.t (k, v) VALUES (2, 20)",
	} {
		if _, err := s.Execute(ctx, native.Query(q)); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	res, err := s.Execute(ctx, native.Query("SELECT v FROM ks.t").WithPageSize(1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Len() != 0 || !res.HasMorePages() {
		t.Fatalf("the first page has %d rows, more pages: %t; want an empty page that more pages follow", res.Len(), res.HasMorePages())
	}
	v, err := native.ScanOne[int](res)
	if err == nil || errors.Is(err, native.ErrNotFound) {
		t.Errorf("ScanOne = %d, %v; want an error saying more pages follow, not ErrNotFound", v, err)
	}
	n := 0
	for _, err := range res.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 { // the rewriter took the first page's row out; the second page's remains
		t.Errorf("All read %d rows after the empty page, want 1", n)
	}
}
