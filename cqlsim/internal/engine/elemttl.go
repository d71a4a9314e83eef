package engine

import (
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// Non-frozen collections keep one expiry per element (Cassandra stores each element as its own
// cell): appending with a TTL expires only the new elements, and elements written with a TTL
// keep it when others are added without one. cell.elemExp, when set, is aligned with the
// elements (map entries) of cell.v, and cell.exp is then 0.

// collectionEntries splits a list/set value into elements, or a map value into keys (with the
// values returned separately).
func collectionEntries(ty *ctype, b []byte) (keys, vals [][]byte) {
	if b == nil {
		return nil, nil
	}
	if ty.code == primitive.DataTypeCodeMap {
		ks, vs, err := decodeMap(b)
		if err != nil {
			return nil, nil
		}
		return ks, vs
	}
	es, err := decodeElems(b)
	if err != nil {
		return nil, nil
	}
	return es, nil
}

func encodeEntries(ty *ctype, keys, vals [][]byte) []byte {
	if len(keys) == 0 {
		return nil
	}
	if ty.code == primitive.DataTypeCodeMap {
		return encodeMap(keys, vals)
	}
	return encodeElems(keys)
}

// liveElements filters the expired elements out of a multi-cell collection cell's value.
func liveElements(ty *ctype, c *cell, v []byte, now int64) ([]byte, []int64) {
	if c.elemExp == nil || v == nil {
		return v, nil
	}
	keys, vals := collectionEntries(ty, v)
	if len(keys) != len(c.elemExp) {
		return v, nil
	}
	var nk, nv [][]byte
	var ne []int64
	for i := range keys {
		if e := c.elemExp[i]; e != 0 && e <= now {
			continue
		}
		nk = append(nk, keys[i])
		if vals != nil {
			nv = append(nv, vals[i])
		}
		ne = append(ne, c.elemExp[i])
	}
	if len(nk) == len(keys) {
		return v, c.elemExp
	}
	return encodeEntries(ty, nk, nv), ne
}

// elementExpiries computes the per-element expiries of a collection after an assignment: the
// elements the statement writes get its expiry, the others keep theirs.
func elementExpiries(a assign, old []byte, oldExp []int64, cellExp int64, v, k, nv []byte, exp int64) []int64 {
	ty := a.col.typ
	oldKeys, _ := collectionEntries(ty, old)
	if len(oldExp) != len(oldKeys) {
		oldExp = make([]int64, len(oldKeys))
		for i := range oldExp {
			oldExp[i] = cellExp
		}
	}
	newKeys, _ := collectionEntries(ty, nv)
	out := make([]int64, len(newKeys))
	switch ty.code {
	case primitive.DataTypeCodeList:
		added, _ := collectionEntries(ty, v)
		switch a.kind {
		case cql.AssignAdd:
			copy(out, oldExp)
			for i := len(oldExp); i < len(out); i++ {
				out[i] = exp
			}
			return out
		case cql.AssignPrepend:
			for i := range out {
				if i < len(added) {
					out[i] = exp
				} else if j := i - len(added); j < len(oldExp) {
					out[i] = oldExp[j]
				}
			}
			return out
		case cql.AssignElem:
			copy(out, oldExp)
			if len(k) == 4 && v != nil {
				if idx := int(int32(beUint64(k))); idx >= 0 && idx < len(out) {
					out[idx] = exp
				}
			}
			if v == nil && len(k) == 4 { // element removed
				idx := int(int32(beUint64(k)))
				if idx >= 0 && idx < len(oldExp) {
					rest := append(append([]int64{}, oldExp[:idx]...), oldExp[idx+1:]...)
					copy(out, rest)
				}
			}
			return out
		case cql.AssignSub:
			n := 0
			for i, e := range oldKeys {
				removed := false
				for _, r := range added {
					removed = removed || compareValues(ty.elem, e, r) == 0
				}
				if !removed && n < len(out) {
					out[n] = oldExp[i]
					n++
				}
			}
			return out
		}
	case primitive.DataTypeCodeSet, primitive.DataTypeCodeMap:
		kt := ty.elem
		if ty.code == primitive.DataTypeCodeMap {
			kt = ty.key
		}
		var written [][]byte
		switch a.kind {
		case cql.AssignAdd:
			written, _ = collectionEntries(ty, v)
		case cql.AssignElem:
			written = [][]byte{k}
		}
		for i, nk := range newKeys {
			out[i] = exp
			isWritten := false
			for _, w := range written {
				isWritten = isWritten || compareValues(kt, nk, w) == 0
			}
			if isWritten {
				continue
			}
			for j, ok := range oldKeys {
				if compareValues(kt, nk, ok) == 0 {
					out[i] = oldExp[j]
					break
				}
			}
		}
		return out
	}
	for i := range out {
		out[i] = exp
	}
	return out
}

// setCollectionCell stores a collection value with per-element expiries, collapsing them to the
// cell's expiry when they are all equal.
func setCollectionCell(dst *cell, v []byte, exps []int64, ts int64, ttl int32) {
	allSame := true
	for _, e := range exps {
		allSame = allSame && e == exps[0]
	}
	c := cell{v: v, ts: ts, ttl: ttl, set: true}
	if allSame && len(exps) > 0 {
		c.exp = exps[0]
	} else if !allSame {
		c.elemExp = exps
	}
	*dst = c
}

// removeExpiry drops the expiry of a deleted element (list index or map key) from exps.
func removeExpiry(ty *ctype, old []byte, exps []int64, key []byte) []int64 {
	if exps == nil {
		return nil
	}
	keys, _ := collectionEntries(ty, old)
	out := make([]int64, 0, len(exps))
	for i := range keys {
		if i >= len(exps) {
			break
		}
		drop := false
		if ty.code == primitive.DataTypeCodeList {
			drop = len(key) == 4 && int(int32(beUint64(key))) == i
		} else {
			drop = compareValues(ty.key, keys[i], key) == 0
		}
		if !drop {
			out = append(out, exps[i])
		}
	}
	return out
}
