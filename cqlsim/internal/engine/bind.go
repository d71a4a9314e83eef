package engine

import (
	"fmt"
	"math"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// boundTerm is a term with the type and receiver name it is evaluated against.
type boundTerm struct {
	t    *cql.Term
	ty   *ctype
	name string
}

func (b *boundTerm) eval(ctx *evalCtx) (termResult, error) { return ctx.evalTerm(b.t, b.ty, b.name) }

// binder records the metadata of bind markers while a statement is analysed.
type binder struct {
	vars      []Column
	ks, table string
	err       *Error // first analysis error found while binding (reported by finish)
}

// hasMarker reports whether a collection literal holds bind markers among its elements.
func hasMarker(t *cql.Term) bool {
	for _, e := range t.Elems {
		if e.Kind == cql.TermBind {
			return true
		}
	}
	for _, e := range t.Values {
		if e.Kind == cql.TermBind {
			return true
		}
	}
	return false
}

func (bd *binder) bind(t *cql.Term, ty *ctype, name string) *boundTerm {
	bd.register(t, ty, name)
	return &boundTerm{t: t, ty: ty, name: name}
}

func (bd *binder) register(t *cql.Term, ty *ctype, name string) {
	if t == nil || ty == nil {
		return
	}
	switch t.Kind {
	case cql.TermBind:
		if t.BindIdx < len(bd.vars) {
			n := name
			if t.BindName != "" {
				n = t.BindName
			}
			bd.vars[t.BindIdx] = Column{Keyspace: bd.ks, Table: bd.table, Name: n, Type: ty.dataType()}
		}
	case cql.TermList, cql.TermSet:
		if ty.isCollection() && bd.err == nil && hasMarker(t) {
			bd.err = invalid("Invalid %s literal for %s: bind variables are not supported inside collection literals", literalKind(t), name)
		}
		if ty.elem != nil {
			for _, e := range t.Elems {
				bd.register(e, ty.elem, "value("+name+")")
			}
		}
	case cql.TermMap:
		if t.Fields != nil && ty.code == primitive.DataTypeCodeUdt {
			for i, f := range t.Fields {
				for j, fn := range ty.fields {
					if fn == f {
						bd.register(t.Values[i], ty.elems[j], name+"."+f)
					}
				}
			}
		} else if ty.key != nil {
			if bd.err == nil && hasMarker(t) {
				bd.err = invalid("Invalid map literal for %s: bind variables are not supported inside collection literals", name)
			}
			for i := range t.Elems {
				bd.register(t.Elems[i], ty.key, "key("+name+")")
				bd.register(t.Values[i], ty.val, "value("+name+")")
			}
		}
	case cql.TermTuple:
		for i, e := range t.Elems {
			if i < len(ty.elems) {
				bd.register(e, ty.elems[i], fmt.Sprintf("%s[%d]", name, i))
			}
		}
	case cql.TermCast:
		bd.register(t.Elems[0], ty, name)
	case cql.TermFunc:
		known := make([]*ctype, len(t.Elems))
		for i, a := range t.Elems {
			if a.Kind == cql.TermUUID {
				known[i] = tTimeUUID
			}
		}
		if params, _, err := functionSignature(t.Text, known); err == nil {
			for i, a := range t.Elems {
				bd.register(a, params[i], name)
			}
		}
	}
	// markers left unregistered (type unknown) default to blob when prepared
}

// finish fills markers the analysis could not type.
func (bd *binder) finish() []Column {
	for i := range bd.vars {
		if bd.vars[i].Type == nil {
			bd.vars[i] = Column{Keyspace: bd.ks, Table: bd.table, Name: fmt.Sprintf("var%d", i), Type: tBlob.dataType()}
		}
	}
	return bd.vars
}

// evalInt evaluates an int-typed term (LIMIT, TTL); ok is false for null/unset.
func evalInt32(ctx *evalCtx, b *boundTerm) (int64, bool, error) {
	if b == nil {
		return 0, false, nil
	}
	r, err := b.eval(ctx)
	if err != nil || r.unset || r.b == nil {
		return 0, false, err
	}
	if len(r.b) != 4 {
		return 0, false, invalid("Expected 4 or 0 byte int (%d)", len(r.b))
	}
	return int64(int32(uint32(r.b[0])<<24 | uint32(r.b[1])<<16 | uint32(r.b[2])<<8 | uint32(r.b[3]))), true, nil
}

// evalInt64 evaluates a USING TIMESTAMP value: false when there is none or it is unset; a null
// one fails as on Cassandra.
func evalInt64(ctx *evalCtx, b *boundTerm) (int64, bool, error) {
	if b == nil {
		return 0, false, nil
	}
	r, err := b.eval(ctx)
	if err != nil || r.unset {
		return 0, false, err
	}
	if r.b == nil {
		return 0, false, invalid("Invalid null value of timestamp")
	}
	if len(r.b) != 8 {
		return 0, false, invalid("Expected 8 or 0 byte long (%d)", len(r.b))
	}
	var v uint64
	for _, c := range r.b {
		v = v<<8 | uint64(c)
	}
	if int64(v) == math.MinInt64 {
		return 0, false, invalid("Out of bound timestamp, must be in [%d, %d]", int64(math.MinInt64+1), int64(math.MaxInt64))
	}
	return int64(v), true, nil
}
