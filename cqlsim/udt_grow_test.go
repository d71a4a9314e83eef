package cqlsim_test

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestUDTValuesAfterAddField: after ALTER TYPE ... ADD, Cassandra returns a non-frozen UDT
// column's value with the new field (null), built from its cells, and every frozen UDT value
// (a column, or inside a collection or tuple) as it was stored, without it. cqlsim padded them all.
func TestUDTValuesAfterAddField(t *testing.T) {
	seven := []byte{0, 0, 0, 4, 0, 0, 0, 7}                               // the field a = 7
	null := []byte{0xff, 0xff, 0xff, 0xff}                                // a null field
	list := append([]byte{0, 0, 0, 1, 0, 0, 0, 8}, seven...)              // [{a: 7}]
	tuple := append([]byte{0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 8}, seven...) // (1, {a: 7})
	want := map[string][]byte{
		"f":  seven,
		"n":  append(append([]byte{}, seven...), null...),
		"l":  list,
		"tu": tuple,
	}
	for _, srv := range reviewServers(t, cqlsim.Options{}) {
		t.Run(srv.name, func(t *testing.T) {
			rc := dialRaw(t, srv.addr)
			rc.startup(nil)
			setupReviewKeyspace(t, srv, rc,
				"CREATE TYPE review_sim.g (a int)",
				"CREATE TABLE review_sim.u (k int PRIMARY KEY, f frozen<g>, n g, l list<frozen<g>>, tu tuple<int, frozen<g>>)",
				"INSERT INTO review_sim.u (k, f, n, l, tu) VALUES (1, {a: 7}, {a: 7}, [{a: 7}], (1, {a: 7}))",
				"ALTER TYPE review_sim.g ADD b text")
			for i, col := range []string{"f", "n", "l", "tu"} {
				fr := rawQuery(rc, int16(10+i), "SELECT "+col+" FROM review_sim.u WHERE k = 1", rawQueryOpts{consistency: 1, serial: -1})
				rows, ok := fr.Body.Message.(*message.RowsResult)
				if !ok || len(rows.Data) != 1 {
					t.Fatalf("%s: %v", col, fr.Body.Message)
				}
				if got := rows.Data[0][0]; !bytes.Equal(got, want[col]) {
					t.Errorf("%s = %s, want %s", col, hex.EncodeToString(got), hex.EncodeToString(want[col]))
				}
			}
		})
	}
}
