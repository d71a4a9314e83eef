package cqlsim_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"

	"github.com/cqlbridge/cqlbridge/cqlsim"
)

// TestSumAndAvgOfFloatingPoint: sum() and avg() of float and double columns, as Cassandra
// computes them (double precision with compensated summation, nulls skipped, 0 for no values,
// the column's own type). cqlsim refused them ("sum() on double is not supported").
func TestSumAndAvgOfFloatingPoint(t *testing.T) {
	const q = "SELECT sum(f), avg(f), sum(d), avg(d) FROM review_sim.a WHERE k = "
	f32 := func(b []byte) float64 { return float64(math.Float32frombits(binary.BigEndian.Uint32(b))) }
	f64 := func(b []byte) float64 { return math.Float64frombits(binary.BigEndian.Uint64(b)) }
	sixTenths := 0.6 // a variable: 0.6 / 3 in float64 arithmetic, not exact constant arithmetic
	cases := []struct {
		key  string
		want [4]float64
	}{
		// 0.1+0.2+0.3 is 0.6000000000000001 added naively; compensated, 0.6.
		{"1", [4]float64{7.75, float64(float32(7.75 / 3)), 0.6, sixTenths / 3}},
		{"2", [4]float64{0, 0, 0, 0}}, // only nulls
		{"3", [4]float64{0, 0, 0, 0}}, // no rows
	}
	for _, srv := range reviewServers(t, cqlsim.Options{}) {
		t.Run(srv.name, func(t *testing.T) {
			rc := dialRaw(t, srv.addr)
			rc.startup(nil)
			setupReviewKeyspace(t, srv, rc,
				"CREATE TABLE review_sim.a (k int, c int, f float, d double, PRIMARY KEY (k, c))",
				"INSERT INTO review_sim.a (k, c, f, d) VALUES (1, 1, 1.5, 0.1)",
				"INSERT INTO review_sim.a (k, c, f, d) VALUES (1, 2, 2.25, 0.2)",
				"INSERT INTO review_sim.a (k, c, f, d) VALUES (1, 3, 4.0, 0.3)",
				"INSERT INTO review_sim.a (k, c) VALUES (1, 4)",
				"INSERT INTO review_sim.a (k, c) VALUES (2, 1)")
			for i, tc := range cases {
				fr := rawQuery(rc, int16(10+i), q+tc.key, rawQueryOpts{consistency: 1, serial: -1})
				rows, ok := fr.Body.Message.(*message.RowsResult)
				if !ok {
					t.Fatalf("k = %s: %v", tc.key, fr.Body.Message)
				}
				if len(rows.Data) != 1 || len(rows.Data[0]) != 4 {
					t.Fatalf("k = %s: %d rows, want 1 of 4 values", tc.key, len(rows.Data))
				}
				r := rows.Data[0]
				got := [4]float64{f32(r[0]), f32(r[1]), f64(r[2]), f64(r[3])}
				if got != tc.want {
					t.Errorf("k = %s: sum(f), avg(f), sum(d), avg(d) = %v, want %v", tc.key, got, tc.want)
				}
			}
		})
	}
}
