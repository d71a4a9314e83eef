package engine

import (
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// casApply checks the conditions of mutations (all on one partition) and applies them all when
// every condition holds (e.mu held). The result has Cassandra's LWT shape.
func (e *Engine) casApply(muts []*mutation, isBatch bool) (*Result, error) {
	t := muts[0].m.t
	now := muts[0].ctx.now.Unix()
	applied := true
	wildcard := false
	var condCols []*column
	seenCol := map[*column]bool{}
	var targets [][][]byte
	addTarget := func(ck [][]byte) {
		for _, x := range targets {
			if t.compareClustering(x, ck) == 0 {
				return
			}
		}
		targets = append(targets, ck)
	}
	p := t.getPartition(muts[0].pks[0], false)
	if err := checkConditionMix(t, muts); err != nil {
		return nil, err
	}
	for _, mu := range muts {
		m := mu.m
		if !m.conditional() {
			continue
		}
		if m.ifNotExists || m.ifExists {
			wildcard = true
		}
		// Cassandra lists a statement's conditions on regular columns before those on
		// static columns
		for _, static := range []bool{false, true} {
			for _, c := range m.conds {
				if !seenCol[c.col] && (c.col.kind == kindStatic) == static {
					seenCol[c.col] = true
					condCols = append(condCols, c.col)
				}
			}
		}
		ck := [][]byte{}
		if mu.cks != nil {
			ck = mu.cks[0]
		}
		addTarget(ck)
		var r *row
		if p != nil {
			r = t.getRow(p, ck, false)
		}
		exists := r != nil && rowLive(r, p, now)
		if len(t.ck) > 0 && mu.cks == nil && p != nil {
			// a statement on static columns only: IF [NOT] EXISTS applies to them
			// alone, as on Cassandra
			exists = staticLive(p, now) || (!m.staticOnly() && rowsAnyLive(p, now))
		}
		switch {
		case m.ifNotExists:
			applied = applied && !exists
		case m.ifExists:
			applied = applied && exists
		default:
			var vals [][]byte
			if p != nil {
				vals = t.rowValues(p, r, now)
				if r == nil {
					// static columns still readable without a row
					for _, c := range t.cols {
						if c.kind == kindRegular {
							vals[c.idx] = nil
						}
					}
				}
			} else {
				vals = make([][]byte, len(t.cols))
			}
			for i, c := range m.conds {
				if !condHolds(c, mu.condVals[i], vals[c.col.idx]) {
					applied = false
				}
			}
		}
	}
	appliedCol := Column{Keyspace: t.ks, Table: t.name, Name: "[applied]", Type: tBoolean.dataType()}
	if applied {
		for _, mu := range muts {
			if err := mu.check(); err != nil {
				return nil, err
			}
		}
		for _, mu := range muts {
			mu.apply(e)
		}
		return &Result{Kind: ResultRows, Columns: []Column{appliedCol}, Rows: [][][]byte{{{1}}}}, nil
	}
	// not applied: [applied]=false plus the current values of the rows read
	var cols []*column
	if wildcard {
		cols = t.cols
	} else {
		if isBatch {
			cols = append(cols, t.pk...)
			cols = append(cols, t.ck...)
		}
		for _, c := range condCols {
			dup := false
			for _, x := range cols {
				dup = dup || x == c
			}
			if !dup {
				cols = append(cols, c)
			}
		}
	}
	res := &Result{Kind: ResultRows, Columns: []Column{appliedCol}}
	for _, c := range cols {
		res.Columns = append(res.Columns, Column{Keyspace: t.ks, Table: t.name, Name: c.name, Type: c.typ.dataType()})
	}
	// What Cassandra reads to answer: the rows that a statement conditions (IF [NOT] EXISTS on
	// a row, or a condition on a regular column), or else the first live row of the partition,
	// which tells a partition with rows from one without; with the static columns. IF [NOT]
	// EXISTS reads the static columns only if a statement writes one, and the regular columns
	// only if a statement writes a row (not only static columns).
	updatesStatic, updatesRegular, rowRead := false, false, false
	for _, mu := range muts {
		m := mu.m
		updatesStatic = updatesStatic || m.updatesStatic()
		updatesRegular = updatesRegular || len(t.ck) == 0 || mu.cks != nil
		if !m.conditional() {
			continue
		}
		if (m.ifExists || m.ifNotExists) && (len(t.ck) == 0 || mu.cks != nil) {
			rowRead = true
		}
		for _, c := range m.conds {
			rowRead = rowRead || c.col.kind != kindStatic
		}
	}
	if p != nil {
		var rows []*row
		if rowRead {
			sortBytesRows(t, targets)
			for _, ck := range targets {
				if len(ck) == 0 && len(t.ck) > 0 {
					continue // the static columns of a statement on them alone
				}
				if r := t.getRow(p, ck, false); r != nil && rowLive(r, p, now) {
					rows = append(rows, r)
				}
			}
		} else {
			for _, r := range p.rows {
				// a row is live in the read by its primary key or a regular column read
				if (updatesRegular && rowLive(r, p, now)) || markerLive(r, p, now) {
					rows = append(rows, r)
					break
				}
			}
		}
		for _, r := range rows {
			vals := t.rowValues(p, r, now)
			if wildcard {
				for _, c := range t.cols {
					if (c.kind == kindStatic && !updatesStatic) || (c.kind == kindRegular && !updatesRegular) {
						vals[c.idx] = nil // not read: Cassandra answers null
					}
				}
			}
			out := [][]byte{{0}}
			for _, c := range cols {
				out = append(out, vals[c.idx])
			}
			res.Rows = append(res.Rows, out)
		}
	}
	if len(res.Rows) == 0 && p != nil && readsLiveStatic(t, p, wildcard, updatesStatic, condCols, now) {
		// no row read, but the partition's static columns were: Cassandra answers them,
		// with nulls for the rest, as a SELECT of the whole partition would
		vals := t.rowValues(p, nil, now)
		out := [][]byte{{0}}
		for _, c := range cols {
			out = append(out, vals[c.idx])
		}
		res.Rows = append(res.Rows, out)
	}
	if len(res.Rows) == 0 {
		res.Columns = res.Columns[:1]
		res.Rows = [][][]byte{{{0}}}
	}
	return res, nil
}

// readsLiveStatic reports whether the read of a conditional statement finds a live static
// column in p. As on Cassandra, the read covers every static column when the statements update
// one, and otherwise those of its conditions (none with IF [NOT] EXISTS).
func readsLiveStatic(t *table, p *partition, wildcard, updatesStatic bool, condCols []*column, now int64) bool {
	read := condCols
	if updatesStatic {
		read = t.cols
	} else if wildcard {
		return false
	}
	var vals [][]byte
	for _, c := range read {
		if c.kind != kindStatic {
			continue
		}
		if vals == nil {
			vals = t.rowValues(p, nil, now)
		}
		if vals[c.idx] != nil {
			return true
		}
	}
	return false
}

func sortBytesRows(t *table, cks [][][]byte) {
	for i := 1; i < len(cks); i++ {
		for j := i; j > 0 && t.compareClustering(cks[j-1], cks[j]) > 0; j-- {
			cks[j-1], cks[j] = cks[j], cks[j-1]
		}
	}
}

// condHolds evaluates one IF condition against the current column value.
func condHolds(c condition, rc resolvedCond, cur []byte) bool {
	ty := c.col.typ
	if c.op == cql.OpContains || c.op == cql.OpContKey {
		return containsHolds(c.op, ty, cur, rc.v.b)
	}
	if c.elem != nil && cur != nil {
		switch ty.code {
		case primitive.DataTypeCodeList:
			es, _ := decodeElems(cur)
			idx := -1
			if len(rc.key) == 4 {
				idx = int(int32(beUint64(rc.key)))
			}
			if idx >= 0 && idx < len(es) {
				cur = es[idx]
			} else {
				cur = nil
			}
			ty = ty.elem
		case primitive.DataTypeCodeMap:
			ks, vs, _ := decodeMap(cur)
			found := []byte(nil)
			for i := range ks {
				if compareValues(ty.key, ks[i], rc.key) == 0 {
					found = vs[i]
				}
			}
			cur = found
			ty = ty.val
		}
	} else if c.elem != nil {
		if ty.code == primitive.DataTypeCodeList {
			ty = ty.elem
		} else {
			ty = ty.val
		}
	}
	if c.field >= 0 {
		if cur != nil {
			fs, err := decodeFields(cur, len(ty.elems))
			if err == nil {
				cur = fs[c.field]
			} else {
				cur = nil
			}
		}
		ty = ty.elems[c.field]
	}
	// a non-frozen collection is never empty, only null: Cassandra compares an empty
	// collection in a condition as null
	asNull := func(v []byte) []byte {
		if v != nil && c.elem == nil && c.field < 0 && ty.multiCell() && isEmptyCollection(ty, v) {
			return nil
		}
		return v
	}
	if c.op == cql.OpIn {
		for _, v := range rc.vs {
			if v = asNull(v); (v == nil && cur == nil) || (v != nil && cur != nil && compareValues(ty, cur, v) == 0) {
				return true
			}
		}
		return false
	}
	v := asNull(rc.v.b)
	switch c.op {
	case cql.OpEq:
		if v == nil || cur == nil {
			return v == nil && cur == nil
		}
		return compareValues(ty, cur, v) == 0
	case cql.OpNe:
		if v == nil || cur == nil {
			return (v == nil) != (cur == nil)
		}
		return compareValues(ty, cur, v) != 0
	}
	if cur == nil {
		return false
	}
	return opMatches(c.op, compareValues(ty, cur, v))
}

// checkConditionMix rejects, like Cassandra, different kinds of conditions on the same row of a
// batch (IF NOT EXISTS, IF EXISTS, column conditions), with Cassandra 5.0.9's message for the
// kinds in their order.
func checkConditionMix(t *table, muts []*mutation) error {
	type rowCond struct {
		ck   [][]byte
		kind int // 1 not exists, 2 exists, 3 columns
	}
	var seen []rowCond
	for _, mu := range muts {
		m := mu.m
		if !m.conditional() {
			continue
		}
		kind := 3
		switch {
		case m.ifNotExists:
			kind = 1
		case m.ifExists:
			kind = 2
		}
		ck := [][]byte{}
		if mu.cks != nil {
			ck = mu.cks[0]
		}
		for _, s := range seen {
			if t.compareClustering(s.ck, ck) != 0 || s.kind == kind {
				continue
			}
			switch {
			case s.kind != 3 && kind != 3:
				return invalid("Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row")
			case s.kind == 3 && kind == 2:
				return invalid("Cannot mix IF conditions and IF EXISTS for the same row")
			}
			// Cassandra 5.0.9 says NOT EXISTS after an IF EXISTS too
			return invalid("Cannot mix IF conditions and IF NOT EXISTS for the same row")
		}
		seen = append(seen, rowCond{ck, kind})
	}
	return nil
}
