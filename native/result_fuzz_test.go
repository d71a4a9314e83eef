package native

import (
	"encoding/binary"
	"testing"

	"github.com/cqlbridge/cqlbridge/native/cqltype"
)

// FuzzRows feeds arbitrary row data to a Result: indexRows must reject anything that is not
// exactly rowCount rows of well-formed cells, and once it accepts, every row and cell must be
// readable and scannable without panicking.
func FuzzRows(f *testing.F) {
	cell := func(b []byte, v []byte) []byte {
		if v == nil {
			return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		return append(b, v...)
	}
	var seed []byte
	seed = cell(seed, []byte{0, 0, 0, 1})
	seed = cell(seed, []byte("one"))
	seed = cell(seed, []byte{0, 0, 0, 2})
	seed = cell(seed, nil)
	f.Add(seed, 2)
	f.Add(seed, 3)
	f.Add([]byte{0xff, 0xff, 0xff, 0xfe}, 1)
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff}, 1)
	cols := []Column{{Name: "k", Type: cqltype.New(cqltype.KindInt)}, {Name: "v", Type: cqltype.New(cqltype.KindVarchar)}}
	f.Fuzz(func(t *testing.T, data []byte, rows int) {
		if rows < 0 || rows > 1<<20 {
			return
		}
		r := &Result{kind: ResultRows, columns: cols, data: data, rowCount: rows}
		if err := r.indexRows(); err != nil {
			return
		}
		for _, row := range r.Rows() {
			for i := range row.Len() {
				_ = row.Raw(i)
			}
			var k int32
			var v *string
			_ = row.Scan(&k, &v)
			_, _ = Get[string](row, 1)
			_, _ = row.Values()
		}
	})
}
