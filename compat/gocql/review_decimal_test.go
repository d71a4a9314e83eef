package gocql_test

import (
	"fmt"
	"reflect"
	"testing"

	gocqlv1 "github.com/gocql/gocql"
	"gopkg.in/inf.v0"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// TestReviewDecimalZeroDeepEqual scans decimals (zero at two scales, one and minus one) into
// inf.Dec with both drivers and compares them with reflect.DeepEqual to inf.NewDec of the same
// value, as tests that check a row with reflect.DeepEqual (or testify's assert.Equal) do: gocql
// v1.7.0's zero has no digits, as inf.NewDec's; compat's had an empty slice of them, so a
// scanned zero was not DeepEqual to inf.NewDec(0, 0). gocql v1.7.0's own TestMarshal_Decode,
// which scripts/gocql-suite runs, found it.
func TestReviewDecimalZeroDeepEqual(t *testing.T) {
	p := newDiffPair(t, "CREATE TABLE KS.review_decimal (k int PRIMARY KEY, d decimal)")
	want := map[int]*inf.Dec{1: inf.NewDec(0, 0), 2: inf.NewDec(0, 2), 3: inf.NewDec(1, 0), 4: inf.NewDec(-1, 0)}
	for k, d := range want {
		if err := p.legacy.Query("INSERT INTO review_decimal (k, d) VALUES (?, ?)", k, d).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var lt, ct trace
	for k := 1; k <= len(want); k++ {
		const sel = "SELECT d FROM review_decimal WHERE k = ?"
		var l, c inf.Dec
		lt.add(fmt.Sprint("scan ", k), p.legacy.Query(sel, k).Scan(&l), l.String(), reflect.DeepEqual(&l, want[k]))
		ct.add(fmt.Sprint("scan ", k), p.compat.Query(sel, k).Scan(&c), c.String(), reflect.DeepEqual(&c, want[k]))
	}
	// Unmarshal alone: scale 0, unscaled 0 (one byte).
	data := []byte{0, 0, 0, 0, 0}
	var l, c inf.Dec
	lt.add("unmarshal", gocqlv1.Unmarshal(gocqlv1.NewNativeType(4, gocqlv1.TypeDecimal, ""), data, &l), reflect.DeepEqual(&l, inf.NewDec(0, 0)))
	ct.add("unmarshal", gocql.Unmarshal(gocql.NewNativeType(4, gocql.TypeDecimal, ""), data, &c), reflect.DeepEqual(&c, inf.NewDec(0, 0)))
	sameTrace(t, &lt, &ct)
}
