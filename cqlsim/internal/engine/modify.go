package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

type modKind int

const (
	modInsert modKind = iota
	modUpdate
	modDelete
)

type assign struct {
	col   *column
	kind  cql.AssignKind
	key   *boundTerm
	val   *boundTerm
	field int
}

type deleteTarget struct {
	col   *column
	key   *boundTerm
	field int
}

type condition struct {
	col   *column
	elem  *boundTerm
	field int
	op    cql.Operator
	val   *boundTerm
	in    []*boundTerm
}

// modPlan is an analysed INSERT, UPDATE or DELETE.
type modPlan struct {
	basePlan
	rowKey      *rowKeyCheck // see checkStaticOnlyClustering
	t           *table
	kind        modKind
	insCols     []*column
	insVals     []*boundTerm
	rels        []*rel
	assigns     []assign
	targets     []deleteTarget
	ifNotExists bool
	ifExists    bool
	conds       []condition
	ttl, ts     *boundTerm
	pkIdx       []uint16
	json        *boundTerm // INSERT JSON: the document (insCols are then all columns)
	jsonUnset   bool
}

func (m *modPlan) pkIndexes() []uint16 { return m.pkIdx }

// staticOnly reports whether the statement touches and conditions only static columns (for a
// DELETE: deletes some, and only static, columns).
func (m *modPlan) staticOnly() bool {
	if m.kind == modInsert && m.json == nil {
		n := 0
		for _, c := range m.insCols {
			switch c.kind {
			case kindStatic:
				n++
			case kindRegular:
				return false
			}
		}
		return n > 0
	}
	for _, a := range m.assigns {
		if a.col.kind != kindStatic {
			return false
		}
	}
	for _, c := range m.conds {
		if c.col.kind != kindStatic {
			return false
		}
	}
	if m.kind == modDelete {
		return m.deletesOnlyStatic()
	}
	return len(m.assigns) > 0 || len(m.conds) > 0
}

// deletesOnlyStatic reports whether a DELETE names columns, all of them static (a DELETE
// without columns deletes rows or the partition).
func (m *modPlan) deletesOnlyStatic() bool {
	for _, tg := range m.targets {
		if tg.col.kind != kindStatic {
			return false
		}
	}
	return len(m.targets) > 0
}

// updatesStatic reports whether the statement writes or deletes a static column.
func (m *modPlan) updatesStatic() bool {
	for _, a := range m.assigns {
		if a.col.kind == kindStatic {
			return true
		}
	}
	for _, c := range m.insCols {
		if c.kind == kindStatic {
			return true
		}
	}
	for _, tg := range m.targets {
		if tg.col.kind == kindStatic {
			return true
		}
	}
	return false
}

// checkStaticOnlyClustering rejects, as Cassandra does, an UPDATE or DELETE (stmt) that sets or
// deletes only static columns (and has conditions on static columns only) yet restricts
// clustering columns.
func (m *modPlan) checkStaticOnlyClustering(stmt string) error {
	if err := m.checkStaticOnlyClusteringRels(stmt); err != nil || m.rowKey == nil {
		return err
	}
	return m.checkRowKey(m.rowKey.slice, m.rowKey.ck)
}

// rowKeyCheck is the clustering restriction of an UPDATE or DELETE of static columns only,
// checked once its conditions are known (see checkStaticOnlyClustering).
type rowKeyCheck struct {
	slice bool
	ck    map[*column]bool
}

// checkRowKey checks that an UPDATE or DELETE of regular columns names one row: all
// clustering columns restricted by = or IN. A DELETE of columns on a range or a partition
// fails as "Range deletions are not supported for specific columns", as on Cassandra.
func (m *modPlan) checkRowKey(slice bool, ck map[*column]bool) error {
	missing := missingFrom(m.t.ck, ck)
	switch {
	case (slice || len(missing) > 0) && m.kind == modDelete:
		return invalid("Range deletions are not supported for specific columns")
	case slice:
		return invalid("Slice restrictions are not supported on the clustering columns in UPDATE statements")
	case len(missing) > 0:
		return invalid(msgMissingClustering+"%s", strings.Join(missing, ", "))
	}
	return nil
}

func (m *modPlan) checkStaticOnlyClusteringRels(stmt string) error {
	n := 0
	for _, a := range m.assigns {
		if a.col.kind != kindStatic {
			return nil
		}
		n++
	}
	for _, tg := range m.targets {
		if tg.col.kind != kindStatic {
			return nil
		}
		n++
	}
	for _, c := range m.conds {
		if c.col.kind != kindStatic {
			return nil
		}
	}
	if n == 0 {
		return nil
	}
	for _, r := range m.rels {
		for _, c := range r.cols {
			if c.kind == kindClustering {
				return invalid("Invalid restrictions on clustering columns since the %s statement modifies only static columns", stmt)
			}
		}
	}
	return nil
}

func (m *modPlan) conditional() bool { return m.ifNotExists || m.ifExists || len(m.conds) > 0 }

func (e *Engine) modTable(n cql.QualifiedName, ks string) (*table, error) {
	t, err := e.lookupTable(n, ks)
	if err != nil {
		return nil, err
	}
	if t.virtual != nil {
		if t.isVirtualKs {
			return nil, invalid("Virtual tables do not support modification statements")
		}
		return nil, &Error{Code: CodeUnauthorized, Message: t.ks + " keyspace is not user-modifiable."}
	}
	return t, nil
}

