package gocql_test

import (
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

const reviewKV = "CREATE TABLE KS.review_kv (p int, c int, v text, PRIMARY KEY (p, c))"

func fillKV(t *testing.T, p *diffPair, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if err := p.legacy.Query("INSERT INTO review_kv (p, c, v) VALUES (?, ?, ?)", 1, i, string(rune('a'+i-1))).Exec(); err != nil {
			t.Fatal(err)
		}
	}
}

func legacyIterState(tr *trace, label string, it *gocqlv1.Iter) {
	tr.add(label, it.NumRows(), it.PageState(), it.WillSwitchPage(), len(it.Columns()), it.Columns() == nil,
		it.Warnings(), it.GetCustomPayload(), it.Host() == nil)
}

func compatIterState(tr *trace, label string, it *gocql.Iter) {
	tr.add(label, it.NumRows(), it.PageState(), it.WillSwitchPage(), len(it.Columns()), it.Columns() == nil,
		it.Warnings(), it.GetCustomPayload(), it.Host() == nil)
}

// TestReviewIterStateAcrossResultKinds compares the iterator's getters on rows (paged),
// VOID, schema-change and error results, before and after Close.
func TestReviewIterStateAcrossResultKinds(t *testing.T) {
	p := newDiffPair(t, reviewKV)
	fillKV(t, p, 5)
	const sel = "SELECT c, v FROM review_kv WHERE p = 1"
	stmts := []string{
		"INSERT INTO review_kv (p, c, v) VALUES (2, 1, 'x')",
		"CREATE TABLE IF NOT EXISTS review_kv (p int, c int, v text, PRIMARY KEY (p, c))",
		"SELECT nope FROM review_kv",
		"SELECT c FROM review_kv WHERE p = 42",
		"SELECT count(*) FROM review_kv",
		"/* not prepared */ SELECT c FROM review_kv WHERE p = 1",
	}

	var lt, ct trace
	{
		tr := &lt
		it := p.legacy.Query(sel).PageSize(2).Iter()
		legacyIterState(tr, "start", it)
		var c int
		var v string
		for i := 0; i < 6; i++ {
			ok := it.Scan(&c, &v)
			tr.add("scan", ok, c, v)
			legacyIterState(tr, "after scan", it)
		}
		tr.add("close", it.Close())
		legacyIterState(tr, "after close", it)
		for _, stmt := range stmts {
			it := p.legacy.Query(stmt).Iter()
			legacyIterState(tr, stmt, it)
			tr.add("scan none", it.Scan())
			tr.add("close", it.Close())
			legacyIterState(tr, "after close", it)
		}
		it = p.legacy.Query(sel).PageSize(0).Iter()
		legacyIterState(tr, "no paging", it)
		it.Close()
		it = p.legacy.Query(sel).NoSkipMetadata().Iter()
		legacyIterState(tr, "no skip metadata", it)
		it.Close()
		it = p.legacy.Query(sel).PageSize(2).Iter()
		ps := it.PageState()
		it.Close()
		it = p.legacy.Query(sel).PageSize(2).PageState(ps).Iter()
		legacyIterState(tr, "resumed", it)
		for it.Scan(&c, &v) {
			tr.add("row", c, v)
		}
		legacyIterState(tr, "resumed end", it)
		tr.add("close", it.Close())
	}
	{
		tr := &ct
		it := p.compat.Query(sel).PageSize(2).Iter()
		compatIterState(tr, "start", it)
		var c int
		var v string
		for i := 0; i < 6; i++ {
			ok := it.Scan(&c, &v)
			tr.add("scan", ok, c, v)
			compatIterState(tr, "after scan", it)
		}
		tr.add("close", it.Close())
		compatIterState(tr, "after close", it)
		for _, stmt := range stmts {
			it := p.compat.Query(stmt).Iter()
			compatIterState(tr, stmt, it)
			tr.add("scan none", it.Scan())
			tr.add("close", it.Close())
			compatIterState(tr, "after close", it)
		}
		it = p.compat.Query(sel).PageSize(0).Iter()
		compatIterState(tr, "no paging", it)
		it.Close()
		it = p.compat.Query(sel).NoSkipMetadata().Iter()
		compatIterState(tr, "no skip metadata", it)
		it.Close()
		it = p.compat.Query(sel).PageSize(2).Iter()
		ps := it.PageState()
		it.Close()
		it = p.compat.Query(sel).PageSize(2).PageState(ps).Iter()
		compatIterState(tr, "resumed", it)
		for it.Scan(&c, &v) {
			tr.add("row", c, v)
		}
		compatIterState(tr, "resumed end", it)
		tr.add("close", it.Close())
	}
	sameTrace(t, &lt, &ct)
}
