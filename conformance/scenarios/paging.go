package scenarios

import (
	"fmt"

	"github.com/gocql/gocql"
)

// fill creates table tbl (p int, c int, v text, PRIMARY KEY (p, c)) with n rows in partition 1.
func fill(e *Env, tbl string, n int) bool {
	if e.Exec("CREATE TABLE "+tbl+" (p int, c int, v text, PRIMARY KEY (p, c))") != nil {
		return false
	}
	for c := 0; c < n; c++ {
		if e.Exec("INSERT INTO "+tbl+" (p, c, v) VALUES (?, ?, ?)", 1, c, fmt.Sprint("v", c)) != nil {
			return false
		}
	}
	return true
}

// recordIterState records what an application can observe about an Iter between scans.
func recordIterState(e *Env, step string, it *gocql.Iter) {
	e.R.Record(step+" state", nil, it.NumRows(), len(it.PageState()) > 0, it.WillSwitchPage())
}

func pagingScenarios() []Scenario {
	var out []Scenario
	for _, tc := range []struct {
		rows, pageSize int
	}{{10, 3}, {9, 3}, {5, 100}, {0, 5}, {7, 1}, {25, 10}} {
		tc := tc
		out = append(out, Scenario{Name: fmt.Sprintf("paging/auto_%d_rows_page_%d", tc.rows, tc.pageSize), Run: func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, tc.rows) {
				return
			}
			it := e.Session.Query("SELECT c, v FROM "+tbl+" WHERE p = ?", 1).PageSize(tc.pageSize).WithContext(e.Ctx).Iter()
			recordIterState(e, "before", it)
			var c int
			var v string
			for it.Scan(&c, &v) {
				e.R.Record("row", nil, c, v)
				recordIterState(e, "after row", it)
			}
			recordIterState(e, "end", it)
			e.R.Record("close", it.Close())
			e.R.Record("close again", it.Close())
		}})
	}
	out = append(out, Scenario{Name: "paging/manual_page_state", Run: func(e *Env) {
		tbl := e.Table("pg")
		if !fill(e, tbl, 10) {
			return
		}
		var state []byte
		for page := 0; page < 6; page++ {
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(4).PageState(state).WithContext(e.Ctx).Iter()
			var c int
			var rows []int
			for it.Scan(&c) {
				rows = append(rows, c)
			}
			state = it.PageState()
			e.R.Record("page", it.Close(), page, rows, it.NumRows(), len(state) > 0)
			if len(state) == 0 {
				break
			}
		}
	}})
	out = append(out, Scenario{Name: "paging/page_state_nil_disables_autopage", Run: func(e *Env) {
		tbl := e.Table("pg")
		if !fill(e, tbl, 10) {
			return
		}
		it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(4).PageState(nil).Iter()
		var c, n int
		for it.Scan(&c) {
			n++
		}
		e.R.Record("rows", it.Close(), n, it.WillSwitchPage())
	}})
	out = append(out, Scenario{Name: "paging/bind_resets_state_keeps_manual", Run: func(e *Env) {
		tbl := e.Table("pg")
		if !fill(e, tbl, 10) {
			return
		}
		first := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(4).Iter()
		var c int
		for first.Scan(&c) {
			if first.WillSwitchPage() {
				break
			}
		}
		state := first.PageState()
		e.R.Record("first close", first.Close())
		q := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(4).PageState(state).Bind(1)
		it := q.Iter()
		var rows []int
		for it.Scan(&c) {
			rows = append(rows, c)
		}
		e.R.Record("after bind", it.Close(), rows)
	}})
	out = append(out, Scenario{Name: "paging/query_page_state_unchanged_by_iteration", Run: func(e *Env) {
		tbl := e.Table("pg")
		if !fill(e, tbl, 6) {
			return
		}
		q := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(2)
		it := q.Iter()
		var c, n int
		for it.Scan(&c) {
			n++
		}
		e.R.Record("rows", it.Close(), n)
		it2 := q.Iter()
		n = 0
		for it2.Scan(&c) {
			n++
		}
		e.R.Record("second iter rows", it2.Close(), n, q.Attempts())
	}})
	out = append(out, Scenario{Name: "paging/prefetch_zero", Run: func(e *Env) {
		tbl := e.Table("pg")
		if !fill(e, tbl, 12) {
			return
		}
		it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(5).Prefetch(0).Iter()
		var c int
		var rows []int
		for it.Scan(&c) {
			rows = append(rows, c)
		}
		e.R.Record("rows", it.Close(), rows)
	}})
	out = append(out, Scenario{Name: "paging/multi_partition_token_order", Run: func(e *Env) {
		tbl := e.Table("mp")
		if e.Exec("CREATE TABLE "+tbl+" (k int PRIMARY KEY, v int)") != nil {
			return
		}
		for k := 0; k < 20; k++ {
			if e.Exec("INSERT INTO "+tbl+" (k, v) VALUES (?, ?)", k, k*k) != nil {
				return
			}
		}
		it := e.Session.Query("SELECT k, v FROM " + tbl).PageSize(6).Iter()
		var k, v int
		var keys []int
		for it.Scan(&k, &v) {
			keys = append(keys, k)
		}
		e.R.Record("keys in token order", it.Close(), keys)
	}})
	return out
}

