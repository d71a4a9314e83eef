package engine

import (
	"math"
	"strings"
	"testing"
)

// TestSimilarityFunctions: Cassandra 5.0's vector similarity functions, mapped to [0, 1] as
// Cassandra maps Lucene's: cosine (1 + a·b/(|a||b|))/2, euclidean 1/(1 + |a-b|²), dot product
// (1 + a·b)/2; their column names and errors (the differential test compares them with
// Cassandra's, value for value).
func TestSimilarityFunctions(t *testing.T) {
	te := setupKS(t)
	te.mustExec("CREATE TABLE v (k int PRIMARY KEY, e vector<float, 3>)")
	te.mustExec("INSERT INTO v (k, e) VALUES (1, [1.0, 2.5, -3.0])")
	r := te.mustExec("SELECT similarity_cosine(e, [1.0, 2.0, 3.0]), similarity_euclidean(e, [1.0, 2.0, 3.0]), similarity_dot_product(e, [1.0, 2.0, 3.0]) FROM v WHERE k = 1")
	// a·b = 1 + 5 - 9 = -3, |a|² = 16.25, |b|² = 14, |a-b|² = 0 + 0.25 + 36 = 36.25
	want := []float64{(1 - 3/math.Sqrt(16.25*14)) / 2, 1 / 37.25, (1 - 3) / 2.0}
	for i, c := range r.Columns {
		if !strings.HasPrefix(c.Name, "system.similarity_") || !strings.HasSuffix(c.Name, "(e, [1.0, 2.0, 3.0])") || c.Type.Code() != nativeTypes["float"] {
			t.Errorf("column %d: %q of type %v", i, c.Name, c.Type)
		}
		got := float64(math.Float32frombits(uint32(r.Rows[0][i][0])<<24 | uint32(r.Rows[0][i][1])<<16 | uint32(r.Rows[0][i][2])<<8 | uint32(r.Rows[0][i][3])))
		if math.Abs(got-want[i]) > 1e-6 {
			t.Errorf("%s = %v, want %v", c.Name, got, want[i])
		}
	}
	te.wantInvalid(map[string]string{
		"SELECT similarity_cosine(e, [0.0, 0.0, 0.0]) FROM v WHERE k = 1": "Function system.similarity_cosine doesn't support all-zero vectors.",
		"SELECT similarity_cosine(e, [1.0, 2.0]) FROM v WHERE k = 1":      "All arguments must have the same vector dimensions",
		"SELECT similarity_euclidean(k, e) FROM v WHERE k = 1":            "Function system.similarity_euclidean requires a float vector argument, but found argument k of type int",
		"SELECT similarity_dot_product(e) FROM v WHERE k = 1":             "Invalid number of arguments for function system.similarity_dot_product(vector<float, n>, vector<float, n>)",
	})
	if rows := te.rows("SELECT similarity_cosine(e, null) FROM v WHERE k = 1"); len(rows) != 1 || !strings.Contains(rows[0], "null") {
		t.Errorf("similarity with null: %q, want a null value", rows)
	}
}
