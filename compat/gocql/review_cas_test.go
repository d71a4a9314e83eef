package gocql_test

import (
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

const reviewLWT = "CREATE TABLE KS.review_lwt (p int, c int, v text, w int, PRIMARY KEY (p, c))"

const reviewTypes = "CREATE TABLE KS.review_types (p int, c int, tp tuple<int, text>, l list<int>, m map<text, int>, b blob, vi varint, d decimal, PRIMARY KEY (p, c))"

// TestReviewMapScanSliceMapScanner compares the map helpers and the Scanner across pages,
// with tuple and collection columns, errors and empty results.
func TestReviewMapScanSliceMapScanner(t *testing.T) {
	p := newDiffPair(t, reviewTypes)
	for i := 1; i <= 5; i++ {
		stmt := "INSERT INTO review_types (p, c, tp, l, m, b, vi, d) VALUES (1, ?, (?, 'x'), [1, 2], {'k': 3}, 0x0102, 12345678901234567890, 1.5)"
		if i%2 == 0 {
			stmt = "INSERT INTO review_types (p, c, tp) VALUES (1, ?, (?, null))"
		}
		if err := p.legacy.Query(stmt, i, i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	const sel = "SELECT * FROM review_types WHERE p = 1"
	var lt, ct trace
	{
		tr := &lt
		s := p.legacy
		rows, err := s.Query(sel).PageSize(2).Iter().SliceMap()
		tr.add("slicemap", len(rows), err)
		for _, r := range rows {
			tr.add("row", r)
		}
		it := s.Query(sel).PageSize(2).Iter()
		m := map[string]interface{}{}
		tr.add("mapscan", it.MapScan(m), m)
		var c int
		m = map[string]interface{}{"c": &c}
		tr.add("mapscan ptr", it.MapScan(m), m, c)
		rows, err = it.SliceMap()
		tr.add("slicemap rest", len(rows), err, it.NumRows())
		m = map[string]interface{}{}
		tr.add("mapscan end", it.MapScan(m), m, it.Close())
		rows, err = s.Query("SELECT * FROM review_types WHERE p = 2").Iter().SliceMap()
		tr.add("slicemap empty", rows == nil, len(rows), err)
		rows, err = s.Query("SELECT nope FROM review_types").Iter().SliceMap()
		tr.add("slicemap error", rows == nil, len(rows), err)
		m = map[string]interface{}{}
		tr.add("query mapscan none", s.Query("SELECT * FROM review_types WHERE p = 2").MapScan(m), m)
		tr.add("query mapscan", s.Query(sel).MapScan(m), m)
		rd, err := s.Query(sel).Iter().RowData()
		tr.add("rowdata", rd.Columns, len(rd.Values), err)

		sc := s.Query("SELECT c, tp FROM review_types WHERE p = 1").PageSize(2).Iter().Scanner()
		var a, x int
		var y string
		tr.add("scan before next", sc.Scan(&a, &x, &y))
		for sc.Next() {
			tr.add("scanner wrong arity", sc.Scan(&a))
			tr.add("scanner", sc.Scan(&a, &x, &y), a, x, y)
			tr.add("scanner again", sc.Scan(&a, &x, &y))
		}
		tr.add("scanner err", sc.Err())
		sc = s.Query("SELECT c FROM review_types WHERE p = 1").Iter().Scanner()
		for sc.Next() {
			tr.add("scanner bad type", sc.Scan(&y))
		}
		tr.add("scanner err", sc.Err())
		it = s.Query("SELECT c FROM review_types WHERE p = 1").Iter()
		tr.add("bad type", it.Scan(&y), it.Scan(&c), it.Close())
	}
	{
		tr := &ct
		s := p.compat
		rows, err := s.Query(sel).PageSize(2).Iter().SliceMap()
		tr.add("slicemap", len(rows), err)
		for _, r := range rows {
			tr.add("row", r)
		}
		it := s.Query(sel).PageSize(2).Iter()
		m := map[string]interface{}{}
		tr.add("mapscan", it.MapScan(m), m)
		var c int
		m = map[string]interface{}{"c": &c}
		tr.add("mapscan ptr", it.MapScan(m), m, c)
		rows, err = it.SliceMap()
		tr.add("slicemap rest", len(rows), err, it.NumRows())
		m = map[string]interface{}{}
		tr.add("mapscan end", it.MapScan(m), m, it.Close())
		rows, err = s.Query("SELECT * FROM review_types WHERE p = 2").Iter().SliceMap()
		tr.add("slicemap empty", rows == nil, len(rows), err)
		rows, err = s.Query("SELECT nope FROM review_types").Iter().SliceMap()
		tr.add("slicemap error", rows == nil, len(rows), err)
		m = map[string]interface{}{}
		tr.add("query mapscan none", s.Query("SELECT * FROM review_types WHERE p = 2").MapScan(m), m)
		tr.add("query mapscan", s.Query(sel).MapScan(m), m)
		rd, err := s.Query(sel).Iter().RowData()
		tr.add("rowdata", rd.Columns, len(rd.Values), err)

		sc := s.Query("SELECT c, tp FROM review_types WHERE p = 1").PageSize(2).Iter().Scanner()
		var a, x int
		var y string
		tr.add("scan before next", sc.Scan(&a, &x, &y))
		for sc.Next() {
			tr.add("scanner wrong arity", sc.Scan(&a))
			tr.add("scanner", sc.Scan(&a, &x, &y), a, x, y)
			tr.add("scanner again", sc.Scan(&a, &x, &y))
		}
		tr.add("scanner err", sc.Err())
		sc = s.Query("SELECT c FROM review_types WHERE p = 1").Iter().Scanner()
		for sc.Next() {
			tr.add("scanner bad type", sc.Scan(&y))
		}
		tr.add("scanner err", sc.Err())
		it = s.Query("SELECT c FROM review_types WHERE p = 1").Iter()
		tr.add("bad type", it.Scan(&y), it.Scan(&c), it.Close())
	}
	sameTrace(t, &lt, &ct)
}

// TestReviewCAS compares ScanCAS, MapScanCAS, ExecuteBatchCAS and MapExecuteBatchCAS, applied
// and not, with the iterator they return.
func TestReviewCAS(t *testing.T) {
	p := newDiffPair(t, reviewLWT)
	var lt, ct trace
	// The two drivers write the same rows in turn: each starts from an empty table.
	truncate := func() {
		if err := p.legacy.Query("TRUNCATE review_lwt").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	{
		tr := &lt
		truncate()
		s := p.legacy
		var c, w int
		var v string
		applied, err := s.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (1, 1, 'a', 1) IF NOT EXISTS").ScanCAS(&c, &v)
		tr.add("insert", applied, err)
		applied, err = s.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (1, 1, 'a', 1) IF NOT EXISTS").ScanCAS(&c, &v)
		tr.add("insert again wrong dest", applied, err, c, v)
		var pp int
		applied, err = s.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (1, 1, 'a', 1) IF NOT EXISTS").ScanCAS(&pp, &c, &v, &w)
		tr.add("insert again", applied, err, pp, c, v, w)
		applied, err = s.Query("UPDATE review_lwt SET v = 'b' WHERE p = 1 AND c = 1 IF v = ?", "zz").ScanCAS(&v)
		tr.add("update not applied", applied, err, v)
		applied, err = s.Query("UPDATE review_lwt SET v = 'b' WHERE p = 1 AND c = 1 IF v = ?", "a").SerialConsistency(gocqlv1.LocalSerial).ScanCAS(&v)
		tr.add("update applied", applied, err, v)
		m := map[string]interface{}{}
		applied, err = s.Query("UPDATE review_lwt SET v = 'c' WHERE p = 1 AND c = 1 IF v = 'a' AND w = 1").MapScanCAS(m)
		tr.add("mapscancas", applied, err, m)
		m = map[string]interface{}{}
		applied, err = s.Query("DELETE FROM review_lwt WHERE p = 1 AND c = 9 IF EXISTS").MapScanCAS(m)
		tr.add("mapscancas delete missing", applied, err, m)
		applied, err = s.Query("UPDATE review_lwt SET v = 'c' WHERE p = 1 AND c = 1 IF v = 'a'").Consistency(gocqlv1.Consistency(gocqlv1.Serial)).ScanCAS(&v)
		tr.add("cas bad consistency", applied, err)

		b := s.NewBatch(gocqlv1.LoggedBatch)
		b.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (2, 1, 'a', 1) IF NOT EXISTS")
		b.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (2, ?, 'a', 1) IF NOT EXISTS", 2)
		tr.add("batch", b.Size(), len(b.Entries), b.Entries[1].Args, b.Entries[1].Idempotent, b.IsIdempotent())
		applied, it, err := s.ExecuteBatchCAS(b)
		tr.add("batch cas", applied, it == nil, err)
		if it != nil {
			legacyIterState(tr, "batch iter", it)
			tr.add("batch iter close", it.Close())
		}
		var ap bool
		applied, it, err = s.ExecuteBatchCAS(b, &pp, &c, &v, &w)
		tr.add("batch cas again", applied, it == nil, err, pp, c, v, w)
		if it != nil {
			legacyIterState(tr, "batch iter", it)
			tr.add("next row", it.Scan(&ap, &pp, &c, &v, &w), ap, pp, c, v, w)
			tr.add("end", it.Scan(&ap, &pp, &c, &v, &w), it.Close())
		}
		m = map[string]interface{}{}
		applied, it, err = s.MapExecuteBatchCAS(b, m)
		tr.add("map batch cas", applied, it == nil, err, m)
		if it != nil {
			m = map[string]interface{}{}
			tr.add("next row", it.MapScan(m), m, it.Close())
		}
		bad := s.NewBatch(gocqlv1.LoggedBatch)
		bad.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (3, 1, 'a', 1) IF NOT EXISTS")
		bad.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (4, 1, 'a', 1) IF NOT EXISTS")
		applied, it, err = s.ExecuteBatchCAS(bad)
		tr.add("cross-partition cas", applied, it == nil, err)
	}
	{
		tr := &ct
		truncate()
		s := p.compat
		var c, w int
		var v string
		applied, err := s.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (1, 1, 'a', 1) IF NOT EXISTS").ScanCAS(&c, &v)
		tr.add("insert", applied, err)
		applied, err = s.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (1, 1, 'a', 1) IF NOT EXISTS").ScanCAS(&c, &v)
		tr.add("insert again wrong dest", applied, err, c, v)
		var pp int
		applied, err = s.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (1, 1, 'a', 1) IF NOT EXISTS").ScanCAS(&pp, &c, &v, &w)
		tr.add("insert again", applied, err, pp, c, v, w)
		applied, err = s.Query("UPDATE review_lwt SET v = 'b' WHERE p = 1 AND c = 1 IF v = ?", "zz").ScanCAS(&v)
		tr.add("update not applied", applied, err, v)
		applied, err = s.Query("UPDATE review_lwt SET v = 'b' WHERE p = 1 AND c = 1 IF v = ?", "a").SerialConsistency(gocql.LocalSerial).ScanCAS(&v)
		tr.add("update applied", applied, err, v)
		m := map[string]interface{}{}
		applied, err = s.Query("UPDATE review_lwt SET v = 'c' WHERE p = 1 AND c = 1 IF v = 'a' AND w = 1").MapScanCAS(m)
		tr.add("mapscancas", applied, err, m)
		m = map[string]interface{}{}
		applied, err = s.Query("DELETE FROM review_lwt WHERE p = 1 AND c = 9 IF EXISTS").MapScanCAS(m)
		tr.add("mapscancas delete missing", applied, err, m)
		applied, err = s.Query("UPDATE review_lwt SET v = 'c' WHERE p = 1 AND c = 1 IF v = 'a'").Consistency(gocql.Consistency(gocql.Serial)).ScanCAS(&v)
		tr.add("cas bad consistency", applied, err)

		b := s.NewBatch(gocql.LoggedBatch)
		b.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (2, 1, 'a', 1) IF NOT EXISTS")
		b.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (2, ?, 'a', 1) IF NOT EXISTS", 2)
		tr.add("batch", b.Size(), len(b.Entries), b.Entries[1].Args, b.Entries[1].Idempotent, b.IsIdempotent())
		applied, it, err := s.ExecuteBatchCAS(b)
		tr.add("batch cas", applied, it == nil, err)
		if it != nil {
			compatIterState(tr, "batch iter", it)
			tr.add("batch iter close", it.Close())
		}
		var ap bool
		applied, it, err = s.ExecuteBatchCAS(b, &pp, &c, &v, &w)
		tr.add("batch cas again", applied, it == nil, err, pp, c, v, w)
		if it != nil {
			compatIterState(tr, "batch iter", it)
			tr.add("next row", it.Scan(&ap, &pp, &c, &v, &w), ap, pp, c, v, w)
			tr.add("end", it.Scan(&ap, &pp, &c, &v, &w), it.Close())
		}
		m = map[string]interface{}{}
		applied, it, err = s.MapExecuteBatchCAS(b, m)
		tr.add("map batch cas", applied, it == nil, err, m)
		if it != nil {
			m = map[string]interface{}{}
			tr.add("next row", it.MapScan(m), m, it.Close())
		}
		bad := s.NewBatch(gocql.LoggedBatch)
		bad.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (3, 1, 'a', 1) IF NOT EXISTS")
		bad.Query("INSERT INTO review_lwt (p, c, v, w) VALUES (4, 1, 'a', 1) IF NOT EXISTS")
		applied, it, err = s.ExecuteBatchCAS(bad)
		tr.add("cross-partition cas", applied, it == nil, err)
	}
	sameTrace(t, &lt, &ct)
}