// scanAll reads every c of an iterator with its state after each row, and closes it.
func scanAll(e *Env, it *gocql.Iter) {
	var c int
	var rows []int
	for it.Scan(&c) {
		rows = append(rows, c)
		recordIterState(e, fmt.Sprint("after ", c), it)
	}
	e.R.Record("rows", it.Close(), rows)
}

func pagingMoreScenarios() []Scenario {
	return []Scenario{
		{"paging/manual_empty_last_page", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 6) {
				return
			}
			var state []byte
			for page := 0; page < 5; page++ {
				it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(3).PageState(state).Iter()
				var c int
				var rows []int
				for it.Scan(&c) {
					rows = append(rows, c)
				}
				state = it.PageState()
				e.R.Record("page", it.Close(), page, rows, it.NumRows(), len(state) > 0, it.WillSwitchPage())
				if len(state) == 0 {
					break
				}
			}
		}},
		{"paging/limit_with_paging", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 10) {
				return
			}
			scanAll(e, e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? LIMIT 7", 1).PageSize(3).Iter())
		}},
		{"paging/limit_smaller_than_page", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 10) {
				return
			}
			scanAll(e, e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? LIMIT 2", 1).PageSize(5).Iter())
		}},
		{"paging/limit_equal_to_page", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 10) {
				return
			}
			scanAll(e, e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? LIMIT 4", 1).PageSize(4).Iter())
		}},
		{"paging/page_size_zero_single_page", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 8) {
				return
			}
			scanAll(e, e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(0).Iter())
		}},
		{"paging/prefetch_values", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 11) {
				return
			}
			for _, pf := range []float64{1, 0.5, 0.25, 0.01} {
				e.R.Record("prefetch", nil, pf)
				scanAll(e, e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(4).Prefetch(pf).Iter())
			}
		}},
		{"paging/across_partitions", func(e *Env) {
			tbl := e.Table("pgp")
			if e.Exec("CREATE TABLE "+tbl+" (p int, c int, PRIMARY KEY (p, c))") != nil {
				return
			}
			for p := 0; p < 5; p++ {
				for c := 0; c < 4; c++ {
					if e.Exec("INSERT INTO "+tbl+" (p, c) VALUES (?, ?)", p, c) != nil {
						return
					}
				}
			}
			it := e.Session.Query("SELECT p, c FROM " + tbl).PageSize(3).Iter()
			var p, c int
			var got []string
			for it.Scan(&p, &c) {
				got = append(got, fmt.Sprintf("%d/%d", p, c))
				recordIterState(e, "after "+got[len(got)-1], it)
			}
			e.R.Record("rows", it.Close(), got)
			it = e.Session.Query("SELECT p, c FROM " + tbl + " WHERE p IN (3, 1, 4)").PageSize(5).Iter()
			got = nil
			for it.Scan(&p, &c) {
				got = append(got, fmt.Sprintf("%d/%d", p, c))
			}
			e.R.Record("in rows", it.Close(), got)
		}},
		{"paging/session_set_page_size", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 5) {
				return
			}
			s, err := e.Cluster().CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			before := s.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1)
			s.SetPageSize(2)
			after := s.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1)
			b := before.Iter()
			e.R.Record("query made before SetPageSize", nil, b.NumRows())
			e.R.Record("close", b.Close())
			a := after.Iter()
			e.R.Record("query made after SetPageSize", nil, a.NumRows())
			scanAll(e, a)
		}},
		{"paging/cluster_page_size", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 5) {
				return
			}
			c := e.Cluster()
			c.PageSize = 3
			s, err := c.CreateSession()
			if err != nil {
				e.R.Record("create session", err)
				return
			}
			defer s.Close()
			scanAll(e, s.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).Iter())
		}},
		{"paging/slicemap_and_mapscan_across_pages", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 7) {
				return
			}
			rows, err := e.Session.Query("SELECT c, v FROM "+tbl+" WHERE p = ?", 1).PageSize(2).Iter().SliceMap()
			e.R.Record("slicemap", err, rows)
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(3).Iter()
			for {
				m := map[string]any{}
				if !it.MapScan(m) {
					break
				}
				e.R.Record("mapscan", nil, m, it.NumRows())
			}
			e.R.Record("close", it.Close())
		}},
		{"paging/scanner_across_pages", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 7) {
				return
			}
			it := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ?", 1).PageSize(3).Iter()
			sc := it.Scanner()
			var c int
			for sc.Next() {
				e.R.Record("row", sc.Scan(&c), c, it.NumRows())
			}
			e.R.Record("err", sc.Err())
		}},
		{"paging/manual_with_prepared_values", func(e *Env) {
			tbl := e.Table("pg")
			if !fill(e, tbl, 9) {
				return
			}
			q := e.Session.Query("SELECT c FROM "+tbl+" WHERE p = ? AND c >= ?", 1, 2).PageSize(3)
			var state []byte
			for page := 0; page < 5; page++ {
				it := q.PageState(state).Iter()
				var c int
				var rows []int
				for it.Scan(&c) {
					rows = append(rows, c)
				}
				state = it.PageState()
				e.R.Record("page", it.Close(), page, rows, len(state) > 0)
				if len(state) == 0 {
					break
				}
			}
			e.R.Record("query attempts", nil, q.Attempts())
		}},
	}
}
