package engine

// groupRun is one GROUP BY group among the rows read: rows[start:end], the nth group answered
// from its partition.
type groupRun struct {
	start, end int
	nth        int64
}

// groupRuns splits rows (in their read order) into the runs that share their GROUP BY key,
// keeping at most PER PARTITION LIMIT groups of each partition, as Cassandra counts them for
// a GROUP BY. carry, when the rows resume a partition whose key it is, is how many of that
// partition's groups earlier pages answered.
func (s *selectPlan) groupRuns(ctx *evalCtx, rows []outRow, carryKey []byte, carry int64) ([]groupRun, error) {
	ppl, hasPPL, err := evalLimit(ctx, s.ppl)
	if err != nil {
		return nil, err
	}
	var out []groupRun
	var n int64
	for start := 0; start < len(rows); {
		end := start + 1
		for end < len(rows) && s.sameGroup(rows[start], rows[end]) {
			end++
		}
		switch {
		case start > 0 && string(rows[start-1].p.key) == string(rows[start].p.key):
			n++
		case carryKey != nil && string(carryKey) == string(rows[start].p.key):
			n = carry + 1
		default:
			n = 1
		}
		if !hasPPL || n <= ppl {
			out = append(out, groupRun{start, end, n})
		}
		start = end
	}
	return out, nil
}

// groupPage answers one page of a GROUP BY query, whose page size counts groups as on
// Cassandra: rows are the rows read after the paging state (if any), returned the groups that
// earlier pages answered, carry those of partition carryKey (see groupRuns). A full page
// carries a paging state (the next page may be empty) unless the LIMIT, which also counts
// groups, is reached, or the page ends a query on partition keys with the last key's last
// group under its PER PARTITION LIMIT; the state points at the last row of the page's last
// group, from which the next page reads on.
func (s *selectPlan) groupPage(t *table, rows []outRow, ctx *evalCtx, multiKeys bool, pageSize, returned int64, carryKey []byte, carry int64, finalKey []byte) (*Result, error) {
	res, err := s.emptyOrAggregate(t, nil, ctx, multiKeys)
	if err != nil {
		return nil, err
	}
	res.Rows = nil
	limit, hasLimit, err := evalLimit(ctx, s.limit)
	if err != nil {
		return nil, err
	}
	want := pageSize
	if hasLimit && limit-returned < want {
		want = limit - returned
	}
	runs, err := s.groupRuns(ctx, rows, carryKey, carry)
	if err != nil {
		return nil, err
	}
	var last groupRun
	for _, g := range runs {
		if int64(len(res.Rows)) >= want {
			break
		}
		vals, err := s.aggregateRow(ctx, t, rows[g.start:g.end])
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, vals)
		last = g
	}
	n := int64(len(res.Rows))
	if n < pageSize || n == 0 || (hasLimit && returned+n >= limit) {
		return res, nil
	}
	lastRow := rows[last.end-1]
	if ppl, hasPPL, _ := evalLimit(ctx, s.ppl); hasPPL && last.nth >= ppl && finalKey != nil && string(lastRow.p.key) == string(finalKey) {
		return res, nil // the last partition is done, which its reader knows
	}
	st := &pagingState{key: lastRow.p.key, returned: returned + n, ppCount: last.nth}
	if lastRow.r != nil {
		st.ck = lastRow.r.ck
	} else {
		st.static = true
	}
	res.PagingState = st.encode()
	return res, nil
}

// evalLimit evaluates a LIMIT or PER PARTITION LIMIT value, as Cassandra checks them: false
// when there is none or it is unset; null or not positive fails.
func evalLimit(ctx *evalCtx, b *boundTerm) (int64, bool, error) {
	if b == nil {
		return 0, false, nil
	}
	r, err := b.eval(ctx)
	if err != nil || r.unset {
		return 0, false, err
	}
	if r.b == nil {
		return 0, false, invalid("Invalid null value of limit")
	}
	v, ok, err := evalInt32(ctx, b)
	if err != nil || !ok {
		return 0, false, err
	}
	if v <= 0 {
		return 0, false, invalid("LIMIT must be strictly positive")
	}
	return v, true, nil
}
