package engine

import "github.com/datastax/go-cassandra-native-protocol/primitive"

// Non-frozen collections and user types keep one expiry per element or field (Cassandra stores
// each as its own cell): appending with a TTL expires only the new elements, and elements
// written with a TTL keep it when others are added without one. cell.elemExp, when set, is
// aligned with the elements (map entries, user type fields) of cell.v, and cell.exp is then 0.

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
