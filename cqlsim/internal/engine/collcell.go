package engine

import (
	"encoding/binary"

	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/cqlbridge/cqlbridge/cqlsim/internal/cql"
)

// A non-frozen list, set or map is stored, as in Cassandra, as one cell per element plus a
// collection deletion time; so is a non-frozen user type value, one cell per field. The cell
// keeps the merged value (cell.v) with one write timestamp and one expiry per element
// (cell.elemTS, cell.elemExp), the deletion time of the whole value (cell.cdel, when
// cell.hasCdel) and, for sets, maps and user types, the element (field) tombstones
// (cell.tombs).
//
// Writes follow Cassandra's operations: a full overwrite (INSERT, SET c = ...) deletes the
// collection at timestamp-1 and writes its elements at the timestamp; an append, a put or
// an addition writes element cells; a removal writes element tombstones; DELETE c deletes the
// collection at the timestamp. Each element is then reconciled on its own: the higher
// timestamp wins, a tombstone wins a tie, and of two live cells with the same timestamp the
// one winsTie prefers (one with a TTL, the later expiry, the greater value). Elements not newer than the collection deletion (or the row's or
// partition's deletion) are not visible.
//
// A user type value's fields are its elements, identified by their position (fieldKey): an
// overwrite writes the fields that are not null, SET u.f = v and DELETE u.f write or delete
// field f alone (SET u.f = null deletes it). cell.v holds every field of the type, null where
// no field cell is live, and cell.elemTS and cell.elemExp are aligned with the fields, a field
// without a cell having the expiry absentField. A value none of whose fields has a live cell
// is null.

// absentField is the expiry recorded for a field of a user type value that has no cell: one
// long past, so that cell.live counts the fields that have one only.
const absentField = -1

// elemTomb is the deletion of one set element or map key.
type elemTomb struct {
	key []byte
	ts  int64
}

// collElem is one element cell: the set element or map key (nil for a list), the map value
// or list element, and its write timestamp and expiry.
type collElem struct {
	key, val []byte
	ts, exp  int64
}

// elementWise reports whether a column type is stored element by element: a non-frozen
// collection or user type.
func elementWise(ty *ctype) bool {
	return ty.multiCell()
}

// elemKeyType is the type elements are identified by (nil for a list: by position).
func elemKeyType(ty *ctype) *ctype {
	switch ty.code {
	case primitive.DataTypeCodeSet:
		return ty.elem
	case primitive.DataTypeCodeMap:
		return ty.key
	case primitive.DataTypeCodeUdt:
		return tBlob // fieldKey
	}
	return nil
}

// fieldKey identifies field i of a user type value among its elements: its position, two bytes
// big-endian (as Cassandra's cell path), so that keys sort in field order.
func fieldKey(i int) []byte {
	return binary.BigEndian.AppendUint16(nil, uint16(i))
}

// fieldAt returns the position of the field that fieldKey k identifies.
func fieldAt(k []byte) int {
	return int(binary.BigEndian.Uint16(k))
}

// at returns per-element value i of a cell (expiry or timestamp): own[i] when the cell has
// one, else the cell-wide value.
func at(own []int64, whole int64, i int) int64 {
	if i < len(own) {
		return own[i]
	}
	return whole
}

// elemsOf returns the stored elements of a collection cell, expired ones included.
func elemsOf(ty *ctype, c *cell) []collElem {
	if c.v == nil {
		return nil
	}
	if ty.code == primitive.DataTypeCodeUdt {
		fs, err := decodeFields(c.v, fieldCount(c.v))
		if err != nil {
			return nil
		}
		var out []collElem
		for i, f := range fs {
			if exp := at(c.elemExp, c.exp, i); f != nil && exp != absentField {
				out = append(out, collElem{key: fieldKey(i), val: f, ts: at(c.elemTS, c.ts, i), exp: exp})
			}
		}
		return out
	}
	keys, vals := collectionEntries(ty, c.v)
	exps := perElement(c.elemExp, c.exp, len(keys))
	tss := perElement(c.elemTS, c.ts, len(keys))
	out := make([]collElem, len(keys))
	for i := range keys {
		e := collElem{ts: tss[i], exp: exps[i]}
		switch ty.code {
		case primitive.DataTypeCodeList:
			e.val = keys[i]
		case primitive.DataTypeCodeSet:
			e.key = keys[i]
		default:
			e.key, e.val = keys[i], vals[i]
		}
		out[i] = e
	}
	return out
}

