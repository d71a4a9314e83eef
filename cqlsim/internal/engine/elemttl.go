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

// liveElements filters the expired elements out of a multi-cell collection cell's value; it
// returns the live value with the expiries and write timestamps of its elements.
func liveElements(ty *ctype, c *cell, v []byte, now int64) ([]byte, []int64, []int64) {
	if v == nil || (c.elemExp == nil && c.elemTS == nil) {
		return v, nil, nil
	}
	keys, vals := collectionEntries(ty, v)
	exps := perElement(c.elemExp, c.exp, len(keys))
	tss := perElement(c.elemTS, c.ts, len(keys))
	var nk, nv [][]byte
	var ne, nt []int64
	for i := range keys {
		if e := exps[i]; e != 0 && e <= now {
			continue
		}
		nk = append(nk, keys[i])
		if vals != nil {
			nv = append(nv, vals[i])
		}
		ne, nt = append(ne, exps[i]), append(nt, tss[i])
	}
	if len(nk) == len(keys) {
		return v, exps, tss
	}
	return encodeEntries(ty, nk, nv), ne, nt
}

// elementOrigins maps each element of a collection after an assignment to the element of the
// old value it comes from, or -1 when the statement wrote it.
func elementOrigins(a assign, old, v, k, nv []byte) []int {
	ty := a.col.typ
	oldKeys, _ := collectionEntries(ty, old)
	newKeys, _ := collectionEntries(ty, nv)
	out := make([]int, len(newKeys))
	for i := range out {
		out[i] = -1
	}
	switch ty.code {
	case primitive.DataTypeCodeList:
		added, _ := collectionEntries(ty, v)
		switch a.kind {
		case cql.AssignAdd:
			for i := range out {
				if i < len(oldKeys) {
					out[i] = i
				}
			}
		case cql.AssignPrepend:
			for i := range out {
				if j := i - len(added); j >= 0 && j < len(oldKeys) {
					out[i] = j
				}
			}
		case cql.AssignElem:
			idx := -1
			if len(k) == 4 {
				idx = int(int32(beUint64(k)))
			}
			for i := range out {
				switch {
				case v == nil && i >= idx: // element idx removed
					out[i] = i + 1
				case v != nil && i == idx:
					out[i] = -1
				default:
					out[i] = i
				}
			}
		case cql.AssignSub:
			n := 0
			for j, e := range oldKeys {
				removed := false
				for _, r := range added {
					removed = removed || compareValues(ty.elem, e, r) == 0
				}
				if !removed && n < len(out) {
					out[n] = j
					n++
				}
			}
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
			isWritten := false
			for _, w := range written {
				isWritten = isWritten || compareValues(kt, nk, w) == 0
			}
			if isWritten {
				continue
			}
			for j, ok := range oldKeys {
				if compareValues(kt, nk, ok) == 0 {
					out[i] = j
					break
				}
			}
		}
	}
	return out
}

// perElement returns per-element values of a collection cell (expiries or timestamps): the
// cell's own slice when it has one, else the cell-wide value repeated.
func perElement(own []int64, whole int64, n int) []int64 {
	if len(own) == n {
		return own
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = whole
	}
	return out
}

// setCollectionCell stores a collection value with per-element expiries and write timestamps,
// collapsing the expiries to the cell's when they are all equal.
func setCollectionCell(dst *cell, v []byte, exps, tss []int64, ts int64, ttl int32) {
	allSame := true
	for _, e := range exps {
		allSame = allSame && e == exps[0]
	}
	c := cell{v: v, ts: ts, ttl: ttl, set: true, elemTS: tss}
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
