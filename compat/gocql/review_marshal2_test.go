package gocql_test

import (
	"fmt"
	"math/big"
	"testing"

	gocqlv1 "github.com/gocql/gocql"
	"gopkg.in/inf.v0"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
)

// TestReviewDecimalDecodeKeepsEarlierCopies scans decimals into one reused
// inf.Dec and keeps a copy of it after each scan, the way rows are commonly
// collected (var row T; for iter.Scan(&row.D) { rows = append(rows, row) }).
// A copy of an inf.Dec shares its digits with the original; gocql v1.7.0
// stores a new Dec on every decode, so the copies keep their values.
func TestReviewDecimalDecodeKeepsEarlierCopies(t *testing.T) {
	info := nativeInfo(gocql.TypeDecimal)
	large, ok := new(big.Int).SetString("123456789012345678901234567890", 10)
	if !ok {
		t.Fatal("bad test number")
	}
	cases := []struct {
		name   string
		values []*inf.Dec
	}{
		{"large then small", []*inf.Dec{inf.NewDecBig(large, 2), inf.NewDec(7, 0)}},
		{"large then negative", []*inf.Dec{inf.NewDecBig(large, 0), inf.NewDec(-99, 1)}},
		{"equal widths", []*inf.Dec{inf.NewDecBig(large, 3), inf.NewDecBig(new(big.Int).Neg(large), 4), inf.NewDec(1, 0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var dec, legacyDec inf.Dec
			var kept, legacyKept []inf.Dec
			for _, v := range tc.values {
				data, err := gocqlv1.Marshal(legacyInfo(info), v)
				if err != nil {
					t.Fatal(err)
				}
				if err := gocql.Unmarshal(info, data, &dec); err != nil {
					t.Fatalf("compat Unmarshal(%s): %v", v, err)
				}
				kept = append(kept, dec)
				if err := gocqlv1.Unmarshal(legacyInfo(info), data, &legacyDec); err != nil {
					t.Fatalf("gocql Unmarshal(%s): %v", v, err)
				}
				legacyKept = append(legacyKept, legacyDec)
			}
			for i := range kept {
				got, want := decString(&kept[i]), decString(&legacyKept[i])
				if got != want {
					t.Errorf("copy %d after all scans: compat %s, gocql %s (decoded %s)", i, got, want, tc.values[i])
				}
			}
		})
	}
}

// decString shows a decimal's digits and scale.
func decString(d *inf.Dec) string {
	return fmt.Sprintf("%s/%d", d.UnscaledBig(), d.Scale())
}
