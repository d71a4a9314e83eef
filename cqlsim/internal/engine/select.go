package engine

import (
	"encoding/binary"
	"math"
	"sort"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

type selKind int

const (
	selCol selKind = iota
	selField
	selToken
	selWritetime
	selTTL
	selCount
	selCountCol
	selMin
	selMax
	selSum
	selAvg
	selFunc  // a native scalar function (not an aggregate)
	selConst // a literal or bind marker argument of a function
	selElem  // an element or slice of a map or set column: args are the key, or the bounds
	selCast  // CAST(arg AS type): args[0] read as castFrom, converted to typ
)

// selItem is one analysed selector.
type selItem struct {
	kind  selKind
	col   *column
	field int
	typ   *ctype
	name  string
	fn    string    // selFunc
	args  []selItem // selFunc
	term  *cql.Term // selConst
	// castFrom is the parameter type of the cast function a selCast uses (its argument's
	// type, or a type that accepts the argument's values)
	castFrom *ctype
	// aliased: the name is an AS alias (quoted in JSON keys when case-sensitive)
	aliased bool
	// maxTime: a selWritetime that is maxwritetime(), the latest write time of the cells
	maxTime bool
}

func (s *selItem) aggregate() bool { return s.kind >= selCount && s.kind <= selAvg }

// selectPlan is an analysed SELECT.
type selectPlan struct {
	basePlan
	t            *table
	rels         []*rel
	items        []selItem
	cols         []Column
	aggregate    bool
	distinct     bool
	reversed     bool
	postOrder    bool
	limit, ppl   *boundTerm
	pkFull       bool // all partition key columns restricted by = or IN
	pkIn         bool
	pkAny        bool // some restriction on the partition key (token() included)
	ckRestricted bool
	pkIdx        []uint16
	json         bool // SELECT JSON: one [json] column rendering the selection
	groupBy      []*column
	ann          *annPlan // ORDER BY column ANN OF vector: a vector search
}

func (s *selectPlan) resultColumns() []Column {
	if s.json {
		return []Column{{Keyspace: s.t.ks, Table: s.t.name, Name: "[json]", Type: tText.dataType()}}
	}
	return s.cols
}

// jsonRows turns projected rows into the single-column rows of SELECT JSON.
func (s *selectPlan) jsonRows(res *Result) *Result {
	if !s.json || res == nil {
		return res
	}
	res.Columns = s.resultColumns()
	for i, row := range res.Rows {
		parts := make([]string, len(row))
		for j, v := range row {
			key := s.items[j].name
			if key != strings.ToLower(key) { // Cassandra quotes names with upper-case letters
				key = `"` + key + `"`
			}
			parts[j] = jsonString(key) + ": " + toJSON(s.items[j].typ, v)
		}
		res.Rows[i] = [][]byte{[]byte("{" + strings.Join(parts, ", ") + "}")}
	}
	return res
}
func (s *selectPlan) pkIndexes() []uint16 { return s.pkIdx }

func (e *Engine) planSelect(st *cql.Select, ks string, vars []Column) (plan, error) {
	t, err := e.lookupTable(st.Table, ks)
	if err != nil {
		return nil, err
	}
	bd := &binder{vars: vars, ks: t.ks, table: t.name}
	sp := &selectPlan{t: t, distinct: st.Distinct, json: st.JSON}
	// Cassandra resolves the names of the selected columns first when the table has static
	// columns (to learn whether only those are selected), then those of ORDER BY, and only
	// then looks at the WHERE clause
	if hasStatic(t) && !st.Star {
		if err := undefinedSelectedColumn(t, st.Selectors); err != nil {
			return nil, err
		}
	}
	for _, ob := range st.OrderBy {
		if _, err := t.column(ob.Column); err != nil {
			return nil, err
		}
	}
	// where
	var order *sliceOrder
	if !st.AllowFiltering {
		order = &sliceOrder{indexed: func(c *column, op cql.Operator) bool { return e.indexFor(t, c, op) != nil }}
	}
	sp.rels, err = analyseWhere(t, st.Where, bd, order)
	if err != nil {
		return nil, err
	}
	// selection
	if st.Star {
		for _, c := range t.cols {
			sp.items = append(sp.items, selItem{kind: selCol, col: c, typ: c.typ, name: c.name})
		}
	} else {
		for i := range st.Selectors {
			it, err := analyseSelector(t, &st.Selectors[i])
			if nc, ok := err.(*errNoCastFunction); ok {
				return nil, noCastFunctionError(st.Selectors, i, nc.target)
			}
			if err != nil {
				return nil, err
			}
			if st.Selectors[i].Alias != "" {
				it.name, it.aliased = st.Selectors[i].Alias, true
			}
			sp.items = append(sp.items, *it)
		}
	}
	for i := range sp.items {
		registerSelectionMarkers(bd, &sp.items[i])
	}
	for _, it := range sp.items {
		if it.aggregate() {
			sp.aggregate = true
		}
		sp.cols = append(sp.cols, Column{Keyspace: t.ks, Table: t.name, Name: it.name, Type: it.typ.dataType()})
	}
	needFiltering, usedIndex := order != nil && order.filtering, false
	pkRestricted := map[*column]bool{}
	hasToken := false
	var pkPartial bool
	ckRestricted := map[int]*rel{}
	for _, r := range sp.rels {
		if r.token {
			hasToken = true
			continue
		}
		for _, c := range r.cols {
			switch c.kind {
			case kindPartitionKey:
				if r.op == cql.OpEq || r.op == cql.OpIn {
					pkRestricted[c] = true
					if r.op == cql.OpIn {
						sp.pkIn = true
					}
				} else {
					pkPartial = true
				}
			case kindClustering:
				ckRestricted[c.pos] = r
				sp.ckRestricted = true
			default:
				// one restriction may be served by a secondary index
				if !usedIndex && len(r.cols) == 1 && e.indexFor(t, c, r.op) != nil {
					usedIndex = true
				} else {
					needFiltering = true
				}
			}
		}
	}
	sp.pkFull = len(pkRestricted) == len(t.pk) && !pkPartial
	sp.pkAny = len(pkRestricted) > 0 || pkPartial || hasToken
	if len(pkRestricted) > 0 && !sp.pkFull {
		needFiltering = true // a token() relation does not make a partial key a full one
	}
	hasANN := false
	for _, ob := range st.OrderBy {
		hasANN = hasANN || ob.ANN != nil
	}
	if hasANN {
		// a vector search has its own rules for restrictions and ordering
		if err := e.planANN(sp, st, bd); err != nil {
			return nil, err
		}
		return e.finishSelect(sp, st, bd)
	}
	if err := e.vectorRestricted(t, sp.rels); err != nil {
		return nil, err
	}
	if pkPartial {
		if !st.AllowFiltering {
			// Cassandra 5.0's answer to a partition key slice without ALLOW FILTERING.
			return nil, invalid("Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING")
		}
	}
	if len(ckRestricted) > 0 && !st.Star && selectsOnlyStatic(t, sp.items) {
		return nil, invalid("Cannot restrict clustering columns when selecting only static columns")
	}
	// clustering restrictions must form a prefix (slices only on the last restricted column)
	// Cassandra checks the filtering that clustering restrictions without the partition key
	// need after SELECT DISTINCT's rules, other filtering before
	lateFiltering := false
	if len(ckRestricted) > 0 {
		if !sp.pkFull {
			lateFiltering = true
		}
		prefixEnd := false
		for i, c := range t.ck {
			r, ok := ckRestricted[i]
			if !ok {
				prefixEnd = true
				continue
			}
			if prefixEnd && usedIndex && len(r.cols) == 1 {
				needFiltering = true // with an index, a gap in the clustering key means filtering
			} else if prefixEnd && !st.AllowFiltering && len(r.cols) == 1 {
				for j := i - 1; j >= 0; j-- {
					if _, ok := ckRestricted[j]; !ok {
						return nil, invalid("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", c.name, t.ck[j].name)
					}
				}
			}
			if r.op != cql.OpEq && r.op != cql.OpIn && len(r.cols) == 1 {
				if r.op == cql.OpContains || r.op == cql.OpContKey {
					needFiltering = true
				}
				prefixEnd = true
			}
		}
	}
	if needFiltering && !st.AllowFiltering {
		return nil, invalid("Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING")
	}
	if sp.distinct {
		if err := sp.checkDistinct(st, len(ckRestricted) > 0); err != nil {
			return nil, err
		}
	}
	if lateFiltering && !st.AllowFiltering {
		return nil, invalid("Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING")
	}
	// ORDER BY
	if len(st.OrderBy) > 0 {
		if usedIndex {
			return nil, invalid("ORDER BY with 2ndary indexes is not supported, except for ANN queries.")
		}
		if !sp.pkFull {
			return nil, invalid("ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")
		}
		for i, ob := range st.OrderBy {
			c, err := t.column(ob.Column)
			if err != nil {
				return nil, err
			}
			if c.kind != kindClustering {
				return nil, invalid("Order by is currently only supported on the clustered columns of the PRIMARY KEY, got %s", c.name)
			}
			if c.pos != i {
				return nil, invalid("Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
			}
			rev := ob.Desc != c.desc
			if i == 0 {
				sp.reversed = rev
			} else if rev != sp.reversed {
				return nil, invalid("Unsupported order by relation")
			}
		}
		sp.postOrder = sp.pkIn
	}
	if len(st.GroupBy) > 0 {
		if err := sp.analyseGroupBy(st.GroupBy); err != nil {
			return nil, err
		}
	}
	return e.finishSelect(sp, st, bd)
}

// selItemColumns calls fn for every column of t a selector reads.
func selItemColumns(t *table, it *selItem, fn func(*column)) {
	if it.col != nil {
		fn(it.col)
	}
	if it.kind == selToken {
		for _, c := range t.pk {
			fn(c)
		}
	}
	for i := range it.args {
		selItemColumns(t, &it.args[i], fn)
	}
}

// selectsOnlyStatic reports whether a selection (not *) reads a static column and no column
// other than partition key and static ones, as Cassandra's selectOnlyStaticColumns decides.
func selectsOnlyStatic(t *table, items []selItem) bool {
	static, other := false, false
	for i := range items {
		selItemColumns(t, &items[i], func(c *column) {
			switch c.kind {
			case kindStatic:
				static = true
			case kindPartitionKey:
			default:
				other = true
			}
		})
	}
	return static && !other
}

// checkDistinct applies Cassandra's rules for SELECT DISTINCT (after its restrictions, ALLOW
// FILTERING's included, have been checked), in its order: no PER PARTITION
// LIMIT, restrictions on partition key and static columns only, only partition key and static
// columns read (the ORDER BY columns too when the rows are sorted after the read), and every
// partition key column read unless the partition key is restricted.
func (sp *selectPlan) checkDistinct(st *cql.Select, ckRestricted bool) error {
	t := sp.t
	if st.PerPartitionLimit != nil {
		return invalid("PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries")
	}
	otherRestricted := ckRestricted
	for _, r := range sp.rels {
		for _, c := range r.cols {
			if !r.token && c.kind != kindPartitionKey && c.kind != kindStatic {
				otherRestricted = true
			}
		}
	}
	if otherRestricted {
		return invalid("SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")
	}
	var read []*column
	for i := range sp.items {
		selItemColumns(t, &sp.items[i], func(c *column) { read = append(read, c) })
	}
	if sp.pkIn {
		for _, ob := range st.OrderBy {
			if c, err := t.column(ob.Column); err == nil {
				read = append(read, c)
			}
		}
	}
	for _, c := range read {
		if c.kind != kindPartitionKey && c.kind != kindStatic {
			return invalid("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", c.name)
		}
	}
	if sp.pkFull {
		return nil
	}
	for _, pk := range t.pk {
		found := false
		for _, c := range read {
			found = found || c == pk
		}
		if !found {
			return invalid("SELECT DISTINCT queries must request all the partition key columns (missing %s)", pk.name)
		}
	}
	return nil
}

// finishSelect binds the limits of an analysed SELECT and its partition key markers.
func (e *Engine) finishSelect(sp *selectPlan, st *cql.Select, bd *binder) (plan, error) {
	t := sp.t
	if st.Limit != nil {
		sp.limit = bd.bind(st.Limit, tInt, "[limit]")
	}
	if st.PerPartitionLimit != nil {
		if sp.aggregate && sp.groupBy == nil {
			return nil, invalid("PER PARTITION LIMIT is not allowed with aggregate queries.")
		}
		sp.ppl = bd.bind(st.PerPartitionLimit, tInt, "[per_partition_limit]")
	}
	// partition key bind indexes
	if sp.pkFull && !sp.pkIn {
		for _, c := range t.pk {
			for _, r := range sp.rels {
				if len(r.cols) == 1 && r.cols[0] == c && r.op == cql.OpEq && r.val != nil && r.val.t.Kind == cql.TermBind {
					sp.pkIdx = append(sp.pkIdx, uint16(r.val.t.BindIdx))
					break
				}
			}
		}
		if len(sp.pkIdx) != len(t.pk) {
			sp.pkIdx = nil
		}
	}
	if bd.err != nil {
		return nil, bd.err
	}
	sp.v = bd.finish()
	return sp, nil
}

// hasStatic reports whether table t has static columns.
func hasStatic(t *table) bool {
	for _, c := range t.cols {
		if c.kind == kindStatic {
			return true
		}
	}
	return false
}

// undefinedSelectedColumn returns the error of the first column the selectors name that the
// table does not have.
func undefinedSelectedColumn(t *table, sels []cql.Selector) error {
	var walk func(s *cql.Selector) error
	walk = func(s *cql.Selector) error {
		if s.Kind == cql.SelColumn {
			if _, err := t.column(s.Name); err != nil {
				return err
			}
		}
		for _, a := range s.Args {
			if a != nil {
				if err := walk(a); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i := range sels {
		if err := walk(&sels[i]); err != nil {
			return err
		}
	}
	return nil
}

func analyseSelector(t *table, s *cql.Selector) (*selItem, error) {
	switch s.Kind {
	case cql.SelColumn:
		c, err := t.column(s.Name)
		if err != nil {
			return nil, err
		}
		return &selItem{kind: selCol, col: c, typ: c.typ, name: c.name}, nil
	case cql.SelField:
		inner, err := analyseSelector(t, s.Args[0])
		if err != nil {
			return nil, err
		}
		if inner.kind != selCol || inner.typ.code != primitive.DataTypeCodeUdt {
			return nil, invalid("Invalid field selection: %s of type %s is not a user type", inner.name, inner.typ.plainString())
		}
		for i, f := range inner.typ.fields {
			if f == s.Field {
				return &selItem{kind: selField, col: inner.col, field: i, typ: inner.typ.elems[i], name: inner.name + "." + f}, nil
			}
		}
		return nil, invalid("%s of type %s has no field %s", inner.name, udtName(inner.typ), s.Field)
	case cql.SelElement:
		return analyseElementSelector(t, s)
	case cql.SelCast:
		return analyseCast(t, s)
	case cql.SelCountStar:
		return &selItem{kind: selCount, typ: tBigint, name: "count"}, nil
	case cql.SelWritetime, cql.SelTTL:
		fn := "writetime"
		if s.Kind == cql.SelTTL {
			fn = "ttl"
		}
		if s.Name == "maxwritetime" {
			fn = "maxwritetime"
		}
		if len(s.Args) == 1 && s.Args[0].Kind == cql.SelElement {
			return analyseElementTime(t, s, fn)
		}
		if len(s.Args) != 1 || (s.Args[0].Kind != cql.SelColumn && s.Args[0].Kind != cql.SelField) {
			return nil, invalid("Invalid arguments for %s", fn)
		}
		// of a column, or of a user type's field (Cassandra 5), whose column is checked first
		base := s.Args[0]
		for base.Kind == cql.SelField {
			base = base.Args[0]
		}
		if base.Kind != cql.SelColumn {
			return nil, invalid("Invalid arguments for %s", fn)
		}
		c, err := t.column(base.Name)
		if err != nil {
			return nil, err
		}
		if c.kind == kindPartitionKey || c.kind == kindClustering {
			return nil, invalid("Cannot use selection function %s on PRIMARY KEY part %s", fn, c.name)
		}
		arg, err := analyseSelector(t, s.Args[0])
		if err != nil {
			return nil, err
		}
		it := &selItem{kind: selWritetime, col: c, field: -1, typ: tBigint, name: fn + "(" + arg.name + ")"}
		if s.Kind == cql.SelTTL {
			it.kind, it.typ = selTTL, tInt
		}
		it.maxTime = fn == "maxwritetime"
		if arg.kind == selField {
			it.field = arg.field
		} else if c.typ.multiCell() && !it.maxTime { // one value per element or field, as Cassandra 5 answers
			it.typ = listOf(it.typ)
		}
		return it, nil
	case cql.SelFunc:
		switch s.Name {
		case "token":
			if len(s.Args) != len(t.pk) {
				return nil, invalid("Invalid number of arguments in call to function system.token: %d required but %d provided", len(t.pk), len(s.Args))
			}
			names := make([]string, len(s.Args))
			for i, a := range s.Args {
				if a.Kind != cql.SelColumn || a.Name != t.pk[i].name {
					return nil, invalid("Type error: %s cannot be passed as argument %d of function system.token of type %s", a.Raw, i, t.pk[i].typ.plainString())
				}
				names[i] = a.Name
			}
			return &selItem{kind: selToken, typ: tBigint, name: "system.token(" + strings.Join(names, ", ") + ")"}, nil
		case "count", "min", "max", "sum", "avg":
			if len(s.Args) != 1 || s.Args[0].Kind != cql.SelColumn {
				return nil, unsupported("function " + s.Name + " with these arguments")
			}
			c, err := t.column(s.Args[0].Name)
			if err != nil {
				return nil, err
			}
			it := &selItem{col: c, typ: c.typ, name: "system." + s.Name + "(" + c.name + ")"}
			switch s.Name {
			case "count":
				it.kind, it.typ = selCountCol, tBigint
			case "min":
				it.kind = selMin
			case "max":
				it.kind = selMax
			case "sum", "avg":
				if err := numericAggregateError(s.Name, c.typ); err != nil {
					return nil, err
				}
				it.kind = selSum
				if s.Name == "avg" {
					it.kind = selAvg
				}
			}
			return it, nil
		}
		return analyseFuncSelector(t, s)
	}
	if s.Kind == cql.SelTerm && s.Term.Kind == cql.TermNull {
		return nil, invalid("Cannot infer type for term NULL in selection clause (try using a cast to force a type)")
	}
	return nil, unsupported("this selector (" + s.Raw + ")")
}

// registerSelectionMarkers types the bind markers among a selector's function arguments, named
// [selection] as Cassandra names them in the prepared metadata.
func registerSelectionMarkers(bd *binder, it *selItem) {
	if it.kind == selConst && it.term != nil && it.term.Kind == cql.TermBind {
		bd.register(it.term, it.typ, "[selection]")
	}
	for i := range it.args {
		registerSelectionMarkers(bd, &it.args[i])
	}
}

// outRow is one row produced by a scan.
type outRow struct {
	p    *partition
	r    *row // nil for a static-only row
	vals [][]byte
}

// pagingState is the decoded position of a paged query.
type pagingState struct {
	key      []byte
	ck       [][]byte
	static   bool
	returned int64
	ppCount  int64
}

func (ps *pagingState) encode() []byte {
	out := []byte{1}
	out = appendBytes(out, ps.key)
	out = binary.BigEndian.AppendUint32(out, uint32(len(ps.ck)))
	for _, c := range ps.ck {
		out = appendBytes(out, c)
	}
	flag := byte(0)
	if ps.static {
		flag = 1
	}
	out = append(out, flag)
	out = binary.BigEndian.AppendUint64(out, uint64(ps.returned))
	return binary.BigEndian.AppendUint64(out, uint64(ps.ppCount))
}

func decodePagingState(b []byte) (*pagingState, error) {
	bad := invalid("Invalid value for the paging state")
	if len(b) < 1 || b[0] != 1 {
		return nil, bad
	}
	b = b[1:]
	ps := &pagingState{}
	var err error
	if ps.key, b, err = readBytes(b); err != nil || ps.key == nil {
		return nil, bad
	}
	if len(b) < 4 {
		return nil, bad
	}
	n := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	if n > len(b)/4 {
		return nil, bad
	}
	for i := 0; i < n; i++ {
		var c []byte
		if c, b, err = readBytes(b); err != nil {
			return nil, bad
		}
		ps.ck = append(ps.ck, c)
	}
	if len(b) != 17 {
		return nil, bad
	}
	ps.static = b[0] == 1
	ps.returned = int64(binary.BigEndian.Uint64(b[1:]))
	ps.ppCount = int64(binary.BigEndian.Uint64(b[9:]))
	return ps, nil
}

// check refuses a paging state that cannot come from a query of t: more clustering values than
// the table has, or a value that is not valid for its column's type.
func (ps *pagingState) check(t *table) error {
	bad := invalid("Invalid value for the paging state")
	if len(ps.ck) > len(t.ck) {
		return bad
	}
	for i, c := range ps.ck {
		if c == nil || validateValue(t.ck[i].typ, c) != nil {
			return bad
		}
	}
	return nil
}

func (s *selectPlan) exec(e *Engine, ctx *evalCtx, req *Request) (*Result, error) {
	res, err := s.execRows(e, ctx, req)
	if err != nil {
		return nil, err
	}
	return s.jsonRows(res), nil
}

func (s *selectPlan) execRows(e *Engine, ctx *evalCtx, req *Request) (*Result, error) {
	t := s.t
	if t.virtual != nil {
		t = e.materialize(t, req.Node)
	}
	rrs, err := resolveRels(s.rels, ctx)
	if err != nil {
		return nil, err
	}
	limit, hasLimit, err := evalLimit(ctx, s.limit)
	if err != nil {
		return nil, err
	}
	if s.ann != nil {
		return s.execANN(ctx, t, rrs, limit, hasLimit)
	}
	if !hasLimit {
		limit = -1
	}
	ppl, hasPPL, err := evalLimit(ctx, s.ppl)
	if err != nil {
		return nil, err
	}
	if !hasPPL {
		ppl = -1
	}
	rowPPL := ppl
	if s.groupBy != nil {
		rowPPL = -1 // the PER PARTITION LIMIT of a GROUP BY counts groups (see groupRuns)
	}
	pageSize := int64(req.PageSize)
	if s.aggregate {
		pageSize = 0
	}
	// GROUP BY results are paged by groups, as on Cassandra (other aggregates answer one row)
	groupPageSize := int64(0)
	if s.groupBy != nil && req.PageSize > 0 {
		groupPageSize = int64(req.PageSize)
	}
	// an aggregate is read in pages internally, but the client's page size decides, as on
	// Cassandra
	if s.postOrder && req.PageSize > 0 {
		return nil, invalid("Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query")
	}
	var ps *pagingState
	if len(req.PagingState) > 0 && (!s.aggregate || groupPageSize > 0) {
		if ps, err = decodePagingState(req.PagingState); err != nil {
			return nil, err
		}
		if err := ps.check(t); err != nil {
			return nil, err
		}
	}
	now := ctx.now.Unix()
	// partitions to visit
	var parts []*partition
	var finalKey []byte // the last partition key a query on keys reads (see "done" below)
	keyOrder := false
	multiKeys := false // IN on the partition key names several keys
	if s.pkFull {
		if emptyClustering(t, rrs) {
			// no clustering selected: Cassandra reads nothing and validates no key
			return s.emptyOrAggregate(t, nil, ctx, false)
		}
		combos, _ := keyCombos(t.pk, rrs)
		multiKeys = s.pkIn && len(combos) > 1
		if len(combos) > 0 {
			finalKey = serializePartitionKey(combos[len(combos)-1])
		}
		// Cassandra reads several partitions with paxos only in one go: without paging, or
		// when the LIMIT fits in a page (an aggregate always pages internally); a paged read
		// visits the partitions one by one and is accepted.
		unpaged := pageSize <= 0 || (limit > 0 && limit <= pageSize)
		if isSerialConsistency(req.Consistency) && !s.aggregate && unpaged && distinctKeys(combos) > 1 {
			return nil, invalid("SERIAL/LOCAL_SERIAL consistency may only be requested for one partition at a time")
		}
		for _, kv := range combos {
			if len(serializePartitionKey(kv)) == 0 {
				return nil, invalid("Key may not be empty")
			}
			if p := t.getPartition(kv, false); p != nil {
				parts = append(parts, p)
			}
		}
		keyOrder = true
	} else {
		parts = t.data.order
	}
	returned := int64(0)
	var ppStart int64
	startIdx := 0
	if ps != nil {
		returned = ps.returned
		startIdx = -1
		for i, p := range parts {
			if string(p.key) == string(ps.key) {
				startIdx = i
				break
			}
		}
		if startIdx < 0 {
			if keyOrder {
				startIdx = len(parts)
			} else {
				probe := &partition{key: ps.key, token: murmur3Token(ps.key)}
				startIdx = sort.Search(len(parts), func(i int) bool { return partitionLess(probe, parts[i]) })
			}
		} else {
			ppStart = ps.ppCount
		}
	}
	var out []outRow
	want := int64(-1) // rows to collect before stopping (page size + 1 to detect more)
	if pageSize > 0 && !s.postOrder {
		want = pageSize + 1
	}
	remaining := int64(-1)
	if limit > 0 && !s.aggregate { // an aggregate's LIMIT bounds its output rows, not its input
		remaining = limit - returned
		if remaining <= 0 {
			return s.emptyOrAggregate(t, nil, ctx, multiKeys)
		}
	}
	lastPP := int64(0)
	ppCounts := []int64{}
scan:
	for pi := startIdx; pi < len(parts); pi++ {
		p := parts[pi]
		var pp int64
		skipThrough := false
		if ps != nil && pi == startIdx && string(p.key) == string(ps.key) {
			pp = ppStart
			if ps.static {
				continue
			}
			skipThrough = true
		}
		match := func(vals [][]byte) bool {
			for _, rr := range rrs {
				if !rr.matches(vals, p.token) {
					return false
				}
			}
			return true
		}
		if s.distinct {
			if skipThrough {
				continue
			}
			live := staticLive(p, now)
			if !live {
				for _, r := range p.rows {
					if rowLive(r, p, now) {
						live = true
						break
					}
				}
			}
			if live {
				vals := t.rowValues(p, nil, now)
				if match(vals) {
					out = append(out, outRow{p: p, vals: vals})
					ppCounts = append(ppCounts, 1)
				}
			}
		} else {
			emitted := false
			n := len(p.rows)
			for k := 0; k < n; k++ {
				r := p.rows[k]
				if s.reversed {
					r = p.rows[n-1-k]
				}
				if skipThrough {
					c := t.compareClustering(r.ck, ps.ck)
					if s.reversed {
						c = -c
					}
					if c <= 0 {
						continue
					}
				}
				if !rowLive(r, p, now) {
					continue
				}
				vals := t.rowValues(p, r, now)
				if !match(vals) {
					continue
				}
				if rowPPL > 0 && pp >= rowPPL {
					break
				}
				pp++
				emitted = true
				out = append(out, outRow{p: p, r: r, vals: vals})
				ppCounts = append(ppCounts, pp)
				if remaining > 0 && int64(len(out)) >= remaining && !s.postOrder {
					break scan
				}
				if want > 0 && int64(len(out)) >= want {
					break scan
				}
			}
			if !emitted && !skipThrough && !s.ckRestricted && len(t.ck) > 0 && staticLive(p, now) && !rowsAnyLive(p, now) {
				vals := t.rowValues(p, nil, now)
				if match(vals) {
					out = append(out, outRow{p: p, vals: vals})
					ppCounts = append(ppCounts, 1)
				}
			}
		}
		if remaining > 0 && int64(len(out)) >= remaining && !s.postOrder {
			break
		}
		if want > 0 && int64(len(out)) >= want {
			break
		}
	}
	if s.postOrder {
		sort.SliceStable(out, func(i, j int) bool {
			ci, cj := out[i].r, out[j].r
			if ci == nil || cj == nil {
				return ci == nil && cj != nil
			}
			c := t.compareClustering(ci.ck, cj.ck)
			if s.reversed {
				c = -c
			}
			return c < 0
		})
	}
	if remaining > 0 && int64(len(out)) > remaining {
		out = out[:remaining]
		ppCounts = ppCounts[:remaining]
	}
	if groupPageSize > 0 {
		var carry []byte
		if ps != nil && startIdx < len(parts) && string(parts[startIdx].key) == string(ps.key) {
			carry = ps.key
		}
		return s.groupPage(t, out, ctx, multiKeys, groupPageSize, returned, carry, ppStart, finalKey)
	}
	if s.aggregate {
		return s.emptyOrAggregate(t, out, ctx, multiKeys)
	}
	res := &Result{Kind: ResultRows, Columns: s.cols}
	// Like Cassandra's pagers, a full page always carries a paging state (the next page may be
	// empty) unless the LIMIT is reached.
	more := false
	if pageSize > 0 && int64(len(out)) >= pageSize {
		out = out[:pageSize]
		more = true
	}
	if pageSize > 0 && int64(len(out)) == pageSize && remaining > 0 && returned+pageSize >= limit {
		more = false
	}
	for _, r := range out {
		row, err := s.project(ctx, t, r)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, row)
	}
	if more && len(out) > 0 {
		last := out[len(out)-1]
		lastPP = ppCounts[len(out)-1]
		if finalKey != nil && string(last.p.key) == string(finalKey) && (last.r == nil || s.distinct || (ppl > 0 && lastPP >= ppl)) {
			more = false // done: the last partition's reader knows it has nothing more, as Cassandra's does
		}
	}
	if more && len(out) > 0 {
		last := out[len(out)-1]
		st := &pagingState{key: last.p.key, returned: returned + int64(len(out)), ppCount: lastPP}
		if last.r != nil {
			st.ck = last.r.ck
		} else {
			st.static = true
		}
		if s.distinct {
			st.static = true
		}
		res.PagingState = st.encode()
	}
	return res, nil
}

func rowsAnyLive(p *partition, now int64) bool {
	for _, r := range p.rows {
		if rowLive(r, p, now) {
			return true
		}
	}
	return false
}

// project computes the selected values of one row.
func (s *selectPlan) project(ctx *evalCtx, t *table, r outRow) ([][]byte, error) {
	vals := make([][]byte, len(s.items))
	for i := range s.items {
		v, err := s.evalItem(ctx, &s.items[i], r)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// cellTime is the answer of a writetime() or ttl() selector for a cell written at ts that
// expires at exp (0: never): the timestamp, or the seconds left (null without a TTL).
func (it *selItem) cellTime(ts, exp, now int64) []byte {
	switch {
	case it.kind == selWritetime:
		return binary.BigEndian.AppendUint64(nil, uint64(ts))
	case exp != 0:
		return binary.BigEndian.AppendUint32(nil, uint32(int32(exp-now)))
	}
	return nil
}

// cellTimes is the answer of a writetime() or ttl() selector for the live cell c of its column:
// of a non-frozen collection or user type, one value per element, or per field of the type
// (null for a field without a cell), or the value of the selected field's cell; of another
// column, or a field of a frozen user type that is not null, the value of the cell.
func (it *selItem) cellTimes(c *cell, floor, now int64) []byte {
	ty := it.col.typ
	if !ty.multiCell() {
		if it.field >= 0 {
			if fs, err := decodeFields(c.v, len(ty.elems)); err != nil || fs[it.field] == nil {
				return nil
			}
		}
		return it.cellTime(c.ts, c.exp, now)
	}
	es, _ := liveElems(ty, c, floor, now)
	if len(es) == 0 {
		return nil
	}
	if it.maxTime && it.field < 0 {
		latest := es[0].ts
		for _, e := range es {
			latest = max(latest, e.ts)
		}
		return it.cellTime(latest, 0, now)
	}
	if ty.code != primitive.DataTypeCodeUdt {
		out := make([][]byte, len(es))
		for i, e := range es {
			out[i] = it.cellTime(e.ts, e.exp, now)
		}
		return encodeElems(out)
	}
	out := make([][]byte, len(ty.elems))
	for _, e := range es {
		out[fieldAt(e.key)] = it.cellTime(e.ts, e.exp, now)
	}
	if it.field >= 0 {
		return out[it.field]
	}
	return encodeElems(out)
}

// evalItem computes one selector on a row (aggregates are computed elsewhere).
func (s *selectPlan) evalItem(ctx *evalCtx, it *selItem, r outRow) ([]byte, error) {
	now := ctx.now.Unix()
	switch it.kind {
	case selCol:
		return r.vals[it.col.idx], nil
	case selField:
		if v := r.vals[it.col.idx]; v != nil {
			if fs, err := decodeFields(v, len(it.col.typ.elems)); err == nil {
				return fs[it.field], nil
			}
		}
	case selToken:
		return binary.BigEndian.AppendUint64(nil, uint64(r.p.token)), nil
	case selWritetime, selTTL:
		var c *cell
		floor := r.p.deletedAt
		if it.col.kind == kindStatic {
			c = &r.p.static[it.col.idx]
		} else if r.r != nil {
			c = &r.r.cells[it.col.idx]
			floor = max(floor, r.r.deletedAt)
		}
		if c == nil || cellValue(c, floor, now) == nil {
			return nil, nil
		}
		if len(it.args) == 1 {
			return s.elementTime(ctx, it, r, c, floor, now)
		}
		return it.cellTimes(c, floor, now), nil
	case selConst:
		if it.term == nil { // an open slice bound
			return nil, nil
		}
		v, err := ctx.evalTerm(it.term, it.typ, it.name)
		return v.b, err
	case selElem:
		return s.evalElement(ctx, it, r)
	case selCast:
		v, err := s.evalItem(ctx, &it.args[0], r)
		if err != nil {
			return nil, err
		}
		return castValue(it.castFrom, it.typ, v)
	case selFunc:
		args := make([]fnValue, len(it.args))
		for i := range it.args {
			v, err := s.evalItem(ctx, &it.args[i], r)
			if err != nil {
				return nil, err
			}
			args[i] = fnValue{typ: it.args[i].typ, b: v}
		}
		v, err := ctx.e.callFunction(ctx.now, it.fn, args)
		return v.b, err
	}
	return nil, nil
}

// analyseElementSelector types c[key] and c[from..to] on a map or set column c: an element
// has the type of the map's values (of the set's elements), a slice the column's type.
func analyseElementSelector(t *table, s *cql.Selector) (*selItem, error) {
	inner, err := analyseSelector(t, s.Args[0])
	if err != nil {
		return nil, err
	}
	if inner.kind != selCol {
		return nil, unsupported("element selection on " + s.Args[0].Raw)
	}
	ct := inner.typ
	switch ct.code {
	case primitive.DataTypeCodeMap, primitive.DataTypeCodeSet:
	case primitive.DataTypeCodeList:
		return nil, invalid("Element selection is only allowed on sets and maps, but %s is a list", inner.name)
	default:
		return nil, invalid("Invalid element selection: %s is of type %s is not a collection", inner.name, ct.plainString())
	}
	keyType, elemType := ct.elem, ct.elem
	if ct.code == primitive.DataTypeCodeMap {
		keyType, elemType = ct.key, ct.val
	}
	it := &selItem{kind: selElem, col: inner.col, typ: elemType, name: s.Raw}
	bounds := []*cql.Term{s.Term}
	if s.Slice {
		it.typ, bounds = ct, []*cql.Term{s.From, s.To}
	}
	for _, b := range bounds {
		if b != nil && b.Kind == cql.TermBind {
			return nil, unsupported("bind markers in element selections")
		}
		it.args = append(it.args, selItem{kind: selConst, term: b, typ: keyType, name: "key(" + inner.name + ")"})
	}
	return it, nil
}

// evalElement computes c[key] (nil when c has no such key) or c[from..to] (the entries whose
// keys are within the bounds, both included; nil when none is) on row r.
func (s *selectPlan) evalElement(ctx *evalCtx, it *selItem, r outRow) ([]byte, error) {
	bounds := make([][]byte, len(it.args))
	for i := range it.args {
		b, err := s.evalItem(ctx, &it.args[i], r)
		if err != nil {
			return nil, err
		}
		bounds[i] = b
	}
	ct := it.col.typ
	keyType := it.args[0].typ
	keys, vals := collectionEntries(ct, r.vals[it.col.idx])
	if len(bounds) == 1 { // an element
		if bounds[0] == nil {
			return nil, invalid("Invalid null value for %s", it.args[0].name)
		}
		for i, k := range keys {
			if compareValues(keyType, k, bounds[0]) == 0 {
				if ct.code == primitive.DataTypeCodeMap {
					return vals[i], nil
				}
				return k, nil
			}
		}
		return nil, nil
	}
	var sk, sv [][]byte
	for i, k := range keys {
		if (bounds[0] == nil || compareValues(keyType, k, bounds[0]) >= 0) && (bounds[1] == nil || compareValues(keyType, k, bounds[1]) <= 0) {
			sk = append(sk, k)
			if vals != nil {
				sv = append(sv, vals[i])
			}
		}
	}
	return encodeEntries(ct, sk, sv), nil
}

// analyseFuncSelector types a native scalar function used in a selection.
func analyseFuncSelector(t *table, s *cql.Selector) (*selItem, error) {
	var args []selItem
	known := make([]*ctype, len(s.Args))
	for i, a := range s.Args {
		if a.Kind == cql.SelTerm {
			if a.Term.Kind == cql.TermUUID {
				known[i] = tTimeUUID
			}
			args = append(args, selItem{kind: selConst, term: a.Term})
			continue
		}
		it, err := analyseSelector(t, a)
		if err != nil {
			return nil, err
		}
		if it.aggregate() {
			return nil, unsupported("aggregates as function arguments")
		}
		known[i] = it.typ
		args = append(args, *it)
	}
	switch s.Name {
	case "fromjson":
		return nil, invalid("fromjson() cannot be used in the selection clause of a SELECT statement")
	case "tojson":
		// a literal argument has the type its kind says
		if len(s.Args) == 1 && known[0] == nil && s.Args[0].Kind == cql.SelTerm {
			known[0] = map[cql.TermKind]*ctype{cql.TermInteger: tInt, cql.TermFloat: native(primitive.DataTypeCodeDouble),
				cql.TermString: tText, cql.TermBool: native(primitive.DataTypeCodeBoolean)}[s.Args[0].Term.Kind]
		}
	}
	if isSimilarity(s.Name) {
		for i, a := range s.Args {
			if known[i] == nil && a.Kind == cql.SelTerm && a.Term.Kind == cql.TermList {
				// a vector literal: its length is its dimension
				known[i] = &ctype{code: kindVector, elem: native(primitive.DataTypeCodeFloat), dim: len(a.Term.Elems), frozen: true}
			}
			if known[i] != nil {
				shown := a.Raw
				if a.Kind == cql.SelCast {
					shown = args[i].name // Cassandra shows a cast by its column name
				}
				if err := floatVector(s.Name, shown, known[i]); err != nil {
					return nil, err
				}
			}
		}
	}
	params, result, err := functionSignature(s.Name, known)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(args))
	for i := range args {
		if args[i].kind == selConst {
			args[i].typ = params[i]
			args[i].name = s.Args[i].Raw
			switch args[i].term.Kind {
			case cql.TermList:
				args[i].name = termCQL(args[i].term) // [1.0, 2.0], as Cassandra names it
			case cql.TermNull:
				args[i].name = "NULL"
			}
			names[i] = args[i].name
		} else {
			names[i] = args[i].name
		}
	}
	return &selItem{kind: selFunc, fn: s.Name, args: args, typ: result, name: "system." + s.Name + "(" + strings.Join(names, ", ") + ")"}, nil
}

// emptyOrAggregate builds the single-row result of an aggregate query (or an empty result).
// Aggregates (GROUP BY included) over several partitions carry Cassandra's warnings: without a
// restriction on the partition key, or with an IN naming several keys (multiKeys).
func (s *selectPlan) emptyOrAggregate(t *table, rows []outRow, ctx *evalCtx, multiKeys bool) (*Result, error) {
	res := &Result{Kind: ResultRows, Columns: s.cols}
	if !s.aggregate {
		return res, nil
	}
	switch {
	case !s.pkAny:
		res.Warnings = []string{"Aggregation query used without partition key"}
	case multiKeys:
		res.Warnings = []string{"Aggregation query used on multiple partition keys (IN restriction)"}
	}
	if s.groupBy != nil {
		limit, hasLimit, err := evalLimit(ctx, s.limit)
		if err != nil {
			return nil, err
		}
		runs, err := s.groupRuns(ctx, rows, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, g := range runs {
			vals, err := s.aggregateRow(ctx, t, rows[g.start:g.end])
			if err != nil {
				return nil, err
			}
			res.Rows = append(res.Rows, vals)
			if hasLimit && int64(len(res.Rows)) >= limit {
				break
			}
		}
		return res, nil
	}
	vals, err := s.aggregateRow(ctx, t, rows)
	if err != nil {
		return nil, err
	}
	res.Rows = [][][]byte{vals}
	return res, nil
}

// aggregateRow computes the aggregates of a group of rows; other selectors take the values of
// the group's first row.
func (s *selectPlan) aggregateRow(ctx *evalCtx, t *table, rows []outRow) ([][]byte, error) {
	vals := make([][]byte, len(s.items))
	var first [][]byte
	if len(rows) > 0 {
		var err error
		if first, err = s.project(ctx, t, rows[0]); err != nil {
			return nil, err
		}
	}
	for i, it := range s.items {
		switch it.kind {
		case selCount:
			vals[i] = binary.BigEndian.AppendUint64(nil, uint64(len(rows)))
		case selCountCol:
			n := 0
			for _, r := range rows {
				if r.vals[it.col.idx] != nil {
					n++
				}
			}
			vals[i] = binary.BigEndian.AppendUint64(nil, uint64(n))
		case selMin, selMax:
			var best []byte
			for _, r := range rows {
				v := r.vals[it.col.idx]
				if v == nil {
					continue
				}
				c := compareValues(it.col.typ, v, best)
				if best == nil || (it.kind == selMin && c < 0) || (it.kind == selMax && c > 0) {
					best = v
				}
			}
			vals[i] = best
		case selSum, selAvg:
			if code := it.col.typ.code; code == primitive.DataTypeCodeFloat || code == primitive.DataTypeCodeDouble {
				vals[i] = floatAggregate(&it, rows)
				continue
			}
			vals[i] = bigAggregate(&it, rows)
		default:
			if first != nil {
				vals[i] = first[i]
			}
		}
	}
	return vals, nil
}

// floatAggregate is sum() or avg() of a float or double column, of the column's type: like
// Cassandra, it adds in double precision with compensated (Kahan) summation, skips nulls, and
// gives 0 for no values.
func floatAggregate(it *selItem, rows []outRow) []byte {
	double := it.col.typ.code == primitive.DataTypeCodeDouble
	var sum, comp float64
	n := 0
	for _, r := range rows {
		v := r.vals[it.col.idx]
		var x float64
		switch {
		case double && len(v) == 8:
			x = math.Float64frombits(binary.BigEndian.Uint64(v))
		case !double && len(v) == 4:
			x = float64(math.Float32frombits(binary.BigEndian.Uint32(v)))
		default:
			continue // null or empty
		}
		y := x - comp
		t := sum + y
		comp = (t - sum) - y
		sum = t
		n++
	}
	if it.kind == selAvg && n > 0 {
		sum /= float64(n)
	}
	if double {
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(sum))
	}
	return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(sum)))
}

// sameGroup reports whether two rows share their GROUP BY key.
func (s *selectPlan) sameGroup(a, b outRow) bool {
	for _, c := range s.groupBy {
		if compareValues(c.typ, a.vals[c.idx], b.vals[c.idx]) != 0 {
			return false
		}
	}
	return true
}

// analyseGroupBy checks GROUP BY: primary key columns in their declared order, where columns
// restricted by an equality may be left out.
func (s *selectPlan) analyseGroupBy(names []string) error {
	key := append(append([]*column{}, s.t.pk...), s.t.ck...)
	eqRestricted := map[*column]bool{}
	for _, r := range s.rels {
		if len(r.cols) == 1 && r.op == cql.OpEq && !r.token {
			eqRestricted[r.cols[0]] = true
		}
	}
	pos := 0
	for _, n := range names {
		c, err := s.t.column(n)
		if err != nil {
			return err
		}
		if c.kind != kindPartitionKey && c.kind != kindClustering {
			return invalid("Group by is currently only supported on the columns of the PRIMARY KEY, got %s", n)
		}
		for pos < len(key) && key[pos] != c && eqRestricted[key[pos]] {
			pos++
		}
		if pos >= len(key) || key[pos] != c {
			return invalid("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
		}
		pos++
	}
	if pos < len(s.t.pk) {
		return invalid("Group by is not supported on only a part of the partition key")
	}
	s.groupBy = key[:pos]
	s.aggregate = true
	return nil
}

func signedInt(b []byte) int64 {
	switch len(b) {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.BigEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.BigEndian.Uint32(b)))
	case 8:
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func encodeIntOfSize(v int64, size int) []byte {
	switch size {
	case 1:
		return []byte{byte(v)}
	case 2:
		return binary.BigEndian.AppendUint16(nil, uint16(v))
	case 4:
		return binary.BigEndian.AppendUint32(nil, uint32(v))
	}
	return binary.BigEndian.AppendUint64(nil, uint64(v))
}

// distinctKeys counts the distinct partition keys among combos (IN may repeat a key).
func distinctKeys(combos [][][]byte) int {
	seen := map[string]bool{}
	for _, kv := range combos {
		seen[string(serializePartitionKey(kv))] = true
	}
	return len(seen)
}
