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

// TestReviewUnknownTypeErrorsAreNotMarshalErrors checks the type of the error
// for a CQL type Marshal and Unmarshal have no rules for (a custom type, such
// as a vector, or an unknown type code): gocql v1.7.0 returns a plain error
// with the message, not a MarshalError or UnmarshalError, so code that tells
// the two apart (errors.As, a type switch) sees the same thing.
func TestReviewUnknownTypeErrorsAreNotMarshalErrors(t *testing.T) {
	infos := []gocql.TypeInfo{
		gocql.NewNativeType(4, gocql.TypeCustom, "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 2)"),
		gocql.NewNativeType(4, gocql.Type(0x99), ""),
		gocql.NewNativeType(3, gocql.TypeCustom, "com.example.Custom"),
	}
	for _, info := range infos {
		_, err := gocql.Marshal(info, 1)
		_, legacyErr := gocqlv1.Marshal(legacyInfo(info), 1)
		checkErrorLike(t, fmt.Sprintf("Marshal(%s, 1)", info), err, legacyErr)

		var n, legacyN int
		err = gocql.Unmarshal(info, []byte{1}, &n)
		legacyErr = gocqlv1.Unmarshal(legacyInfo(info), []byte{1}, &legacyN)
		checkErrorLike(t, fmt.Sprintf("Unmarshal(%s, 01, *int)", info), err, legacyErr)
	}
}

// checkErrorLike requires an error with gocql's message and of the same kind:
// a MarshalError, an UnmarshalError or neither.
func checkErrorLike(t *testing.T, name string, err, legacyErr error) {
	t.Helper()
	if err == nil || legacyErr == nil {
		t.Fatalf("%s: compat %v, gocql %v; want both to fail", name, err, legacyErr)
	}
	if err.Error() != legacyErr.Error() {
		t.Errorf("%s: compat says %q, gocql %q", name, err, legacyErr)
	}
	if got, want := errorKind(err), errorKind(legacyErr); got != want {
		t.Errorf("%s: compat returns %s (%T), gocql %s (%T)", name, got, err, want, legacyErr)
	}
}

// errorKind names which of the codec's error types err is, from either
// package.
func errorKind(err error) string {
	switch err.(type) {
	case gocql.MarshalError, gocqlv1.MarshalError:
		return "a MarshalError"
	case gocql.UnmarshalError, gocqlv1.UnmarshalError:
		return "an UnmarshalError"
	}
	return "a plain error"
}
