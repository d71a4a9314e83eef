package gocql

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestShouldPrepareASCIIMatchesUnicode compares the fast ASCII decision with the general one
// on generated statements made of keyword fragments, ASCII and Unicode spaces, semicolons and
// non-ASCII letters, and checks that the usual statements take the fast path.
func TestShouldPrepareASCIIMatchesUnicode(t *testing.T) {
	parts := []string{"select", "SELECT", "Insert", "update", "DELETE", "batch", "begin", "BEGIN", "apply",
		"create", "use", "x", "*", "(", ";", ";", " ", " ", "  ", "\t", "\n", "\r\n", "\v", "\f",
		"\u00a0", "\u0085", "\u2003", "\u0130", "\u212a", "\u017fELECT", "é", "\x00"}
	r := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		for k := r.IntN(7); k >= 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		stmt := b.String()
		want := shouldPrepareUnicode(stmt)
		if got, ok := shouldPrepareASCII(stmt); ok {
			fast++
			if got != want {
				t.Fatalf("shouldPrepareASCII(%q) = %v, shouldPrepareUnicode says %v", stmt, got, want)
			}
		}
		if got := shouldPrepare(stmt); got != want {
			t.Fatalf("shouldPrepare(%q) = %v, want %v", stmt, got, want)
		}
	}
	if fast == 0 {
		t.Fatal("no generated statement took the fast path")
	}
	for _, stmt := range []string{"SELECT c, v FROM kv WHERE p = ? AND c = ?", "INSERT INTO t (a) VALUES (?)",
		"  update t SET a = 1 WHERE k = 1;", "CREATE TABLE t (k int PRIMARY KEY)", "DELETE FROM t WHERE k = ?"} {
		if _, ok := shouldPrepareASCII(stmt); !ok {
			t.Errorf("%q did not take the fast path", stmt)
		}
	}
}