// collState is a collection cell being modified.
type collState struct {
	ty      *ctype
	elems   []collElem
	tombs   []elemTomb
	cdel    int64
	hasCdel bool
	floor   int64 // row or partition deletion: elements not newer are dead
	now     int64
}

func loadColl(ty *ctype, c *cell, floor, now int64) *collState {
	st := &collState{ty: ty, tombs: c.tombs, cdel: c.cdel, hasCdel: c.hasCdel, floor: floor, now: now}
	if c.set {
		st.elems = elemsOf(ty, c)
	}
	st.prune()
	return st
}

// shadowed reports whether an element cell with timestamp ts is covered by a deletion of the
// collection, row or partition.
func (st *collState) shadowed(ts int64) bool {
	return ts <= st.floor || (st.hasCdel && ts <= st.cdel)
}

// prune drops the elements and tombstones that can no longer matter.
func (st *collState) prune() {
	es := st.elems[:0:0]
	for _, e := range st.elems {
		if st.shadowed(e.ts) || (e.exp != 0 && e.exp <= st.now) {
			continue
		}
		es = append(es, e)
	}
	st.elems = es
	ts := st.tombs[:0:0]
	for _, t := range st.tombs {
		if !st.shadowed(t.ts) {
			ts = append(ts, t)
		}
	}
	st.tombs = ts
}

// deleteAll records a deletion of the whole collection at ts.
func (st *collState) deleteAll(ts int64) {
	if !st.hasCdel || ts > st.cdel {
		st.cdel, st.hasCdel = ts, true
	}
	st.prune()
}

// find returns the index of the element with key k (set or map), or -1.
func (st *collState) find(k []byte) int {
	kt := elemKeyType(st.ty)
	for i, e := range st.elems {
		if compareValues(kt, e.key, k) == 0 {
			return i
		}
	}
	return -1
}

// put writes an element cell (set element or map entry) at ts.
func (st *collState) put(k, v []byte, ts, exp int64) {
	if st.shadowed(ts) {
		return
	}
	kt := elemKeyType(st.ty)
	for _, t := range st.tombs {
		if t.ts >= ts && compareValues(kt, t.key, k) == 0 {
			return
		}
	}
	ne := collElem{key: k, val: v, ts: ts, exp: exp}
	if i := st.find(k); i >= 0 {
		if !newerElem(ne, st.elems[i]) {
			return
		}
		st.elems[i] = ne
		return
	}
	i := 0
	for i < len(st.elems) && compareValues(kt, st.elems[i].key, k) < 0 {
		i++
	}
	st.elems = append(st.elems, collElem{})
	copy(st.elems[i+1:], st.elems[i:])
	st.elems[i] = ne
}

// newerElem reports whether element cell a wins over b (same key): the higher timestamp, then
// as winsTie says.
func newerElem(a, b collElem) bool {
	if a.ts != b.ts {
		return a.ts > b.ts
	}
	return winsTie(a.val, a.exp, b.val, b.exp)
}

// remove writes a tombstone for a set element or map key at ts.
func (st *collState) remove(k []byte, ts int64) {
	if st.shadowed(ts) {
		return
	}
	if i := st.find(k); i >= 0 && st.elems[i].ts <= ts {
		st.elems = append(st.elems[:i], st.elems[i+1:]...)
	}
	kt := elemKeyType(st.ty)
	for i, t := range st.tombs {
		if compareValues(kt, t.key, k) == 0 {
			if ts > t.ts {
				st.tombs[i].ts = ts
			}
			return
		}
	}
	st.tombs = append(st.tombs, elemTomb{key: k, ts: ts})
}