func (e *Engine) bindUsing(bd *binder, u cql.Using, m *modPlan) {
	if u.TTL != nil {
		m.ttl = bd.bind(u.TTL, tInt, "[ttl]")
	}
	if u.Timestamp != nil {
		m.ts = bd.bind(u.Timestamp, tBigint, "[timestamp]")
	}
}

func (e *Engine) planInsert(st *cql.Insert, ks string, vars []Column) (plan, error) {
	t, err := e.modTable(st.Table, ks)
	if err != nil {
		return nil, err
	}
	if t.counter {
		return nil, invalid("INSERT statements are not allowed on counter tables, use UPDATE instead")
	}
	if len(st.Columns) != len(st.Values) {
		return nil, invalid("Unmatched column names/values")
	}
	bd := &binder{vars: vars, ks: t.ks, table: t.name}
	m := &modPlan{t: t, kind: modInsert, ifNotExists: st.IfNotExists}
	if st.JSON != nil {
		m.json = bd.bind(st.JSON, tText, "[json]")
		m.jsonUnset = st.JSONUnset
		m.insCols = t.cols
		e.bindUsing(bd, st.Using, m)
		if bd.err != nil {
			return nil, bd.err
		}
		m.v = bd.finish()
		return m, nil
	}
	seen := map[*column]bool{}
	for i, n := range st.Columns {
		c, err := t.column(n)
		if err != nil {
			return nil, err
		}
		if seen[c] {
			return nil, invalid("The column names contains duplicates")
		}
		seen[c] = true
		m.insCols = append(m.insCols, c)
		m.insVals = append(m.insVals, bd.bind(st.Values[i], c.typ, c.name))
	}
	var missing []string
	for _, c := range t.pk {
		if !seen[c] {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		if err := m.constantError(e); err != nil {
			return nil, err
		}
		return nil, invalid(msgMissingPartition+"%s", strings.Join(missing, ", "))
	}
	// the clustering key may be left out when static columns, and only they, are set
	onlyStatic, static := true, false
	for _, c := range m.insCols {
		if c.kind == kindRegular || c.kind == kindClustering {
			onlyStatic = false
		}
		static = static || c.kind == kindStatic
	}
	onlyStatic = onlyStatic && static
	for _, c := range t.ck {
		if !seen[c] && !onlyStatic {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		if err := m.constantError(e); err != nil {
			return nil, err
		}
		return nil, invalid(msgMissingClustering+"%s", strings.Join(missing, ", "))
	}
	e.bindUsing(bd, st.Using, m)
	for _, c := range t.pk {
		for i, ic := range m.insCols {
			if ic == c && m.insVals[i].t.Kind == cql.TermBind {
				m.pkIdx = append(m.pkIdx, uint16(m.insVals[i].t.BindIdx))
			}
		}
	}
	if len(m.pkIdx) != len(t.pk) {
		m.pkIdx = nil
	}
	if bd.err != nil {
		return nil, bd.err
	}
	m.v = bd.finish()
	return m, nil
}

func (e *Engine) planUpdate(st *cql.Update, ks string, vars []Column) (plan, error) {
	t, err := e.modTable(st.Table, ks)
	if err != nil {
		return nil, err
	}
	bd := &binder{vars: vars, ks: t.ks, table: t.name}
	m := &modPlan{t: t, kind: modUpdate, ifExists: st.IfExists}
	e.bindUsing(bd, st.Using, m)
	for _, a := range st.Set {
		c, err := t.column(a.Column)
		if err != nil {
			return nil, err
		}
		if c.kind == kindPartitionKey || c.kind == kindClustering {
			return nil, invalid("PRIMARY KEY part %s found in SET part", c.name)
		}
		as := assign{col: c, kind: a.Kind, field: -1}
		code := c.typ.code
		switch a.Kind {
		case cql.AssignSet:
			if c.typ.isCounter() {
				return nil, invalid("Cannot set the value of counter column %s (counters can only be incremented/decremented, not set)", c.name)
			}
			as.val = bd.bind(a.Value, c.typ, c.name)
		case cql.AssignAdd, cql.AssignSub, cql.AssignPrepend:
			op := "+"
			if a.Kind == cql.AssignSub {
				op = "-"
			}
			switch {
			case c.typ.isCounter() && a.Kind != cql.AssignPrepend:
				as.val = bd.bind(a.Value, c.typ, c.name)
			case c.typ.isCollection() && c.typ.frozen:
				return nil, invalid("Invalid operation (%s = %s %s %s) for frozen collection column %s", c.name, c.name, op, termText(a.Value), c.name)
			case code == primitive.DataTypeCodeList:
				as.val = bd.bind(a.Value, c.typ, c.name)
			case code == primitive.DataTypeCodeSet && a.Kind != cql.AssignPrepend:
				as.val = bd.bind(a.Value, c.typ, c.name)
			case code == primitive.DataTypeCodeMap && a.Kind == cql.AssignAdd:
				as.val = bd.bind(a.Value, c.typ, c.name)
			case code == primitive.DataTypeCodeMap && a.Kind == cql.AssignSub:
				as.val = bd.bind(a.Value, setOf(c.typ.key), c.name)
			default:
				if a.Kind == cql.AssignPrepend {
					// Cassandra 5.0.9 writes a prepend with a minus sign in this message
					return nil, invalid("Invalid operation (%s = %s - %s) for non list column %s", c.name, termText(a.Value), c.name, c.name)
				}
				if a.Kind == cql.AssignAdd && (code == primitive.DataTypeCodeTuple || code == primitive.DataTypeCodeUdt) {
					return nil, invalid("Invalid operation (%s = %s %s %s) for tuple column %s", c.name, c.name, op, termText(a.Value), c.name)
				}
				return nil, invalid("Invalid operation (%s = %s %s %s) for non counter column %s", c.name, c.name, op, termText(a.Value), c.name)
			}
		case cql.AssignElem:
			switch {
			case c.typ.frozen && c.typ.isCollection():
				return nil, invalid("Invalid operation (%s[%s] = %s) for frozen collection column %s", c.name, termText(a.Key), termText(a.Value), c.name)
			case code == primitive.DataTypeCodeList:
				as.key = bd.bind(a.Key, tInt, "idx("+c.name+")")
				as.val = bd.bind(a.Value, c.typ.elem, "value("+c.name+")")
			case code == primitive.DataTypeCodeMap:
				as.key = bd.bind(a.Key, c.typ.key, "key("+c.name+")")
				as.val = bd.bind(a.Value, c.typ.val, "value("+c.name+")")
			case code == primitive.DataTypeCodeSet:
				return nil, invalid("Invalid operation (%s[%s] = %s) for set column %s", c.name, termText(a.Key), termText(a.Value), c.name)
			default:
				return nil, invalid("Invalid operation (%s[%s] = %s) for non collection column %s", c.name, termText(a.Key), termText(a.Value), c.name)
			}
		case cql.AssignField:
			if code != primitive.DataTypeCodeUdt {
				return nil, invalid("Invalid operation (%s.%s = %s) for non-UDT column %s", c.name, a.Field, termText(a.Value), c.name)
			}
			if c.typ.frozen {
				return nil, invalid("Invalid operation (%s.%s = %s) for frozen UDT column %s", c.name, a.Field, termText(a.Value), c.name)
			}
			idx := fieldIndex(c.typ, a.Field)
			if idx < 0 {
				return nil, invalid("UDT column %s does not have a field named %s", c.name, a.Field)
			}
			as.field = idx
			as.val = bd.bind(a.Value, c.typ.elems[idx], c.name+"."+a.Field)
		}
		m.assigns = append(m.assigns, as)
	}
	if err := m.analyseKey(st.Where, bd, true); err != nil {
		if msg := err.Error(); strings.HasPrefix(msg, msgMissingClustering) || strings.HasPrefix(msg, msgMissingPartition) {
			if cerr := m.constantError(e); cerr != nil {
				return nil, cerr
			}
		}
		return nil, err
	}
	if err := m.analyseConditions(st.Conditions, bd); err != nil {
		return nil, err
	}
	if err := m.checkStaticOnlyClustering("UPDATE"); err != nil {
		return nil, err
	}
	if bd.err != nil {
		return nil, bd.err
	}
	m.v = bd.finish()
	return m, nil
}

func fieldIndex(t *ctype, f string) int {
	for i, n := range t.fields {
		if n == f {
			return i
		}
	}
	return -1
}

func (e *Engine) planDelete(st *cql.Delete, ks string, vars []Column) (plan, error) {
	t, err := e.modTable(st.Table, ks)
	if err != nil {
		return nil, err
	}
	bd := &binder{vars: vars, ks: t.ks, table: t.name}
	m := &modPlan{t: t, kind: modDelete, ifExists: st.IfExists}
	for _, tg := range st.Targets {
		c, err := t.column(tg.Column)
		if err != nil {
			return nil, err
		}
		if c.kind == kindPartitionKey || c.kind == kindClustering {
			return nil, invalid("Invalid identifier %s for deletion (should not be a PRIMARY KEY part)", c.name)
		}
		dt := deleteTarget{col: c, field: -1}
		if tg.Key != nil {
			switch {
			case !c.typ.isCollection():
				return nil, invalid("Invalid deletion operation for non collection column %s", c.name)
			case c.typ.frozen:
				return nil, invalid("Invalid deletion operation for frozen collection column %s", c.name)
			case c.typ.code == primitive.DataTypeCodeList:
				dt.key = bd.bind(tg.Key, tInt, "idx("+c.name+")")
			case c.typ.code == primitive.DataTypeCodeMap:
				dt.key = bd.bind(tg.Key, c.typ.key, "key("+c.name+")")
			default: // DELETE s[v] removes the element v of a set
				dt.key = bd.bind(tg.Key, c.typ.elem, "value("+c.name+")")
			}
		}
		if tg.Field != "" {
			if c.typ.code != primitive.DataTypeCodeUdt {
				return nil, invalid("Invalid field deletion operation for non-UDT column %s", c.name)
			}
			if c.typ.frozen {
				return nil, invalid("Frozen UDT column %s does not support field deletions", c.name)
			}
			if dt.field = fieldIndex(c.typ, tg.Field); dt.field < 0 {
				return nil, invalid("UDT column %s does not have a field named %s", c.name, tg.Field)
			}
		}
		m.targets = append(m.targets, dt)
	}
	e.bindUsing(bd, st.Using, m)
	if err := m.analyseKey(st.Where, bd, len(m.targets) > 0); err != nil {
		return nil, err
	}
	if err := m.analyseConditions(st.Conditions, bd); err != nil {
		return nil, err
	}
	if err := m.checkStaticOnlyClustering("DELETE"); err != nil {
		return nil, err
	}
	if bd.err != nil {
		return nil, bd.err
	}
	m.v = bd.finish()
	return m, nil
}

// constantError evaluates the values of the statement that hold no bind marker, in the order
// in which Cassandra prepares them before it checks that the primary key is complete: the
// values of the columns outside the key (INSERT, in statement order) or of the assignments
// (UPDATE), then those of the key columns or of the WHERE clause. It returns the first error,
// so that a statement with a bad constant and a missing key column fails on the constant, as on
// Cassandra.
func (m *modPlan) constantError(e *Engine) error {
	ctx := &evalCtx{e: e, now: e.now()}
	try := func(b *boundTerm) error {
		if b == nil || b.t == nil || termHasMarker(b.t) {
			return nil
		}
		_, err := b.eval(ctx)
		return err
	}
	for _, key := range []bool{false, true} {
		for i, c := range m.insCols {
			if (c.kind == kindPartitionKey || c.kind == kindClustering) == key && i < len(m.insVals) {
				if err := try(m.insVals[i]); err != nil {
					return err
				}
			}
		}
	}
	for _, a := range m.assigns {
		for _, b := range []*boundTerm{a.key, a.val} {
			if err := try(b); err != nil {
				return err
			}
		}
	}
	for _, r := range m.rels {
		if r.token {
			continue
		}
		for _, b := range append([]*boundTerm{r.val}, r.in...) {
			if err := try(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// Cassandra's messages for a statement missing part of its primary key, followed by the names
// of the missing columns: planUpdate tells them from analyseKey's other errors.
const (
	msgMissingPartition  = "Some partition key parts are missing: "
	msgMissingClustering = "Some clustering keys are missing: "
)

// missingFrom returns the names of the columns of cols that in does not hold, in order.
func missingFrom(cols []*column, in map[*column]bool) []string {
	var missing []string
	for _, c := range cols {
		if !in[c] {
			missing = append(missing, c.name)
		}
	}
	return missing
}

// termHasMarker reports whether a term holds a bind marker at any depth.
func termHasMarker(t *cql.Term) bool {
	if t.Kind == cql.TermBind {
		return true
	}
	for _, x := range append(append([]*cql.Term{}, t.Elems...), t.Values...) {
		if x != nil && termHasMarker(x) {
			return true
		}
	}
	return false
}

// analyseKey checks the WHERE clause of UPDATE/DELETE: the partition key must be fully given
// by = or IN; fullRow requires the whole clustering key too.
func (m *modPlan) analyseKey(where []cql.Relation, bd *binder, fullRow bool) error {
	t := m.t
	rels, err := analyseWhere(t, where, bd, &sliceOrder{})
	if err != nil {
		return err
	}
	m.rels = rels
	pk := map[*column]bool{}
	ck := map[*column]bool{}
	slice := false
	var nonPK []string
	for _, r := range rels {
		if r.token {
			return invalid("The token function cannot be used in WHERE clauses for UPDATE and DELETE statements: %s", "token")
		}
		for _, c := range r.cols {
			switch c.kind {
			case kindPartitionKey:
				if r.op != cql.OpEq && r.op != cql.OpIn {
					return invalid("Only EQ and IN relation are supported on the partition key (unless you use the token() function)")
				}
				pk[c] = true
			case kindClustering:
				if r.op != cql.OpEq && r.op != cql.OpIn {
					slice = true
				}
				ck[c] = true
			default:
				nonPK = append(nonPK, c.name)
			}
		}
	}
	if missing := missingFrom(t.pk, pk); len(missing) > 0 {
		return invalid(msgMissingPartition+"%s", strings.Join(missing, ", "))
	}
	if len(nonPK) > 0 {
		return invalid("Non PRIMARY KEY columns found in where clause: %s ", strings.Join(nonPK, ", "))
	}
	onlyStatic := len(m.assigns) > 0 || len(m.targets) > 0
	for _, a := range m.assigns {
		onlyStatic = onlyStatic && a.col.kind == kindStatic
	}
	for _, tg := range m.targets {
		onlyStatic = onlyStatic && tg.col.kind == kindStatic
	}
	if onlyStatic && len(ck) == 0 {
		fullRow = false
	}
	if m.kind == modUpdate && !onlyStatic {
		fullRow = true
	}
	if onlyStatic && len(ck) > 0 {
		// static columns alone under clustering restrictions: checkStaticOnlyClustering
		// refuses them, unless a condition is on a regular column (then checkRowKey)
		m.rowKey = &rowKeyCheck{slice: slice, ck: ck}
	} else if fullRow {
		if err := m.checkRowKey(slice, ck); err != nil {
			return err
		}
	} else {
		// clustering restrictions must be a prefix, with at most one slice at its end
		prefixEnd := false
		for _, c := range t.ck {
			if !ck[c] {
				prefixEnd = true
				continue
			}
			if prefixEnd {
				return invalid("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", c.name, t.ck[c.pos-1].name)
			}
		}
	}
	for _, c := range t.pk {
		for _, r := range rels {
			if len(r.cols) == 1 && r.cols[0] == c && r.op == cql.OpEq && r.val != nil && r.val.t.Kind == cql.TermBind {
				m.pkIdx = append(m.pkIdx, uint16(r.val.t.BindIdx))
				break
			}
		}
	}
	if len(m.pkIdx) != len(t.pk) {
		m.pkIdx = nil
	}
	return nil
}

func (m *modPlan) analyseConditions(conds []cql.Condition, bd *binder) error {
	for _, c := range conds {
		col, err := m.t.column(c.Column)
		if err != nil {
			return err
		}
		if col.kind == kindPartitionKey || col.kind == kindClustering {
			return invalid("PRIMARY KEY column '%s' cannot have IF conditions", col.name)
		}
		if col.typ.isCounter() {
			return invalid("Conditions on counters are not supported")
		}
		cd := condition{col: col, op: c.Op, field: -1}
		ty := col.typ
		name := col.name
		if c.Elem != nil {
			switch col.typ.code {
			case primitive.DataTypeCodeList:
				cd.elem = bd.bind(c.Elem, tInt, "idx("+col.name+")")
				ty, name = col.typ.elem, "value("+col.name+")"
			case primitive.DataTypeCodeMap:
				cd.elem = bd.bind(c.Elem, col.typ.key, "key("+col.name+")")
				ty, name = col.typ.val, "value("+col.name+")"
			case primitive.DataTypeCodeSet:
				return invalid("Invalid element access syntax for set column %s", col.name)
			default:
				return invalid("Invalid element access syntax for non-collection column %s", col.name)
			}
		}
		if c.Field != "" {
			if col.typ.code != primitive.DataTypeCodeUdt {
				return invalid("Invalid field selection: %s of type %s is not a user type", col.name, col.typ.plainString())
			}
			if cd.field = fieldIndex(col.typ, c.Field); cd.field < 0 {
				return invalid("Unknown field %s for column %s", c.Field, col.name)
			}
			ty, name = col.typ.elems[cd.field], col.name+"."+c.Field
		}
		if c.Op == cql.OpIn {
			if c.Value != nil {
				cd.val = bd.bind(c.Value, listOf(ty), "in("+name+")")
			}
			for _, v := range c.In {
				cd.in = append(cd.in, bd.bind(v, ty, name))
			}
		} else {
			if c.Op == cql.OpLike {
				return unsupported("IF conditions with " + string(c.Op))
			}
			if c.Op == cql.OpContains || c.Op == cql.OpContKey {
				if ty, name, err = containsOperand(col, c.Op); err != nil {
					return err
				}
			}
			cd.val = bd.bind(c.Value, ty, name)
		}
		m.conds = append(m.conds, cd)
	}
	if m.t.counter && m.conditional() {
		return invalid("Conditional updates are not supported on counter tables")
	}
	return nil
}

// mutation is a modification with its values evaluated, ready to check and apply.
type mutation struct {
	m        *modPlan
	ctx      *evalCtx
	pks      [][][]byte
	cks      [][][]byte // full clustering keys (nil when the statement targets ranges/partitions)
	ckRels   []*resolvedRel
	ts       int64
	ttl      int32
	insVals  []termResult
	asVals   []termResult
	asKeys   []termResult
	delKeys  []termResult
	condVals []resolvedCond
}

type resolvedCond struct {
	v   termResult
	vs  [][]byte
	key []byte
}

func (m *modPlan) exec(e *Engine, ctx *evalCtx, req *Request) (*Result, error) {
	mu, err := m.prepare(e, ctx, req.Timestamp, 0, false)
	if err != nil {
		return nil, err
	}
	if m.conditional() {
		return e.casApply([]*mutation{mu}, false)
	}
	if err := mu.check(); err != nil {
		return nil, err
	}
	mu.apply(e)
	return voidResult(), nil
}

// prepare evaluates the statement's values. batchTS, when non-zero, overrides the timestamp.
func (m *modPlan) prepare(e *Engine, ctx *evalCtx, defaultTS, batchTS int64, inBatch bool) (*mutation, error) {
	t := m.t
	mu := &mutation{m: m, ctx: ctx, ttl: -1}
	if t.counter && m.ts != nil {
		return nil, invalid("Cannot provide custom timestamp for counter updates")
	}
	if t.counter && m.ttl != nil {
		return nil, invalid("Cannot provide custom TTL for counter updates")
	}
	// timestamp and ttl
	ts, hasTS, err := evalInt64(ctx, m.ts)
	if err != nil {
		return nil, err
	}
	if hasTS && m.conditional() {
		return nil, invalid("Cannot provide custom timestamp for conditional updates")
	}
	switch {
	case hasTS:
		mu.ts = ts
	case batchTS != 0:
		mu.ts = batchTS
	case defaultTS != 0:
		mu.ts = defaultTS
	default:
		mu.ts = e.nextTimestamp()
	}
	if ttl, ok, err := evalInt32(ctx, m.ttl); err != nil {
		return nil, err
	} else if ok {
		if ttl < 0 {
			return nil, invalid("A TTL must be greater or equal to 0, but was %d", ttl)
		}
		if ttl > 630720000 {
			return nil, invalid("ttl is too large. requested (%d) maximum (630720000)", ttl)
		}
		mu.ttl = int32(ttl)
	}
	defaultTTL := mu.ttl < 0
	if defaultTTL {
		mu.ttl = t.ttl
	}
	if err := checkExpiration(t, int64(mu.ttl), defaultTTL, ctx.now.Unix()); err != nil {
		return nil, err
	}
	if m.kind == modInsert {
		pkv := make([][]byte, len(t.pk))
		ckv := make([][]byte, len(t.ck))
		hasCK := false
		var jsonVals []termResult
		if m.json != nil {
			if jsonVals, err = m.jsonValues(ctx); err != nil {
				return nil, err
			}
		}
		for i, c := range m.insCols {
			var r termResult
			if jsonVals != nil {
				r = jsonVals[i]
			} else if r, err = m.insVals[i].eval(ctx); err != nil {
				return nil, err
			}
			if r.b != nil && c.typ.multiCell() && isEmptyCollection(c.typ, r.b) {
				r.b = nil
			}
			if r.b != nil {
				r.b = normalizeValue(c.typ, r.b)
			}
			mu.insVals = append(mu.insVals, r)
			switch c.kind {
			case kindPartitionKey:
				if r.unset {
					return nil, invalid("Invalid unset value for column %s", c.name)
				}
				if r.b == nil {
					return nil, invalid("Invalid null value in condition for column %s", c.name)
				}
				pkv[c.pos] = r.b
			case kindClustering:
				if r.unset {
					return nil, invalid("Invalid unset value for column %s", c.name)
				}
				if r.b == nil {
					return nil, invalid("Invalid null value in condition for column %s", c.name)
				}
				ckv[c.pos] = r.b
				hasCK = true
			}
		}
		if len(key(pkv)) == 0 {
			return nil, invalid("Key may not be empty")
		}
		if len(key(pkv)) > 65535 {
			return nil, invalid("Key length of %d is longer than maximum of 65535", len(key(pkv)))
		}
		mu.pks = [][][]byte{pkv}
		if hasCK || len(t.ck) == 0 {
			mu.cks = [][][]byte{ckv}
		}
	} else {
		rrs, err := resolveRels(m.rels, ctx)
		if err != nil {
			return nil, err
		}
		mu.pks, _ = keyCombos(t.pk, rrs)
		for _, pk := range mu.pks {
			if len(key(pk)) == 0 {
				return nil, invalid("Key may not be empty")
			}
		}
		if cks, ok := keyCombos(t.ck, rrs); ok {
			mu.cks = cks
		} else {
			for _, rr := range rrs {
				if len(rr.cols) > 0 && rr.cols[0].kind == kindClustering {
					mu.ckRels = append(mu.ckRels, rr)
				}
			}
		}
		for _, a := range m.assigns {
			var kr termResult
			if a.key != nil {
				if kr, err = a.key.eval(ctx); err != nil {
					return nil, err
				}
				if err := elementKeyError(a.col.typ, kr, false); err != nil {
					return nil, err
				}
			}
			vr, err := a.val.eval(ctx)
			if err != nil {
				return nil, err
			}
			if vr.b != nil {
				vr.b = normalizeValue(a.val.ty, vr.b)
			}
			if a.col.typ.isCounter() && vr.b == nil && !vr.unset {
				return nil, invalid("Invalid null value for counter increment")
			}
			mu.asKeys = append(mu.asKeys, kr)
			mu.asVals = append(mu.asVals, vr)
		}
		for _, tg := range m.targets {
			var kr termResult
			if tg.key != nil {
				if kr, err = tg.key.eval(ctx); err != nil {
					return nil, err
				}
				if err := elementKeyError(tg.col.typ, kr, true); err != nil {
					return nil, err
				}
			}
			mu.delKeys = append(mu.delKeys, kr)
		}
	}
	for _, c := range m.conds {
		var rc resolvedCond
		if c.elem != nil {
			kr, err := c.elem.eval(ctx)
			if err != nil {
				return nil, err
			}
			rc.key = kr.b
			if err := checkElementKey(c.col.typ, kr); err != nil {
				return nil, err
			}
			if kr.unset {
				rc.key = []byte{}
			}
		}
		if c.val != nil {
			if rc.v, err = c.val.eval(ctx); err != nil {
				return nil, err
			}
			if rc.v.unset {
				return nil, invalid("Invalid 'unset' value in condition")
			}
			if c.op == cql.OpIn && rc.v.b != nil {
				rc.vs, _ = decodeElems(rc.v.b)
			}
		}
		for _, in := range c.in {
			r, err := in.eval(ctx)
			if err != nil {
				return nil, err
			}
			if r.unset {
				continue // Cassandra drops unset values from an IN list
			}
			rc.vs = append(rc.vs, r.b)
		}
		if c.op != cql.OpEq && c.op != cql.OpNe && c.op != cql.OpIn && c.val != nil && rc.v.b == nil {
			return nil, invalid("Invalid comparison with null for operator \"%s\"", c.op)
		}
		mu.condVals = append(mu.condVals, rc)
	}
	if m.conditional() {
		if len(mu.pks) != 1 && !inBatch {
			return nil, invalid("IN on the partition key is not supported with conditional %s", map[modKind]string{modInsert: "updates", modUpdate: "updates", modDelete: "deletions"}[m.kind])
		}
		if mu.cks == nil && m.kind == modUpdate && len(t.ck) > 0 && !m.staticOnly() {
			// static columns set under conditions on regular columns: a row is needed
			restricted := map[*column]bool{}
			for _, r := range m.rels {
				for _, c := range r.cols {
					restricted[c] = true
				}
			}
			if missing := missingFrom(t.ck, restricted); len(missing) > 0 {
				return nil, invalid(msgMissingClustering+"%s", strings.Join(missing, ", "))
			}
		}
		if !inBatch && (len(mu.cks) > 1 || (mu.cks == nil && !(len(t.ck) == 0 || m.kind == modDelete || m.staticOnly()))) {
			return nil, m.errClusteringIn()
		}
		if mu.cks == nil && m.kind == modDelete && len(t.ck) > 0 && !m.staticOnly() {
			// a conditional DELETE of static columns alone needs only the partition key
			what := "delete non static columns"
			if m.deletesOnlyStatic() {
				what = "use IF condition on non static columns"
			}
			return nil, invalid("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to %s", what)
		}
	}
	return mu, nil
}

func key(parts [][]byte) []byte { return serializePartitionKey(parts) }

func isEmptyCollection(t *ctype, b []byte) bool {
	return t.isCollection() && len(b) >= 4 && binary.BigEndian.Uint32(b) == 0
}

// expiry converts a TTL to an absolute expiry (Unix seconds).
func (mu *mutation) expiry() int64 {
	if mu.ttl <= 0 {
		return 0
	}
	return mu.ctx.now.Unix() + int64(mu.ttl)
}

// apply writes the mutation to the store (e.mu held).
func (mu *mutation) apply(e *Engine) {
	m, t := mu.m, mu.m.t
	exp := mu.expiry()
	now := mu.ctx.now.Unix()
	for _, pkv := range mu.pks {
		switch m.kind {
		case modInsert:
			p := t.getPartition(pkv, true)
			var r *row
			if mu.cks != nil {
				r = t.getRow(p, mu.cks[0], true)
				floor := max(r.deletedAt, p.deletedAt)
				writeCell(&r.marker, []byte{}, mu.ts, exp, mu.ttl, floor)
			}
			for i, c := range m.insCols {
				v := mu.insVals[i]
				if v.unset || c.kind == kindPartitionKey || c.kind == kindClustering {
					continue
				}
				if elementWise(c.typ) && (c.kind == kindStatic || r != nil) {
					dst, floor := &p.static[c.idx], p.deletedAt
					if c.kind != kindStatic {
						dst, floor = &r.cells[c.idx], max(r.deletedAt, p.deletedAt)
					}
					st := loadColl(c.typ, dst, floor, now)
					st.overwrite(v.b, mu.ts, exp)
					st.store(dst, mu.ttl)
					continue
				}
				if c.kind == kindStatic {
					writeCell(&p.static[c.idx], v.b, mu.ts, exp, mu.ttl, p.deletedAt)
				} else if r != nil {
					writeCell(&r.cells[c.idx], v.b, mu.ts, exp, mu.ttl, max(r.deletedAt, p.deletedAt))
				}
			}
		case modUpdate:
			touched := map[*cell]bool{}
			p := t.getPartition(pkv, true)
			cks := mu.cks
			if cks == nil {
				cks = [][][]byte{nil}
			}
			for _, ckv := range cks {
				var r *row
				if ckv != nil || len(t.ck) == 0 {
					if ckv == nil {
						ckv = [][]byte{}
					}
					r = t.getRow(p, ckv, true)
				}
				for i, a := range m.assigns {
					vr := mu.asVals[i]
					if vr.unset {
						continue
					}
					var dst *cell
					floor := p.deletedAt
					if a.col.kind == kindStatic {
						dst = &p.static[a.col.idx]
					} else if r != nil {
						dst = &r.cells[a.col.idx]
						floor = max(floor, r.deletedAt)
					} else {
						continue
					}
					if elementWise(a.col.typ) {
						st := loadColl(a.col.typ, dst, floor, now)
						if err := st.assign(a, vr.b, mu.asKeys[i].b, mu.ts, exp); err != nil {
							continue // validated in check
						}
						st.store(dst, mu.ttl)
						continue
					}
					cur := cellValue(dst, floor, now)
					nv := applyAssign(a, cur, vr.b)
					if a.col.typ.isCounter() {
						*dst = cell{v: nv, ts: max(mu.ts, dst.ts), set: true}
						continue
					}
					// Several assignments to one column in a statement compose.
					if touched[dst] && mu.ts >= dst.ts && mu.ts > floor {
						*dst = cell{v: nv, ts: mu.ts, exp: exp, ttl: mu.ttl, set: true}
					} else {
						writeCell(dst, nv, mu.ts, exp, mu.ttl, floor)
					}
					touched[dst] = true
				}
			}
		case modDelete:
			// A deletion is recorded even where nothing is stored yet: its tombstone
			// shadows later writes with older timestamps, as on Cassandra.
			p := t.getPartition(pkv, true)
			if len(m.targets) == 0 {
				switch {
				case mu.cks != nil && len(t.ck) > 0:
					for _, ckv := range mu.cks {
						if r := t.getRow(p, ckv, true); mu.ts > r.deletedAt {
							r.deletedAt = mu.ts
						}
					}
				case len(t.ck) == 0 || (len(mu.ckRels) == 0 && mu.cks == nil):
					if len(t.ck) == 0 {
						if r := t.getRow(p, [][]byte{}, true); mu.ts > r.deletedAt {
							r.deletedAt = mu.ts
						}
					} else if mu.ts > p.deletedAt {
						p.deletedAt = mu.ts
					}
				default:
					// a range tombstone: it deletes the rows in the range now and keeps
					// shadowing later writes with older timestamps
					rt := rangeTombstone{rels: mu.ckRels, ts: mu.ts}
					p.ranges = append(p.ranges, rt)
					for _, r := range p.rows {
						if rt.covers(t, p, r.ck) && mu.ts > r.deletedAt {
							r.deletedAt = mu.ts
						}
					}
				}
				continue
			}
			cks := mu.cks
			if cks == nil {
				cks = [][][]byte{nil}
			}
			for _, ckv := range cks {
				var r *row
				if ckv != nil || len(t.ck) == 0 {
					if ckv == nil {
						ckv = [][]byte{}
					}
					r = t.getRow(p, ckv, true)
				}
				for i, tg := range m.targets {
					var dst *cell
					floor := p.deletedAt
					if tg.col.kind == kindStatic {
						dst = &p.static[tg.col.idx]
					} else if r != nil {
						dst = &r.cells[tg.col.idx]
						floor = max(floor, r.deletedAt)
					} else {
						continue
					}
					if elementWise(tg.col.typ) {
						st := loadColl(tg.col.typ, dst, floor, now)
						switch {
						case tg.field >= 0:
							st.remove(fieldKey(tg.field), mu.ts)
						case tg.key == nil:
							st.deleteAll(mu.ts)
						case mu.delKeys[i].unset:
							// an unset element or index deletes nothing
						default:
							st.deleteElem(mu.delKeys[i].b, mu.ts)
						}
						st.store(dst, dst.ttl)
						continue
					}
					// the planner takes elements and fields of element-wise columns only
					if tg.col.typ.isCounter() {
						*dst = cell{v: nil, ts: mu.ts, set: true}
						continue
					}
					writeCell(dst, nil, mu.ts, 0, 0, floor)
				}
			}
		}
	}
}

// applyAssign computes the new value of a cell that is not stored element by element for an
// UPDATE assignment: a value set, or a counter incremented or decremented.
func applyAssign(a assign, cur, v []byte) []byte {
	if a.kind == cql.AssignSet || !a.col.typ.isCounter() {
		return v
	}
	var c, d int64
	if len(cur) == 8 {
		c = int64(binary.BigEndian.Uint64(cur))
	}
	if len(v) == 8 {
		d = int64(binary.BigEndian.Uint64(v))
	}
	if a.kind == cql.AssignSub {
		d = -d
	}
	return binary.BigEndian.AppendUint64(nil, uint64(c+d))
}

// check validates operations that depend on current data (list indexes) before applying: as
// on Cassandra, setting or deleting an element of a list fails when the list is null, or when
// the index is out of its bounds.
func (mu *mutation) check() error {
	m, t := mu.m, mu.m.t
	now := mu.ctx.now.Unix()
	// current calls fn with the live elements of list column c (as a read sees them) in each
	// row the mutation addresses
	current := func(c *column, fn func(es []collElem) error) error {
		for _, pkv := range mu.pks {
			p := t.getPartition(pkv, false)
			if c.kind == kindStatic {
				var es []collElem
				if p != nil {
					es, _ = liveElems(c.typ, &p.static[c.idx], p.deletedAt, now)
				}
				if err := fn(es); err != nil {
					return err
				}
				continue
			}
			cks := mu.cks
			if cks == nil && len(t.ck) == 0 {
				cks = [][][]byte{{}}
			}
			for _, ckv := range cks {
				var es []collElem
				if p != nil {
					if r := t.getRow(p, ckv, false); r != nil {
						es, _ = liveElems(c.typ, &r.cells[c.idx], max(r.deletedAt, p.deletedAt), now)
					}
				}
				if err := fn(es); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i, a := range m.assigns {
		if a.kind != cql.AssignElem || a.col.typ.code != primitive.DataTypeCodeList || mu.asVals[i].unset {
			continue
		}
		err := current(a.col, func(es []collElem) error {
			// the list as the assignments before this one in the statement leave it: as
			// Cassandra, which merges the row it read (without its deletions) with the
			// statement's pending changes, each element reconciled by its timestamp
			st := &collState{ty: a.col.typ, elems: es, floor: noDeletion, now: now}
			for j, b := range m.assigns[:i] {
				if b.col == a.col && !mu.asVals[j].unset {
					_ = st.assign(b, mu.asVals[j].b, mu.asKeys[j].b, mu.ts, mu.expiry()) // a bad index was reported at j
				}
			}
			if len(st.elems) == 0 {
				return invalid("Attempted to set an element on a list which is null")
			}
			return listIndexError(mu.asKeys[i].b, len(st.elems))
		})
		if err != nil {
			return err
		}
	}
	for i, tg := range m.targets {
		if tg.key == nil || tg.field >= 0 || tg.col.typ.code != primitive.DataTypeCodeList || mu.delKeys[i].unset {
			continue
		}
		err := current(tg.col, func(es []collElem) error {
			if len(es) == 0 {
				return invalid("Attempted to delete an element from a list which is null")
			}
			return listIndexError(mu.delKeys[i].b, len(es))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// listIndexError is the error of list index k (encoded) on a list of n elements: nil when it
// is within its bounds.
func listIndexError(k []byte, n int) error {
	if idx := listIndex(k); idx < 0 || idx >= n {
		return invalid("List index %d out of bound, list has size %d", idx, n)
	}
	return nil
}

// jsonValueError names the column in an invalid value's error, as Cassandra does for the
// values of INSERT JSON ("Error decoding JSON value for c: ..."), except for a duration, whose
// error Cassandra sends alone; other errors (a server error) are unchanged.
func jsonValueError(err error, column string) error {
	e, ok := err.(*Error)
	prefix := "Error decoding JSON value for " + column + ": "
	if !ok || e.Code != CodeInvalid || strings.HasPrefix(e.Message, prefix) || strings.HasSuffix(e.Message, "' to a duration") {
		return err
	}
	return invalid("%s%s", prefix, e.Message)
}

// jsonValues decodes the document of INSERT JSON into one value per table column: columns
// missing from it are null, or unset with DEFAULT UNSET.
func (m *modPlan) jsonValues(ctx *evalCtx) ([]termResult, error) {
	doc, err := m.json.eval(ctx)
	if err != nil {
		return nil, err
	}
	if doc.b == nil || doc.unset {
		return nil, invalid("Got null for INSERT JSON values")
	}
	dec := json.NewDecoder(bytes.NewReader(doc.b))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, invalid("Could not decode JSON string as a map: %v. (String was: %s)", err, doc.b)
	}
	out := make([]termResult, len(m.t.cols))
	for i := range out {
		out[i] = termResult{unset: m.jsonUnset}
	}
	for k, v := range obj {
		c, ok := m.t.byName[jsonColumnName(k)]
		if !ok {
			return nil, invalid("JSON values map contains unrecognized column: %s", jsonColumnName(k))
		}
		b, err := fromJSON(c.typ, v, c.name)
		if err != nil {
			return nil, jsonValueError(err, c.name)
		}
		out[c.idx] = termResult{b: b}
	}
	return out, nil
}
