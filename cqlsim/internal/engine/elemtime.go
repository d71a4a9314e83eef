package engine

import (
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// analyseElementTime types writetime(c[k]), maxwritetime(c[k]) or ttl(c[k]) (Cassandra 5.0):
// the write time or TTL of the element k of a set or the entry k of a map, not frozen. The
// key is kept as the item's one argument.
func analyseElementTime(t *table, s *cql.Selector, fn string) (*selItem, error) {
	el := s.Args[0]
	base := el.Args[0]
	if base.Kind == cql.SelColumn {
		c, err := t.column(base.Name)
		if err != nil {
			return nil, err
		}
		if c.kind == kindPartitionKey || c.kind == kindClustering {
			return nil, invalid("Cannot use selection function %s on PRIMARY KEY part %s", fn, c.name)
		}
	}
	inner, err := analyseElementSelector(t, el)
	if err != nil {
		return nil, err
	}
	if el.Slice || !inner.col.typ.multiCell() {
		return nil, unsupported(fn + "() of " + el.Raw)
	}
	it := &selItem{kind: selWritetime, col: inner.col, field: -1, typ: tBigint, name: fn + "(" + el.Raw + ")", args: inner.args, maxTime: fn == "maxwritetime"}
	if fn == "ttl" {
		it.kind, it.typ = selTTL, tInt
	}
	return it, nil
}

// elementTime is the answer of analyseElementTime's item on row r, whose column holds the
// live cell c: the element's write time or TTL, or null when the collection has no such key.
func (s *selectPlan) elementTime(ctx *evalCtx, it *selItem, r outRow, c *cell, floor, now int64) ([]byte, error) {
	k, err := s.evalItem(ctx, &it.args[0], r)
	if err != nil {
		return nil, err
	}
	if k == nil {
		return nil, invalid("Invalid null value for %s", it.args[0].name)
	}
	ty := it.col.typ
	kt := ty.elem
	if ty.code == primitive.DataTypeCodeMap {
		kt = ty.key
	}
	es, _ := liveElems(ty, c, floor, now)
	for _, e := range es {
		if compareValues(kt, e.key, k) == 0 {
			return it.cellTime(e.ts, e.exp, now), nil
		}
	}
	return nil, nil
}
