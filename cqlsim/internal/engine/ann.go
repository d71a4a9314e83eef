package engine

import (
	"math"
	"sort"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// Cassandra 5.0's vector search (SELECT ... ORDER BY v ANN OF [...] LIMIT n), with its rules
// and messages as a Cassandra 5.0.9 node answers them. Cassandra searches an approximate HNSW
// graph of the storage-attached index; cqlsim computes the exact nearest neighbours by brute
// force (on the small data sets of tests, Cassandra's answer is the exact one too).

// annMaxLimit is the greatest LIMIT of a vector search.
const annMaxLimit = 1000

// Cassandra's messages for vector searches.
const (
	annRequiresIndex          = "ANN ordering by vector requires the column to be indexed"
	annRequiresIndexedFilters = "ANN ordering by vector requires all restricted column(s) to be indexed"
	annOnlyFloatVectors       = "ANN ordering is only supported on float vector indexes"
	annVectorIndexOnlyANN     = "Vector indexes only support ANN queries"
)

// annPlan is the ANN ordering of a SELECT.
type annPlan struct {
	col *column
	vec *boundTerm // the query vector, typed as the column
	fn  string     // the similarity function of the column's index
}

// planANN analyses the ANN ordering of a SELECT (st.OrderBy[i].ANN set) once its WHERE
// relations and selection are analysed: the checks Cassandra makes when it prepares the
// statement, in its order. It replaces the ordinary ORDER BY and filtering checks.
func (e *Engine) planANN(sp *selectPlan, st *cql.Select, bd *binder) error {
	t := sp.t
	var ob *cql.OrderBy
	for i := range st.OrderBy {
		if st.OrderBy[i].ANN != nil && ob == nil {
			ob = &st.OrderBy[i]
		}
	}
	c, err := t.column(ob.Column)
	if err != nil {
		return err
	}
	term := ob.ANN
	if c.typ.code != kindVector && c.typ.code != primitive.DataTypeCodeList && term.Kind == cql.TermList {
		return invalid("Unexpected receiver type '%s'; only list and vector are expected", c.typ.String())
	}
	if c.typ.code == kindVector && isConstant(term) {
		return badConst(term, c.typ, c.name)
	}
	if !hasBindMarker(term) && term.Kind != cql.TermNull {
		// a literal's errors come first, as Cassandra binds it when preparing
		if _, err := (&evalCtx{e: e}).evalTerm(term, c.typ, c.name); err != nil {
			return err
		}
	}
	anns := 0
	for _, o := range st.OrderBy {
		if o.ANN != nil {
			anns++
		}
	}
	switch {
	case anns > 1:
		return invalid("Cannot specify more than one ANN ordering")
	case len(st.OrderBy) > 1:
		return invalid("ANN ordering does not support any other ordering")
	case ob.Desc:
		return invalid("Descending ANN ordering is not supported")
	case c.typ.code != kindVector || c.typ.elem.code != primitive.DataTypeCodeFloat:
		return invalid(annOnlyFloatVectors)
	}
	indexed := func(c *column) *index {
		k := e.keyspaces[t.ks]
		if k == nil {
			return nil
		}
		var found *index
		for _, ix := range k.indexes {
			if ix.table == t.name && ix.column == c.name && (found == nil || ix.sai()) {
				found = ix
			}
		}
		return found
	}
	ix := indexed(c)
	if ix == nil {
		return invalid(annRequiresIndex)
	}
	// restrictions: the partition key by = or IN on every column (or token()); clustering
	// columns as a prefix when the partition key is restricted; anything else must be indexed
	pkRestricted, pkSlice, token := 0, false, false
	ckRel := map[int]*rel{}
	for _, r := range sp.rels {
		if r.token {
			token = true
			continue
		}
		for _, rc := range r.cols {
			switch rc.kind {
			case kindPartitionKey:
				if r.op == cql.OpEq || r.op == cql.OpIn {
					pkRestricted++
				} else {
					pkSlice = true
				}
			case kindClustering:
				ckRel[rc.pos] = r
			default:
				if indexed(rc) == nil {
					return invalid(annRequiresIndexedFilters)
				}
			}
		}
	}
	if pkSlice || (pkRestricted > 0 && !sp.pkFull) {
		return invalid(annRequiresIndexedFilters)
	}
	if len(ckRel) > 0 {
		filtered := pkRestricted == 0 && !token
		var prev *rel
		ended := false
		for i, ck := range t.ck {
			r, ok := ckRel[i]
			switch {
			case !ok:
				ended = true
			case r == prev:
			case ended || r.op == cql.OpContains || r.op == cql.OpContKey:
				filtered = true
			case r.op != cql.OpEq && r.op != cql.OpIn:
				ended = true
			}
			if ok && filtered && indexed(ck) == nil {
				return invalid(annRequiresIndexedFilters)
			}
			prev = r
		}
	}
	if !ix.sai() {
		if !st.AllowFiltering {
			return invalid("Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING")
		}
		return unsupported("a vector search on a legacy secondary index")
	}
	switch {
	case sp.pkIn:
		return invalid("Select on indexed columns and with IN clause for the PRIMARY KEY are not supported")
	case sp.distinct:
		return invalid("SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")
	case sp.aggregate || len(st.GroupBy) > 0:
		return invalid("Top-K queries can not be run with aggregation")
	case st.PerPartitionLimit != nil:
		return invalid("Top-K queries do not support per-partition limits")
	}
	sp.ann = &annPlan{col: c, vec: bd.bind(term, c.typ, c.name), fn: ix.similarityFunction()}
	return nil
}

// isConstant reports whether a term is a constant that no vector accepts (a string, number,
// ...): Cassandra names its kind.
func isConstant(t *cql.Term) bool {
	switch t.Kind {
	case cql.TermString, cql.TermInteger, cql.TermFloat, cql.TermBool, cql.TermUUID, cql.TermHex, cql.TermDuration:
		return true
	}
	return false
}

// hasBindMarker reports whether a term holds a bind marker.
func hasBindMarker(t *cql.Term) bool {
	if t.Kind == cql.TermBind {
		return true
	}
	for _, e := range t.Elems {
		if hasBindMarker(e) {
			return true
		}
	}
	for _, e := range t.Values {
		if hasBindMarker(e) {
			return true
		}
	}
	return false
}

// vectorRestricted reports the error Cassandra gives for a WHERE restriction on a vector column
// served by a storage-attached index in a SELECT without ANN ordering.
func (e *Engine) vectorRestricted(t *table, rels []*rel) error {
	k := e.keyspaces[t.ks]
	if k == nil {
		return nil
	}
	for _, r := range rels {
		for _, c := range r.cols {
			if c.typ.code != kindVector || c.kind == kindPartitionKey || c.kind == kindClustering {
				continue
			}
			for _, ix := range k.indexes {
				if ix.table == t.name && ix.column == c.name && ix.sai() {
					return invalid(annVectorIndexOnlyANN)
				}
			}
		}
	}
	return nil
}

// scoredRow is a row found by a vector search, with its similarity to the query vector.
type scoredRow struct {
	outRow
	score float32
}

// execANN runs a vector search: the rows matching the WHERE relations whose vector is set, most
// similar first by the index's similarity function, at most limit of them, in one page (a
// vector search is not paged: Cassandra answers one with a smaller page size in full too). Rows
// of equal similarity keep the order of a scan (partition token, then clustering order), as
// Cassandra returned them in the checks against it. A stored vector the similarity function
// refuses (all zeros, under cosine) is left out, as Cassandra's index leaves it out.
func (s *selectPlan) execANN(ctx *evalCtx, t *table, rrs []*resolvedRel, limit int64, hasLimit bool) (*Result, error) {
	if !hasLimit {
		return nil, invalid("Top-K queries must have a limit specified and the limit must be less than the query page size")
	}
	if limit > annMaxLimit {
		return nil, invalid("Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than %d. LIMIT was %d", annMaxLimit, limit)
	}
	a := s.ann
	q, err := a.vec.eval(ctx)
	switch {
	case err != nil:
		return nil, err
	case q.unset:
		return nil, invalid("Invalid unset value for column %s", a.col.name)
	case q.b == nil:
		return nil, invalid("Unsupported null value for column %s", a.col.name)
	}
	if a.fn == "similarity_cosine" && allZero(q.b) {
		// Cassandra 5.0.9 fails the read itself (a READ_FAILURE, after its index refuses the
		// vector with these words).
		return nil, invalid("Zero vectors cannot be indexed or queried with cosine similarity")
	}
	now := ctx.now.Unix()
	var parts []*partition
	if s.pkFull {
		combos, _ := keyCombos(t.pk, rrs)
		for _, kv := range combos {
			if len(serializePartitionKey(kv)) == 0 {
				return nil, invalid("Key may not be empty")
			}
			if p := t.getPartition(kv, false); p != nil {
				parts = append(parts, p)
			}
		}
	} else {
		parts = t.data.order
	}
	var found []scoredRow
	for _, p := range parts {
		for _, r := range p.rows {
			if !rowLive(r, p, now) {
				continue
			}
			vals := t.rowValues(p, r, now)
			v := vals[a.col.idx]
			if v == nil {
				continue
			}
			match := true
			for _, rr := range rrs {
				if !rr.matches(vals, p.token) {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			score, err := similarity(a.fn, v, q.b)
			if err != nil {
				continue
			}
			found = append(found, scoredRow{outRow: outRow{p: p, r: r, vals: vals}, score: score})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	if int64(len(found)) > limit {
		found = found[:limit]
	}
	res := &Result{Kind: ResultRows, Columns: s.cols}
	for _, f := range found {
		row, err := s.project(ctx, t, f.outRow)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// allZero reports whether an encoded float vector has only zeros.
func allZero(b []byte) bool {
	for i := 0; i+4 <= len(b); i += 4 {
		if math.Float32frombits(uint32(b[i])<<24|uint32(b[i+1])<<16|uint32(b[i+2])<<8|uint32(b[i+3])) != 0 {
			return false
		}
	}
	return true
}
