package engine

import (
	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// batchPlan is a BEGIN BATCH ... APPLY BATCH statement sent as one query.
type batchPlan struct {
	basePlan
	typ   uint8
	stmts []*modPlan
	ts    *boundTerm
}

func (e *Engine) planBatchStmt(st *cql.Batch, ks string, vars []Column) (plan, error) {
	bp := &batchPlan{typ: uint8(st.Type)}
	// Cassandra names the batch's own markers' keyspace and table "[batch]"
	bd := &binder{vars: vars, ks: "[batch]", table: "[batch]"}
	if st.Using.TTL != nil {
		return nil, invalid("Global TTL on the BATCH statement is not supported.")
	}
	if st.Using.Timestamp != nil {
		bp.ts = bd.bind(st.Using.Timestamp, tBigint, "[timestamp]")
	}
	for _, s := range st.Statements {
		var pl plan
		var err error
		switch s := s.(type) {
		case *cql.Insert:
			pl, err = e.planInsert(s, ks, vars)
		case *cql.Update:
			pl, err = e.planUpdate(s, ks, vars)
		case *cql.Delete:
			pl, err = e.planDelete(s, ks, vars)
		}
		if err != nil {
			return nil, err
		}
		bp.stmts = append(bp.stmts, pl.(*modPlan))
	}
	if _, err := checkBatchKinds(bp.typ, bp.stmts, bp.ts != nil); err != nil {
		return nil, err
	}
	for i := range vars {
		if vars[i].Type == nil {
			vars[i] = Column{Name: "var", Type: tBlob.dataType()}
		}
	}
	bp.v = vars
	return bp, nil
}

func (b *batchPlan) exec(e *Engine, ctx *evalCtx, req *Request) (*Result, error) {
	ts, hasTS, err := evalInt64(ctx, b.ts)
	if err != nil {
		return nil, err
	}
	if !hasTS {
		ts = req.Timestamp
	}
	items := make([]batchItem, len(b.stmts))
	for i, s := range b.stmts {
		items[i] = batchItem{plan: s, ctx: ctx}
	}
	return e.runBatch(b.typ, items, ts, b.ts != nil, req.Consistency, req.Serial)
}

type batchItem struct {
	plan *modPlan
	ctx  *evalCtx
}

// runBatch validates and applies a batch (e.mu held); usingTS tells a BEGIN BATCH with its own
// USING TIMESTAMP; cl and serial are the request's consistency levels, checked when the batch
// has conditions (see validateCAS).
func (e *Engine) runBatch(typ uint8, items []batchItem, ts int64, usingTS bool, cl, serial uint16) (*Result, error) {
	if len(items) == 0 {
		return voidResult(), nil
	}
	stmts := make([]*modPlan, len(items))
	for i, it := range items {
		stmts[i] = it.plan
	}
	conditional, err := checkBatchKinds(typ, stmts, usingTS)
	if err != nil {
		return nil, err
	}
	if ts == 0 {
		ts = e.nextTimestamp()
	}
	muts := make([]*mutation, len(items))
	for i, it := range items {
		mu, err := it.plan.prepare(e, it.ctx, 0, ts, true)
		if err != nil {
			return nil, err
		}
		muts[i] = mu
	}
	if conditional {
		if err := checkCASBatchKeys(muts); err != nil {
			return nil, err
		}
		first := muts[0]
		if err := e.validateCAS(first.m.t, cl, serial); err != nil {
			return nil, err
		}
		return e.casApply(muts, true)
	}
	for _, mu := range muts {
		if err := mu.check(); err != nil {
			return nil, err
		}
	}
	for _, mu := range muts {
		mu.apply(e)
	}
	return voidResult(), nil
}

// Batch runs a batch.
func (e *Engine) Batch(req *BatchRequest) (*Result, error) {
	if req.Type > 2 {
		return nil, &Error{Code: CodeProtocolError, Message: "Invalid BATCH message type"}
	}
	type parsedStmt struct {
		p  *cql.Parsed
		ks string
		r  *Request
	}
	var stmts []parsedStmt
	for i := range req.Statements {
		r := &req.Statements[i]
		query, ks := r.Query, req.Keyspace
		if r.Keyspace != "" {
			ks = r.Keyspace
		}
		if r.Prepared != nil {
			query = r.Prepared.Query
			if r.Prepared.Keyspace != "" {
				ks = r.Prepared.Keyspace
			}
		}
		p, err := e.parse(query)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, parsedStmt{p, ks, r})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	var items []batchItem
	for _, s := range stmts {
		switch s.p.Stmt.(type) {
		case *cql.Insert, *cql.Update, *cql.Delete:
		default:
			return nil, invalid("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
		}
		pl, err := e.plan(s.p, s.ks)
		if err != nil {
			return nil, err
		}
		for _, k := range keyspacesOf(e, pl) {
			if err := e.checkConsistency(k, req.Consistency, req.Node); err != nil {
				return nil, err
			}
		}
		vars := pl.vars()
		if s.r.Values.Named == nil && len(s.r.Values.Positional) != len(vars) {
			return nil, invalid("There were %d markers(?) in CQL but %d bound variables", len(vars), len(s.r.Values.Positional))
		}
		items = append(items, batchItem{plan: pl.(*modPlan), ctx: &evalCtx{values: s.r.Values, vars: vars, now: now, e: e}})
	}
	return e.runBatch(req.Type, items, req.Timestamp, false, req.Consistency, req.Serial)
}
