package engine

import (
	"bytes"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// rel is an analysed WHERE relation.
type rel struct {
	cols  []*column
	token bool
	op    cql.Operator
	val   *boundTerm
	in    []*boundTerm
	tokFn bool // token(k) op token(v...): val holds the args
	args  []*boundTerm
	key   *boundTerm // opEntryEq: the map key (val is the entry's value)
	// tuple1: a single column in tuple notation, (c) op (v): the values are one-element tuples,
	// unwrapped when resolved, after which the relation is an ordinary single-column one
	tuple1 bool
}

// opEntryEq is the operator of a map entry restriction, m[key] = value.
const opEntryEq cql.Operator = "[]="

// resolvedRel is a relation with its values evaluated.
type resolvedRel struct {
	*rel
	v   []byte   // single value (tuple-encoded for multi-column)
	vs  [][]byte // IN values
	tok int64
	key []byte // opEntryEq's map key
	// none: the relation selects nothing (a slice of a clustering column with a null bound,
	// which Cassandra answers with no rows)
	none bool
}

// colRestr is what the relations seen so far restrict one column by (analyseWhere).
type colRestr struct {
	eq, in, start, end bool
	sliceFirst         *column // with start or end: the first column of the slice's relation
}

// merge checks the relation r, on the columns cols, against what the relations before it
// restrict each column by, and records it, with Cassandra 5.0's messages: a column restricted
// by = or IN takes no other relation; a slice takes no = or IN after it, one bound of each
// side, and a second slice only in a relation that starts at the same column.
func mergeRestriction(seen map[*column]*colRestr, cols []*column, op cql.Operator) error {
	eqLike := op == cql.OpEq || op == cql.OpIn
	for _, c := range cols {
		cr := seen[c]
		switch {
		case cr == nil:
			cr = &colRestr{}
			seen[c] = cr
		case cr.eq || cr.in:
			return invalid("%s cannot be restricted by more than one relation if it includes an Equal", multiNames(cols, c))
		case eqLike && (cr.start || cr.end):
			return invalid("Column \"%s\" cannot be restricted by both an equality and an inequality relation", c.name)
		case op == cql.OpEq:
			return invalid("%s cannot be restricted by more than one relation if it includes an Equal", c.name)
		case op == cql.OpIn:
			return invalid("%s cannot be restricted by more than one relation if it includes a IN", c.name)
		}
		switch op {
		case cql.OpEq:
			cr.eq = true
		case cql.OpIn:
			cr.in = true
		case cql.OpGt, cql.OpGe, cql.OpLt, cql.OpLe:
			if cr.sliceFirst != nil && cr.sliceFirst != cols[0] {
				return invalid("Column \"%s\" cannot be restricted by two inequalities not starting with the same column", c.name)
			}
			start := op == cql.OpGt || op == cql.OpGe
			if start && cr.start {
				return invalid("More than one restriction was found for the start bound on %s", multiNames(cols, c))
			}
			if !start && cr.end {
				return invalid("More than one restriction was found for the end bound on %s", multiNames(cols, c))
			}
			cr.start = cr.start || start
			cr.end = cr.end || !start
			cr.sliceFirst = cols[0]
		}
	}
	return nil
}

// isSlice reports whether op restricts a range: <, <=, > or >=.
func isSlice(op cql.Operator) bool {
	return op == cql.OpGt || op == cql.OpGe || op == cql.OpLt || op == cql.OpLe
}

// sliceOrder is Cassandra 5.0's rule on the order of clustering restrictions, which it checks
// as it takes them in WHERE order when a statement does not allow filtering: after a slice, no
// relation may restrict a column that comes later in the clustering key, and no slice may come
// for a column earlier than one restricted already. A relation that an index serves is exempt,
// but then the statement filters.
type sliceOrder struct {
	indexed   func(c *column, op cql.Operator) bool // nil: no index serves any relation
	last      *column                               // first column of the relation reaching furthest in the clustering key
	lastEnd   int                                   // the furthest clustering position restricted so far
	lastSlice bool                                  // that restriction is a slice
	filtering bool                                  // an indexed relation was exempt: the statement filters
}

// add checks the relation op on the clustering columns cols (in clustering order).
func (o *sliceOrder) add(cols []*column, op cql.Operator) error {
	first, end := cols[0], cols[len(cols)-1].pos
	slice := isSlice(op)
	var err error
	switch {
	case o.last == nil:
	case o.lastSlice && first.pos > o.last.pos:
		err = invalid("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", first.name, o.last.name)
	case slice && first.pos < o.last.pos:
		err = invalid("PRIMARY KEY column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", o.last.name, first.name)
	}
	if err != nil {
		if len(cols) > 1 || o.indexed == nil || !o.indexed(first, op) {
			return err
		}
		o.filtering = true // an index serves the relation: the statement filters instead
	}
	switch {
	case o.last == nil || end > o.lastEnd:
		o.last, o.lastEnd, o.lastSlice = first, end, slice
	case end == o.lastEnd && slice:
		o.lastSlice = true
	}
	return nil
}

// analyseWhere checks and binds WHERE relations of table t. With order, the clustering
// restrictions are also checked against Cassandra's rule on their order (see sliceOrder).
func analyseWhere(t *table, rels []cql.Relation, bd *binder, order *sliceOrder) ([]*rel, error) {
	var out []*rel
	seen := map[*column]*colRestr{}
	var tokRestr *colRestr // what token() relations restrict so far
	for i := range rels {
		r := &rels[i]
		ar := &rel{op: r.Op, token: r.Token}
		for _, n := range r.Columns {
			c, err := t.column(n)
			if err != nil {
				return nil, err
			}
			ar.cols = append(ar.cols, c)
		}
		switch {
		case r.Token:
			if len(ar.cols) != len(t.pk) {
				return nil, invalid("The token() function must be applied to all partition key components or none of them")
			}
			for i, c := range ar.cols {
				if c != t.pk[i] {
					names := pkNames(t)
					return nil, invalid("The token function arguments must be in the partition key order: %s", names[1:len(names)-1])
				}
			}
			if r.Op == cql.OpIn {
				return nil, invalid("IN is not supported with token restrictions")
			}
			if tokRestr == nil {
				tokRestr = &colRestr{}
			}
			if err := tokRestr.mergeToken(r.Op, strings.Join(r.Columns, ", ")); err != nil {
				return nil, err
			}
			if r.Value.Kind == cql.TermFunc && r.Value.Text == "token" {
				ar.tokFn = true
				for i, a := range r.Value.Elems {
					if i < len(t.pk) {
						ar.args = append(ar.args, bd.bind(a, t.pk[i].typ, t.pk[i].name))
					}
				}
				if len(ar.args) != len(t.pk) {
					return nil, invalid("Invalid number of arguments in call to function system.token: %d required but %d provided", len(t.pk), len(r.Value.Elems))
				}
			} else {
				ar.val = bd.bind(r.Value, tBigint, "partition key token")
			}
		case len(ar.cols) > 1 || r.Tuple:
			tt := &ctype{code: primitive.DataTypeCodeTuple, frozen: true}
			names := make([]string, len(ar.cols))
			for i, c := range ar.cols {
				if c.kind != kindClustering {
					return nil, invalid("Multi-column relations can only be applied to clustering columns but was applied to: %s", c.name)
				}
				for _, prev := range ar.cols[:i] {
					if prev == c {
						return nil, invalid("Column \"%s\" appeared twice in a relation: %s", c.name, relationCQL(r))
					}
				}
				if i > 0 && c.pos != ar.cols[i-1].pos+1 {
					return nil, invalid("Clustering columns must appear in the PRIMARY KEY order in multi-column relations: %s", relationCQL(r))
				}
				tt.elems = append(tt.elems, c.typ)
				names[i] = c.name
			}
			if r.Op == cql.OpNe {
				return nil, invalid("Unsupported \"!=\" relation: %s", relationCQL(r))
			}
			name := "(" + strings.Join(names, ",") + ")"
			// markers inside a tuple literal are named after their column
			bindTuple := func(v *cql.Term) (*boundTerm, error) {
				if v.Kind == cql.TermTuple && len(v.Elems) != len(ar.cols) {
					return nil, invalid("Expected %d elements in value tuple, but got %d: %s", len(ar.cols), len(v.Elems), termCQL(v))
				}
				if v.Kind == cql.TermTuple && len(ar.cols) == 1 {
					// (c) op (v): the element is bound as a value of c, as c op v binds it
					return bd.bind(v.Elems[0], ar.cols[0].typ, ar.cols[0].name), nil
				}
				if v.Kind == cql.TermTuple {
					for i, e := range v.Elems {
						bd.register(e, ar.cols[i].typ, ar.cols[i].name)
					}
					return &boundTerm{t: v, ty: tt, name: name}, nil
				}
				return bd.bind(v, tt, name), nil
			}
			ar.tuple1 = len(ar.cols) == 1
			if r.Op == cql.OpIn {
				if r.Value != nil {
					ar.val = bd.bind(r.Value, listOf(tt), "in"+name)
				}
				for _, v := range r.In {
					b, err := bindTuple(v)
					if err != nil {
						return nil, err
					}
					ar.in = append(ar.in, b)
				}
			} else {
				b, err := bindTuple(r.Value)
				if err != nil {
					return nil, err
				}
				ar.val = b
			}
		case r.Key != nil:
			if err := bindEntry(ar, r, bd); err != nil {
				return nil, err
			}
		default:
			c := ar.cols[0]
			if c.typ.multiCell() && c.typ.code == primitive.DataTypeCodeUdt && (r.Op == cql.OpIn || r.Op == cql.OpEq || isSlice(r.Op)) {
				return nil, invalid("Non-frozen UDT column '%s' (%s) cannot be restricted by any relation", c.name, c.typ.String())
			}
			switch r.Op {
			case cql.OpIn:
				if r.Value != nil {
					ar.val = bd.bind(r.Value, listOf(c.typ), "in("+c.name+")")
				}
				for _, v := range r.In {
					ar.in = append(ar.in, bd.bind(v, c.typ, c.name))
				}
			case cql.OpContains:
				if !c.typ.isCollection() {
					return nil, invalid("Cannot use CONTAINS on non-collection column %s", c.name)
				}
				et := c.typ.elem
				if c.typ.code == primitive.DataTypeCodeMap {
					et = c.typ.val
				}
				ar.val = bd.bind(r.Value, et, "value("+c.name+")")
			case cql.OpContKey:
				if c.typ.code != primitive.DataTypeCodeMap {
					return nil, invalid("Cannot use CONTAINS KEY on non-map column %s", c.name)
				}
				ar.val = bd.bind(r.Value, c.typ.key, "key("+c.name+")")
			case cql.OpLike:
				return nil, unsupported("LIKE restrictions")
			default:
				if c.typ.multiCell() && r.Op == cql.OpEq {
					return nil, invalid("Collection column '%s' (%s) cannot be restricted by a '=' relation", c.name, c.typ.String())
				}
				if r.Op == cql.OpNe {
					return nil, invalid("Unsupported \"!=\" relation: %s != %s", c.name, termText(r.Value))
				}
				ar.val = bd.bind(r.Value, c.typ, c.name)
			}
		}
		// As Cassandra, a relation is checked against those before it once it is valid itself.
		if !r.Token && r.Key == nil && len(ar.cols) > 0 && (len(ar.cols) == 1 || allClustering(ar.cols)) {
			if err := mergeRestriction(seen, ar.cols, r.Op); err != nil {
				return nil, err
			}
			if order != nil && allClustering(ar.cols) {
				if err := order.add(ar.cols, r.Op); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, ar)
	}
	return out, nil
}

// bindEntry checks and binds the map entry restriction r (m[key] = value) into ar, as
// Cassandra 5.0 allows it: equality on an entry of a map that is not frozen.
func bindEntry(ar *rel, r *cql.Relation, bd *binder) error {
	c := ar.cols[0]
	switch {
	case c.typ.code == primitive.DataTypeCodeList:
		return invalid("Indexes on list entries (%s[index] = value) are not currently supported.", c.name)
	case c.typ.code != primitive.DataTypeCodeMap:
		return invalid("Column %s cannot be used as a map", c.name)
	case c.typ.frozen:
		return invalid("Map-entry equality predicates on frozen map column %s are not supported", c.name)
	case r.Op != cql.OpEq:
		return invalid("Only EQ relations are supported on map entries")
	}
	ar.op = opEntryEq
	ar.key = bd.bind(r.Key, c.typ.key, "key("+c.name+")")
	ar.val = bd.bind(r.Value, c.typ.val, "value("+c.name+")")
	return nil
}

func termText(t *cql.Term) string { return termCQL(t) }

// relationCQL renders a relation on columns in parentheses back to CQL, as Cassandra quotes it
// in messages: (a, b) = (1, 2).
func relationCQL(r *cql.Relation) string {
	value := termCQL(r.Value)
	if r.Op == cql.OpIn && r.Value == nil {
		parts := make([]string, len(r.In))
		for i, v := range r.In {
			parts[i] = termCQL(v)
		}
		value = "(" + strings.Join(parts, ", ") + ")"
	}
	return "(" + strings.Join(r.Columns, ", ") + ") " + string(r.Op) + " " + value
}

// tuple1Null is Cassandra's answer to a null in a relation (c) op (v).
func tuple1Null(r *rel) error {
	if r.op == cql.OpEq || r.op == cql.OpIn {
		return invalid("Invalid null value for column %s", r.cols[0].name)
	}
	return invalid("Invalid null value in condition for column %s", r.cols[0].name)
}

// unwrapTuple1 turns the resolved values of a relation (c) op (v) into the values of the
// single-column relation c op v: a value bound to a marker is a one-element tuple.
func unwrapTuple1(rr *resolvedRel) error {
	elem := func(b []byte, bt *boundTerm) ([]byte, error) {
		if bt != nil && bt.ty.code != primitive.DataTypeCodeTuple {
			return b, nil // a literal, bound as a value of c
		}
		fs, err := decodeFields(b, 1)
		if err != nil {
			return nil, invalid("Invalid tuple value for column %s: %v", rr.cols[0].name, err)
		}
		if fs[0] == nil {
			return nil, tuple1Null(rr.rel)
		}
		return fs[0], nil
	}
	var err error
	if rr.op != cql.OpIn {
		rr.v, err = elem(rr.v, rr.val)
		return err
	}
	for i, v := range rr.vs {
		var bt *boundTerm // nil: an element of a list bound to one marker
		if rr.val == nil {
			bt = rr.in[i]
		}
		if rr.vs[i], err = elem(v, bt); err != nil {
			return err
		}
	}
	return nil
}

func pkNames(t *table) string {
	names := make([]string, len(t.pk))
	for i, c := range t.pk {
		names[i] = c.name
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// resolve evaluates the values of relations.
func resolveRels(rels []*rel, ctx *evalCtx) ([]*resolvedRel, error) {
	out := make([]*resolvedRel, 0, len(rels))
	for _, r := range rels {
		rr := &resolvedRel{rel: r}
		colName := func() string {
			if r.token {
				return "partition key token"
			}
			return r.cols[0].name
		}
		switch {
		case r.tokFn:
			parts := make([][]byte, len(r.args))
			for i, a := range r.args {
				v, err := a.eval(ctx)
				if err != nil {
					return nil, err
				}
				if v.b == nil {
					return nil, invalid("Invalid null value for partition key part %s", a.name)
				}
				parts[i] = v.b
			}
			rr.tok = murmur3Token(serializePartitionKey(parts))
		case r.op == cql.OpIn && r.val != nil:
			v, err := r.val.eval(ctx)
			if err != nil {
				return nil, err
			}
			if v.unset {
				return nil, invalid("Invalid unset value for column %s", colName())
			}
			if v.b == nil {
				return nil, invalid("Invalid null value for column %s", colName())
			}
			elems, derr := decodeElems(v.b)
			if derr != nil {
				return nil, invalid("Invalid IN list for column %s: %v", colName(), derr)
			}
			rr.vs = elems
		case r.op == cql.OpIn:
			for _, b := range r.in {
				v, err := b.eval(ctx)
				if err != nil {
					return nil, err
				}
				if v.unset {
					return nil, invalid("Invalid unset value for column %s", colName())
				}
				if v.b == nil {
					if r.tuple1 {
						return nil, tuple1Null(r)
					}
					if filtered(r) {
						continue // a filter's IN list drops its nulls
					}
					return nil, invalid("Invalid null value in condition for column %s", colName())
				}
				rr.vs = append(rr.vs, v.b)
			}
			if filtered(r) && len(rr.vs) == 0 {
				return nil, invalid("Unsupported null value for column %s", colName())
			}
		default:
			v, err := r.val.eval(ctx)
			if err != nil {
				return nil, err
			}
			if v.unset {
				return nil, invalid("Invalid unset value for column %s", colName())
			}
			if v.b == nil {
				if r.token {
					return nil, invalid("Invalid null value for partition key token")
				}
				if r.key != nil {
					return nil, invalid("Unsupported null map value for column %s", colName())
				}
				if r.tuple1 {
					return nil, tuple1Null(r)
				}
				if filtered(r) {
					return nil, invalid("Unsupported null value for column %s", colName())
				}
				if len(r.cols) == 1 && r.cols[0].kind == kindClustering && isSlice(r.op) {
					rr.none = true
					out = append(out, rr)
					continue
				}
				return nil, invalid("Invalid null value in condition for column %s", colName())
			}
			rr.v = v.b
			if r.key != nil {
				k, err := r.key.eval(ctx)
				if err != nil {
					return nil, err
				}
				if k.b == nil || k.unset {
					return nil, invalid("Unsupported null map key for column %s", r.cols[0].name)
				}
				rr.key = k.b
			}
			if r.token {
				if len(v.b) != 8 {
					return nil, invalid("Expected 8 or 0 byte long (%d)", len(v.b))
				}
				rr.tok = int64(beUint64(v.b))
			}
		}
		if r.tuple1 {
			if err := unwrapTuple1(rr); err != nil {
				return nil, err
			}
		}
		out = append(out, rr)
	}
	return out, nil
}

func beUint64(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

func opMatches(op cql.Operator, c int) bool {
	switch op {
	case cql.OpEq:
		return c == 0
	case cql.OpNe:
		return c != 0
	case cql.OpLt:
		return c < 0
	case cql.OpLe:
		return c <= 0
	case cql.OpGt:
		return c > 0
	case cql.OpGe:
		return c >= 0
	}
	return false
}

// matches reports whether a row (values in t.cols order) satisfies the relation.
func (rr *resolvedRel) matches(vals [][]byte, token int64) bool {
	if rr.none {
		return false
	}
	if rr.token {
		return opMatches(rr.op, cmpInt(token, rr.tok))
	}
	if len(rr.cols) > 1 {
		tt := make([]*ctype, len(rr.cols))
		rowT := make([][]byte, len(rr.cols))
		for i, c := range rr.cols {
			tt[i] = c.typ
			rowT[i] = vals[c.idx]
		}
		cmpTuple := func(enc []byte) int {
			fs, err := decodeFields(enc, len(tt))
			if err != nil {
				return 1
			}
			for i := range tt {
				if c := compareValues(tt[i], rowT[i], fs[i]); c != 0 {
					return c
				}
			}
			return 0
		}
		if rr.op == cql.OpIn {
			for _, v := range rr.vs {
				if cmpTuple(v) == 0 {
					return true
				}
			}
			return false
		}
		return opMatches(rr.op, cmpTuple(rr.v))
	}
	c := rr.cols[0]
	v := vals[c.idx]
	switch rr.op {
	case cql.OpIn:
		for _, x := range rr.vs {
			if v != nil && compareValues(c.typ, v, x) == 0 {
				return true
			}
		}
		return false
	case cql.OpContains:
		if v == nil {
			return false
		}
		if c.typ.code == primitive.DataTypeCodeMap {
			_, vs, _ := decodeMap(v)
			for _, x := range vs {
				if compareValues(c.typ.val, x, rr.v) == 0 {
					return true
				}
			}
			return false
		}
		es, _ := decodeElems(v)
		for _, x := range es {
			if compareValues(c.typ.elem, x, rr.v) == 0 {
				return true
			}
		}
		return false
	case opEntryEq:
		ks, vs, _ := decodeMap(v)
		for i, x := range ks {
			if compareValues(c.typ.key, x, rr.key) == 0 {
				return compareValues(c.typ.val, vs[i], rr.v) == 0
			}
		}
		return false
	case cql.OpContKey:
		if v == nil {
			return false
		}
		ks, _, _ := decodeMap(v)
		for _, x := range ks {
			if compareValues(c.typ.key, x, rr.v) == 0 {
				return true
			}
		}
		return false
	}
	if v == nil {
		return false
	}
	if rr.op == cql.OpEq && c.typ.code != primitive.DataTypeCodeDecimal && c.typ.code != primitive.DataTypeCodeVarint {
		return bytes.Equal(v, rr.v) || compareValues(c.typ, v, rr.v) == 0
	}
	return opMatches(rr.op, compareValues(c.typ, v, rr.v))
}

// keyCombos returns the cartesian product of equality/IN values for cols, or ok=false when a
// column has no such restriction.
func keyCombos(cols []*column, rels []*resolvedRel) ([][][]byte, bool) {
	combos := [][][]byte{{}}
	for _, c := range cols {
		var vals [][]byte
		found := false
		for _, r := range rels {
			if len(r.cols) != 1 || r.cols[0] != c || r.token {
				continue
			}
			switch r.op {
			case cql.OpEq:
				vals, found = [][]byte{r.v}, true
			case cql.OpIn:
				vals, found = r.vs, true
			}
		}
		if !found {
			return nil, false
		}
		vals = sortDedup(c.typ, append([][]byte(nil), vals...))
		next := make([][][]byte, 0, len(combos)*len(vals))
		for _, prefix := range combos {
			for _, v := range vals {
				k := append(append([][]byte(nil), prefix...), v)
				next = append(next, k)
			}
		}
		combos = next
	}
	return combos, true
}

// allClustering reports whether every column of cols is a clustering column.
func allClustering(cols []*column) bool {
	for _, c := range cols {
		if c.kind != kindClustering {
			return false
		}
	}
	return true
}

// emptyClustering reports whether the restrictions on a prefix of the clustering key select no
// clustering whatever the data: an IN without values, or a slice whose start bound comes after
// its end bound (c > 5 AND c < 3, c > 5 AND c <= 5, (c, d) > (1, 2) AND (c, d) < (1, 1)).
// Cassandra answers such a query with no rows before it validates the partition key, so that
// an empty key is no error then; a slice that merely holds no value of its type (c > 1 AND c < 2 on
// an int) is not empty. Relations that only filter (after a gap in the prefix) do not count.
func emptyClustering(t *table, rrs []*resolvedRel) bool {
	for pos := 0; pos < len(t.ck); {
		var eqIn *resolvedRel
		var start, end *resolvedRel
		for _, rr := range rrs {
			if rr.token || len(rr.cols) == 0 || rr.cols[0] != t.ck[pos] {
				continue
			}
			if rr.none {
				return true
			}
			switch rr.op {
			case cql.OpEq, cql.OpIn:
				eqIn = rr
			case cql.OpGt, cql.OpGe:
				start = rr
			case cql.OpLt, cql.OpLe:
				end = rr
			}
		}
		switch {
		case eqIn != nil && eqIn.op == cql.OpIn && len(eqIn.vs) == 0:
			return true
		case eqIn != nil:
			pos += len(eqIn.cols)
			continue
		case start != nil && end != nil:
			return emptySlice(t, pos, start, end)
		}
		return false
	}
	return false
}

// emptySlice reports whether the bounds start (> or >=) and end (< or <=), on clustering
// columns from position pos, leave no clustering between them. Bounds compare in the order of
// the columns' values, whatever their clustering order: a multi-column slice selects the
// clusterings whose values are between its bounds.
func emptySlice(t *table, pos int, start, end *resolvedRel) bool {
	vals := func(rr *resolvedRel) [][]byte {
		if len(rr.cols) == 1 {
			return [][]byte{rr.v}
		}
		fs, err := decodeFields(rr.v, len(rr.cols))
		if err != nil {
			return nil
		}
		return fs
	}
	sv, ev := vals(start), vals(end)
	n := max(len(sv), len(ev))
	if len(sv) == 0 || len(ev) == 0 || pos+n > len(t.ck) {
		return false
	}
	for i := 0; i < min(len(sv), len(ev)); i++ {
		if sv[i] == nil || ev[i] == nil {
			return false
		}
		if c := compareValues(t.ck[pos+i].typ, sv[i], ev[i]); c != 0 {
			return c > 0
		}
	}
	// one bound is a prefix of the other: an exclusive start of a prefix lies after every
	// clustering with that prefix, an exclusive end before every one
	switch {
	case len(sv) < len(ev):
		return start.op == cql.OpGt
	case len(ev) < len(sv):
		return end.op == cql.OpLt
	}
	return start.op == cql.OpGt || end.op == cql.OpLt
}