// appendList adds list elements at the end (or at the front when prepend is set).
func (st *collState) appendList(vals [][]byte, ts, exp int64, prepend bool) {
	if st.shadowed(ts) || len(vals) == 0 {
		return
	}
	add := make([]collElem, len(vals))
	for i, v := range vals {
		add[i] = collElem{val: v, ts: ts, exp: exp}
	}
	if prepend {
		st.elems = append(add, st.elems...)
	} else {
		st.elems = append(st.elems, add...)
	}
}

// removeListAt deletes the list element at position i (of the live elements) at ts: a
// tombstone of that element, which survives when newer.
func (st *collState) removeListAt(i int, ts int64) {
	if i < 0 || i >= len(st.elems) || st.shadowed(ts) || st.elems[i].ts > ts {
		return
	}
	st.elems = append(st.elems[:i], st.elems[i+1:]...)
}

// setListAt overwrites the list element at position i at ts.
func (st *collState) setListAt(i int, v []byte, ts, exp int64) {
	if i < 0 || i >= len(st.elems) || st.shadowed(ts) {
		return
	}
	ne := collElem{val: v, ts: ts, exp: exp}
	if newerElem(ne, st.elems[i]) {
		st.elems[i] = ne
	}
}

// store writes the collection back into c.
func (st *collState) store(c *cell, ttl int32) {
	if len(st.elems) == 0 {
		ts := int64(noDeletion)
		if st.hasCdel {
			ts = st.cdel
		}
		for _, t := range st.tombs {
			ts = max(ts, t.ts)
		}
		*c = cell{ts: ts, ttl: ttl, set: true, cdel: st.cdel, hasCdel: st.hasCdel, tombs: st.tombs}
		return
	}
	var v []byte
	var tss, exps []int64
	if st.ty.code == primitive.DataTypeCodeUdt {
		v, tss, exps = st.fields()
	} else {
		v, tss, exps = st.entries()
	}
	ts := st.elems[0].ts
	for _, e := range st.elems {
		ts = max(ts, e.ts)
	}
	*c = cell{v: v, ts: ts, ttl: ttl, set: true, elemTS: tss, elemExp: exps,
		cdel: st.cdel, hasCdel: st.hasCdel, tombs: st.tombs}
}

// entries encodes the elements of a collection, with their timestamps and expiries.
func (st *collState) entries() (v []byte, tss, exps []int64) {
	keys := make([][]byte, len(st.elems))
	var vals [][]byte
	if st.ty.code == primitive.DataTypeCodeMap {
		vals = make([][]byte, len(st.elems))
	}
	tss = make([]int64, len(st.elems))
	exps = make([]int64, len(st.elems))
	for i, e := range st.elems {
		switch st.ty.code {
		case primitive.DataTypeCodeList:
			keys[i] = e.val
		case primitive.DataTypeCodeSet:
			keys[i] = e.key
		default:
			keys[i], vals[i] = e.key, e.val
		}
		tss[i], exps[i] = e.ts, e.exp
	}
	return encodeEntries(st.ty, keys, vals), tss, exps
}

// fields encodes the field cells of a user type value: every field of the type, null (with the
// expiry absentField) where it has no cell, with the fields' timestamps and expiries.
func (st *collState) fields() (v []byte, tss, exps []int64) {
	n := len(st.ty.elems)
	fs := make([][]byte, n)
	tss = make([]int64, n)
	exps = make([]int64, n)
	for i := range exps {
		exps[i] = absentField
	}
	for _, e := range st.elems {
		i := fieldAt(e.key)
		fs[i], tss[i], exps[i] = e.val, e.ts, e.exp
	}
	return encodeFields(fs), tss, exps
}

// liveElems returns the elements of an element-wise cell that a read sees: without the expired
// ones and those not newer than its deletion or floor (the row's or partition's deletion). It
// also reports whether they are all the stored ones.
func liveElems(ty *ctype, c *cell, floor, now int64) ([]collElem, bool) {
	st := &collState{ty: ty, elems: elemsOf(ty, c), cdel: c.cdel, hasCdel: c.hasCdel, floor: floor, now: now}
	n := len(st.elems)
	st.prune()
	return st.elems, len(st.elems) == n
}

