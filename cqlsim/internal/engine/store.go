package engine

import (
	"bytes"
	"math"
	"sort"
)

const noDeletion = math.MinInt64

// cell is one stored value with its write timestamp (µs) and expiry (Unix seconds, 0 = never).
// A nil v with a timestamp is a tombstone.
type cell struct {
	v       []byte
	ts      int64
	exp     int64
	ttl     int32
	set     bool
	elemExp []int64 // per-element expiries of a non-frozen collection (see elemttl.go)
	elemTS  []int64 // per-element write timestamps of a non-frozen collection
	// a non-frozen collection's deletion time and element tombstones (see collcell.go)
	cdel    int64
	hasCdel bool
	tombs   []elemTomb
}

func (c *cell) live(now int64) bool {
	if !c.set || c.v == nil || (c.exp != 0 && c.exp <= now) {
		return false
	}
	for i, e := range c.elemExp {
		if e == 0 || e > now {
			return true
		}
		if i == len(c.elemExp)-1 {
			return false
		}
	}
	return true
}

// row is one CQL row of a partition.
type row struct {
	ck        [][]byte
	marker    cell // primary key liveness (INSERT); v is a non-nil empty slice when set
	cells     []cell
	deletedAt int64
}

// partition holds the rows of one partition key in clustering order.
type partition struct {
	key       []byte   // serialized partition key
	keyVals   [][]byte // one value per partition key column
	token     int64
	rows      []*row
	static    []cell
	deletedAt int64
	ranges    []rangeTombstone
}

// rangeTombstone is a deletion of a clustering range (DELETE with a slice on the clustering key).
type rangeTombstone struct {
	rels []*resolvedRel
	ts   int64
}

// covers reports whether the clustering key ck falls in the tombstone's range.
func (rt *rangeTombstone) covers(t *table, p *partition, ck [][]byte) bool {
	vals := make([][]byte, len(t.cols))
	for i, c := range t.ck {
		vals[c.idx] = ck[i]
	}
	for _, r := range rt.rels {
		if !r.matches(vals, p.token) {
			return false
		}
	}
	return true
}

// tableData is the content of a table: partitions ordered by token.
type tableData struct {
	parts map[string]*partition
	order []*partition
}

func newTableData() *tableData { return &tableData{parts: map[string]*partition{}} }

func partitionLess(a, b *partition) bool {
	if a.token != b.token {
		return a.token < b.token
	}
	return bytes.Compare(a.key, b.key) < 0
}

// getPartition returns the partition with the given key values, creating it when create is set.
func (t *table) getPartition(keyVals [][]byte, create bool) *partition {
	key := serializePartitionKey(keyVals)
	if p, ok := t.data.parts[string(key)]; ok {
		return p
	}
	if !create {
		return nil
	}
	p := &partition{key: key, keyVals: keyVals, token: murmur3Token(key), deletedAt: noDeletion, static: make([]cell, len(t.cols))}
	t.data.parts[string(key)] = p
	i := sort.Search(len(t.data.order), func(i int) bool { return !partitionLess(t.data.order[i], p) })
	t.data.order = append(t.data.order, nil)
	copy(t.data.order[i+1:], t.data.order[i:])
	t.data.order[i] = p
	return p
}

// compareClustering compares clustering prefixes in the table's clustering order (DESC columns
// reversed). A shorter prefix that matches sorts first.
func (t *table) compareClustering(a, b [][]byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		c := compareValues(t.ck[i].typ, a[i], b[i])
		if t.ck[i].desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// findRow returns the index of the row with clustering ck (and whether it exists).
func (t *table) findRow(p *partition, ck [][]byte) (int, bool) {
	i := sort.Search(len(p.rows), func(i int) bool { return t.compareClustering(p.rows[i].ck, ck) >= 0 })
	return i, i < len(p.rows) && t.compareClustering(p.rows[i].ck, ck) == 0
}

func (t *table) getRow(p *partition, ck [][]byte, create bool) *row {
	i, ok := t.findRow(p, ck)
	if ok {
		return p.rows[i]
	}
	if !create {
		return nil
	}
	r := &row{ck: ck, cells: make([]cell, len(t.cols)), deletedAt: noDeletion}
	for i := range p.ranges {
		if rt := &p.ranges[i]; rt.ts > r.deletedAt && rt.covers(t, p, ck) {
			r.deletedAt = rt.ts
		}
	}
	p.rows = append(p.rows, nil)
	copy(p.rows[i+1:], p.rows[i:])
	p.rows[i] = r
	return r
}

// writeCell applies last-write-wins to a cell.
func writeCell(dst *cell, v []byte, ts, exp int64, ttl int32, floor int64) {
	if ts <= floor {
		return
	}
	if dst.set {
		if ts < dst.ts {
			return
		}
		if ts == dst.ts {
			// same timestamp: tombstones win, then as winsTie says
			if dst.v == nil {
				return
			}
			if v != nil && !winsTie(v, exp, dst.v, dst.exp) {
				return
			}
		}
	}
	*dst = cell{v: v, ts: ts, exp: exp, ttl: ttl, set: true}
}

// winsTie reports whether a live cell of value a that expires at aExp (0: never) wins over one
// of value b that expires at bExp written with the same timestamp, as Cassandra 5.0 reconciles
// them whatever the clock: a cell with a TTL over one without, of two with a TTL the one that
// expires later, then the greater value.
func winsTie(a []byte, aExp int64, b []byte, bExp int64) bool {
	switch {
	case aExp == bExp:
		return bytes.Compare(a, b) > 0
	case aExp == 0 || bExp == 0:
		return bExp == 0
	}
	return aExp > bExp
}

// rowLive reports whether a row has a live marker or a live cell.
func rowLive(r *row, p *partition, now int64) bool {
	if markerLive(r, p, now) {
		return true
	}
	floor := max(r.deletedAt, p.deletedAt)
	for i := range r.cells {
		c := &r.cells[i]
		if c.ts > floor && c.live(now) {
			return true
		}
	}
	return false
}

// cellValue returns the live value of a cell of r (nil when dead).
func cellValue(c *cell, floor, now int64) []byte {
	if c.ts <= floor || !c.live(now) {
		return nil
	}
	return c.v
}

func staticLive(p *partition, now int64) bool {
	for i := range p.static {
		if p.static[i].ts > p.deletedAt && p.static[i].live(now) {
			return true
		}
	}
	return false
}

// rowValues materialises a row's column values in t.cols order.
func (t *table) rowValues(p *partition, r *row, now int64) [][]byte {
	vals := make([][]byte, len(t.cols))
	for _, c := range t.cols {
		switch c.kind {
		case kindPartitionKey:
			vals[c.idx] = p.keyVals[c.pos]
		case kindClustering:
			if r != nil {
				vals[c.idx] = r.ck[c.pos]
			}
		case kindStatic:
			vals[c.idx] = visibleValue(c.typ, &p.static[c.idx], p.deletedAt, now)
		default:
			if r != nil {
				vals[c.idx] = visibleValue(c.typ, &r.cells[c.idx], max(r.deletedAt, p.deletedAt), now)
			}
		}
		if c.kind == kindRegular || c.kind == kindStatic {
			vals[c.idx] = padUDTs(c.typ, vals[c.idx])
		}
	}
	return vals
}

// markerLive reports whether r is live by its primary key alone (the marker an INSERT writes).
func markerLive(r *row, p *partition, now int64) bool {
	floor := max(r.deletedAt, p.deletedAt)
	return r.marker.set && r.marker.ts > floor && (r.marker.exp == 0 || r.marker.exp > now)
}