// visibleValue returns the value of a column cell as a read sees it: for a collection or user
// type stored element by element, its live elements (liveElems), null when there are none.
func visibleValue(ty *ctype, c *cell, floor, now int64) []byte {
	if !elementWise(ty) || c.v == nil {
		return cellValue(c, floor, now)
	}
	es, all := liveElems(ty, c, floor, now)
	switch {
	case len(es) == 0:
		return nil
	case all:
		return c.v
	}
	var tmp cell
	(&collState{ty: ty, elems: es}).store(&tmp, 0)
	return tmp.v
}

// overwrite replaces the collection by v at ts: a deletion at ts-1 and v's elements at ts.
func (st *collState) overwrite(v []byte, ts, exp int64) {
	st.deleteAll(ts - 1)
	st.add(v, ts, exp, false)
}

// add writes the elements of the collection value v at ts (appended, or prepended to a list), or
// the fields of the user type value v.
func (st *collState) add(v []byte, ts, exp int64, prepend bool) {
	if v == nil {
		return
	}
	if st.ty.code == primitive.DataTypeCodeUdt {
		fs, err := decodeFields(v, len(st.ty.elems))
		if err != nil {
			return
		}
		for i, f := range fs {
			if f != nil { // a null field is no cell
				st.put(fieldKey(i), f, ts, exp)
			}
		}
		return
	}
	keys, vals := collectionEntries(st.ty, v)
	switch st.ty.code {
	case primitive.DataTypeCodeList:
		st.appendList(keys, ts, exp, prepend)
	case primitive.DataTypeCodeSet:
		for _, k := range keys {
			st.put(k, nil, ts, exp)
		}
	default:
		for i, k := range keys {
			st.put(k, vals[i], ts, exp)
		}
	}
}

// subtract removes the elements (set, list) or keys (map) listed in v at ts.
func (st *collState) subtract(v []byte, ts int64) {
	if v == nil {
		return
	}
	rm, err := decodeElems(v)
	if err != nil {
		return
	}
	if st.ty.code != primitive.DataTypeCodeList {
		for _, k := range rm {
			st.remove(k, ts)
		}
		return
	}
	for i := len(st.elems) - 1; i >= 0; i-- {
		for _, x := range rm {
			if compareValues(st.ty.elem, st.elems[i].val, x) == 0 {
				st.removeListAt(i, ts)
				break
			}
		}
	}
}

// listIndex decodes a list index.
func listIndex(k []byte) int {
	if len(k) != 4 {
		return -1
	}
	return int(int32(beUint64(k)))
}

// deleteElem deletes one element (list index, set element or map key) at ts.
func (st *collState) deleteElem(k []byte, ts int64) {
	if st.ty.code == primitive.DataTypeCodeList {
		st.removeListAt(listIndex(k), ts)
		return
	}
	st.remove(k, ts)
}

// assign applies an UPDATE assignment to the collection at ts. It returns an error for a list
// index out of bounds.
func (st *collState) assign(a assign, v, k []byte, ts, exp int64) error {
	switch a.kind {
	case cql.AssignSet:
		if v != nil && isEmptyCollection(st.ty, v) {
			v = nil
		}
		st.overwrite(v, ts, exp)
	case cql.AssignAdd:
		st.add(v, ts, exp, false)
	case cql.AssignPrepend:
		st.add(v, ts, exp, true)
	case cql.AssignSub:
		st.subtract(v, ts)
	case cql.AssignField:
		if v == nil {
			st.remove(fieldKey(a.field), ts)
		} else {
			st.put(fieldKey(a.field), v, ts, exp)
		}
	case cql.AssignElem:
		if st.ty.code == primitive.DataTypeCodeList {
			if err := listIndexError(k, len(st.elems)); err != nil {
				return err
			}
			i := listIndex(k)
			if v == nil {
				st.removeListAt(i, ts)
			} else {
				st.setListAt(i, v, ts, exp)
			}
			return nil
		}
		if v == nil {
			st.remove(k, ts)
		} else {
			st.put(k, v, ts, exp)
		}
	}
	return nil
}
